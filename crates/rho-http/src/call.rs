//! Starting one streaming model call: what every HTTP provider's `Provider::stream` ends with.

use rho_ai::{AssistantMessage, AssistantMessageEventStream, ErrorKind, channel};
use tokio_util::sync::CancellationToken;

use crate::SseFolder;
use crate::client::{HttpClient, PostRequest};
use crate::driver::{CallLimits, run_sse_stream};

/// Spawns [`run_sse_stream`] for `request` on the current Tokio runtime and returns its stream.
/// Without a runtime the stream fails at once (kind `Provider`) and nothing is sent.
pub fn start_sse_call<F: SseFolder + Sync>(
    client: &HttpClient,
    request: PostRequest,
    folder: F,
    cancel: CancellationToken,
    limits: CallLimits,
) -> AssistantMessageEventStream {
    let template = folder.partial();
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        let text = "A model call needs a Tokio runtime".to_owned();
        return fail_before_request(template, ErrorKind::Provider, text);
    };
    let (sender, stream) = channel(template);
    let client = client.clone();
    runtime.spawn(async move {
        run_sse_stream(&client, request, folder, sender, cancel, limits).await;
    });
    stream
}

/// A stream that ends at once with an error of `kind` and the content of `message` (nothing was
/// sent: a missing key, say).
pub fn fail_before_request(
    message: AssistantMessage,
    kind: ErrorKind,
    text: String,
) -> AssistantMessageEventStream {
    let (mut sender, stream) = channel(message.clone());
    sender.fail(message, kind, text);
    stream
}

/// The error text of a request body that could not be written (see
/// [`PostRequest::try_json_body`](crate::PostRequest::try_json_body)); nothing was sent.
pub fn unwritable(error: &serde_json::Error) -> String {
    format!("Could not write the request body: {error}")
}
