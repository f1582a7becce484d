//! [`AnthropicProvider`]: one model call = one POST through the shared HTTP driver, folded by
//! [`AnthropicFolder`]. Exactly one request per call; retries are the session's, never made here.

use std::time::Duration;

use rho_ai::{AssistantMessageEventStream, Context, ErrorKind, Model, Provider, StreamOptions};
use rho_http::{
    HttpClient, PostRequest, SseFolder, fail_before_request, start_sse_call, unwritable,
};

use crate::convert::CacheRetention;
use crate::request::{anthropic_headers, anthropic_request_body, messages_url};
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
            return fail_before_request(template, ErrorKind::Auth, text);
        };
        let body = anthropic_request_body(model, &context, &options, CacheRetention::default());
        let body = match body {
            Ok(body) => body,
            Err(e) => {
                return fail_before_request(template, ErrorKind::InvalidRequest, unwritable(&e));
            }
        };
        let request = PostRequest {
            url: messages_url(&model.base_url),
            headers: anthropic_headers(model, &context, &options, api_key),
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
