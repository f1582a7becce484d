//! [`CompletionsProvider`]: one model call = one streaming POST to `/chat/completions` through
//! the shared HTTP driver, folded by [`CompletionsFolder`]. No retries here: a retry is always
//! the session's, visible as an event.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rho_ai::{AssistantMessageEventStream, Context, ErrorKind, Model, Provider, StreamOptions};
use rho_http::{
    HttpClient, PostRequest, SseFolder, fail_before_request, start_sse_call, unwritable,
};
use rho_stdx::sync::lock;

use super::request::{CompletionsWriter, completions_url, request_headers};
use super::stream::CompletionsFolder;

/// The `openai-completions` provider.
#[derive(Clone, Debug)]
pub struct CompletionsProvider {
    client: HttpClient,
    idle_timeout: Duration,
    /// The conversation's message text, reused from one request to the next. Shared by clones;
    /// calls for other conversations through the same provider stay correct, they only make it
    /// write more.
    writer: Arc<Mutex<CompletionsWriter>>,
}

impl CompletionsProvider {
    /// A provider sending through `client`; a call fails with `IdleTimeout` when the server sends
    /// nothing for `idle_timeout`.
    pub fn new(client: HttpClient, idle_timeout: Duration) -> Self {
        CompletionsProvider {
            client,
            idle_timeout,
            writer: Arc::default(),
        }
    }
}

/// Whether `base_url` points at this machine (`localhost`, `127.0.0.0/8`, `::1`): local servers
/// (llama.cpp, Ollama, LM Studio, vLLM) need no API key.
pub fn is_loopback_url(base_url: &str) -> bool {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if let Some(bracketed) = host_port.strip_prefix('[') {
        bracketed.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl Provider for CompletionsProvider {
    fn stream(
        &self,
        model: &Model,
        context: Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let folder = CompletionsFolder::new(model);
        let template = folder.partial();
        let api_key = options.api_key.as_deref().filter(|k| !k.trim().is_empty());
        if api_key.is_none() && !is_loopback_url(&model.base_url) {
            let text = format!("No API key for provider: {}", model.provider);
            return fail_before_request(template, ErrorKind::Auth, text);
        }
        let mut writer = lock(&self.writer);
        let body = writer.body(model, &context, &options);
        drop(writer);
        let body = match body {
            Ok(body) => body,
            Err(e) => {
                return fail_before_request(template, ErrorKind::InvalidRequest, unwritable(&e));
            }
        };
        let request = PostRequest {
            url: completions_url(model),
            headers: request_headers(model, api_key),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_urls_are_recognised_and_others_are_not() {
        let urls = [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080",
            "http://[::1]:1234/v1",
            "http://user:pw@LOCALHOST/v1",
            "http://api.localhost/v1",
            "https://api.openai.com/v1",
            "http://192.168.1.10:8000/v1",
            "http://localhost.example.com/v1",
            "not a url",
        ];
        let loopback: Vec<bool> = urls.iter().map(|u| is_loopback_url(u)).collect();
        assert_eq!(
            loopback,
            [true, true, true, true, true, false, false, false, false]
        );
    }
}
