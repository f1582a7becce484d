//! [`GoogleProvider`]: one model call = one POST through the shared HTTP driver, folded by
//! [`GoogleFolder`]. Exactly one request per call; retries are the session's, never made here.

use std::time::Duration;

use rho_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, Context, ErrorInfo,
    ErrorKind, Model, Provider, StopReason, StreamOptions, channel,
};
use rho_http::{HttpClient, PostRequest, SseFolder, run_sse_stream};

use crate::request::{google_headers, stream_url, to_google_request};
use crate::stream::GoogleFolder;

/// The `google-generative-ai` provider (Gemini API, `streamGenerateContent`).
#[derive(Clone, Debug)]
pub struct GoogleProvider {
    client: HttpClient,
    idle_timeout: Duration,
}

impl GoogleProvider {
    /// A provider sending through `client`; a call fails with `IdleTimeout` when the server sends
    /// nothing for `idle_timeout`.
    pub fn new(client: HttpClient, idle_timeout: Duration) -> Self {
        GoogleProvider {
            client,
            idle_timeout,
        }
    }
}

/// A stream that ends at once with an error of `kind`, content `[]` (nothing was sent).
fn failed_before_request(
    mut message: AssistantMessage,
    kind: ErrorKind,
    text: String,
) -> AssistantMessageEventStream {
    let (mut sender, stream) = channel(message.clone());
    message.stop_reason = StopReason::Error;
    message.error_message = Some(text);
    message.error_info = Some(ErrorInfo::new(kind));
    sender.push(AssistantMessageEvent::Error {
        reason: StopReason::Error,
        error: message,
    });
    stream
}

impl Provider for GoogleProvider {
    fn stream(
        &self,
        model: &Model,
        context: Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let folder = GoogleFolder::new(model);
        let template = folder.partial();
        let Some(api_key) = options.api_key.as_deref().filter(|k| !k.trim().is_empty()) else {
            let text = format!("No API key for provider: {}", model.provider);
            return failed_before_request(template, ErrorKind::Auth, text);
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            let text = "The Google provider needs a Tokio runtime".to_owned();
            return failed_before_request(template, ErrorKind::Provider, text);
        };
        let body = to_google_request(model, &context, &options);
        let request = PostRequest {
            url: stream_url(&model.base_url, &model.id),
            headers: google_headers(model, api_key),
            body: body.to_string().into_bytes(),
        };
        let (sender, stream) = channel(template);
        let client = self.client.clone();
        let idle_timeout = self.idle_timeout;
        let cancel = options.cancel.clone();
        runtime.spawn(async move {
            run_sse_stream(&client, request, folder, sender, cancel, idle_timeout).await;
        });
        stream
    }
}
