//! [`ResponsesProvider`]: one model call = one streaming POST to `/responses` through the shared
//! HTTP driver, folded by [`ResponsesFolder`]. No retries here: a retry is always the session's,
//! visible as an event.

use std::time::Duration;

use rho_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, Context, ErrorInfo,
    ErrorKind, Model, Provider, StopReason, StreamOptions, channel,
};
use rho_http::{HttpClient, PostRequest, SseFolder, run_sse_stream};

use super::request::{request_headers, responses_url, to_responses_request};
use super::stream::ResponsesFolder;
use crate::completions::is_loopback_url;

/// The `openai-responses` provider.
#[derive(Clone, Debug)]
pub struct ResponsesProvider {
    client: HttpClient,
    idle_timeout: Duration,
}

impl ResponsesProvider {
    /// A provider sending through `client`; a call fails with `IdleTimeout` when the server sends
    /// nothing for `idle_timeout`.
    pub fn new(client: HttpClient, idle_timeout: Duration) -> Self {
        ResponsesProvider {
            client,
            idle_timeout,
        }
    }
}

/// A stream that ends at once with an error of `kind` and empty content: nothing was sent.
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

impl Provider for ResponsesProvider {
    fn stream(
        &self,
        model: &Model,
        context: Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let folder = ResponsesFolder::new(model);
        let template = folder.partial();
        // Local servers (LM Studio, Ollama, vLLM) need no key; anything else does.
        let api_key = options.api_key.as_deref().filter(|k| !k.trim().is_empty());
        if api_key.is_none() && !is_loopback_url(&model.base_url) {
            let text = format!("No API key for provider: {}", model.provider);
            return failed_before_request(template, ErrorKind::Auth, text);
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            let text = "The OpenAI Responses provider needs a Tokio runtime".to_owned();
            return failed_before_request(template, ErrorKind::Provider, text);
        };
        let body = to_responses_request(model, &context, &options);
        let request = PostRequest {
            url: responses_url(model),
            headers: request_headers(model, api_key, &options),
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
