//! [`AnthropicProvider`]: one model call = one POST through the shared HTTP driver, folded by
//! [`AnthropicFolder`]. Exactly one request per call; retries are the session's, never made here.

use std::time::Duration;

use rho_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, Context, ErrorInfo,
    ErrorKind, Model, Provider, StopReason, StreamOptions, channel,
};
use rho_http::{HttpClient, PostRequest, SseFolder, run_sse_stream};

use crate::request::{anthropic_headers, messages_url, to_anthropic_request};
use crate::stream::AnthropicFolder;

/// The `anthropic-messages` provider.
#[derive(Clone, Debug)]
pub struct AnthropicProvider {
    client: HttpClient,
    idle_timeout: Duration,
}

impl AnthropicProvider {
    /// A provider sending through `client`; a call fails with `IdleTimeout` when the server sends
    /// nothing for `idle_timeout`.
    pub fn new(client: HttpClient, idle_timeout: Duration) -> Self {
        AnthropicProvider {
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

impl Provider for AnthropicProvider {
    fn stream(
        &self,
        model: &Model,
        context: Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let folder = AnthropicFolder::new(model);
        let template = folder.partial();
        let Some(api_key) = options.api_key.as_deref().filter(|k| !k.trim().is_empty()) else {
            let text = format!("No API key for provider: {}", model.provider);
            return failed_before_request(template, ErrorKind::Auth, text);
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            let text = "The Anthropic provider needs a Tokio runtime".to_owned();
            return failed_before_request(template, ErrorKind::Provider, text);
        };
        let body = to_anthropic_request(model, &context, &options);
        let request = PostRequest {
            url: messages_url(&model.base_url),
            headers: anthropic_headers(model, &context, api_key),
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
