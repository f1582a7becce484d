//! [`ResponsesProvider`]: one model call = one streaming POST to `/responses` through the shared
//! HTTP driver, folded by [`ResponsesFolder`]. No retries here: a retry is always the session's,
//! visible as an event.

use std::time::Duration;

use rho_ai::{AssistantMessageEventStream, Context, ErrorKind, Model, Provider, StreamOptions};
use rho_http::{
    HttpClient, PostRequest, SseFolder, fail_before_request, start_sse_call, unwritable,
};

use super::request::{request_headers, responses_request_body, responses_url};
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
            return fail_before_request(template, ErrorKind::Auth, text);
        }
        let body = match responses_request_body(model, &context, &options) {
            Ok(body) => body,
            Err(e) => {
                return fail_before_request(template, ErrorKind::InvalidRequest, unwritable(&e));
            }
        };
        let request = PostRequest {
            url: responses_url(model),
            headers: request_headers(model, api_key, &options),
            body,
        };
        start_sse_call(
            &self.client,
            request,
            folder,
            options.cancel.clone(),
            rho_http::CallLimits {
                idle: self.idle_timeout,
                max_retry_delay: options.max_retry_delay,
            },
        )
    }
}
