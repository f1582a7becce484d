//! Which provider serves which wire API: the one place that maps a model's `api` to code.

use std::sync::Arc;
use std::time::Duration;

use rho_ai::Provider;
use rho_anthropic::AnthropicProvider;
use rho_google::GoogleProvider;
use rho_http::HttpClient;
use rho_openai::{CompletionsProvider, ResponsesProvider};

/// How long a response may stay silent before the call fails as an idle timeout.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// The wire APIs this build can speak.
pub const SUPPORTED_APIS: &[&str] = &[
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "google-generative-ai",
];

/// Builds providers that share one HTTP client (one connection pool per process).
#[derive(Clone)]
pub struct Providers {
    client: HttpClient,
    idle_timeout: Duration,
}

impl Providers {
    /// Providers over a lazily built client: no TLS is set up until a request is made.
    pub fn new(idle_timeout: Duration) -> Self {
        Providers {
            client: HttpClient::shared(),
            idle_timeout,
        }
    }

    /// The provider for `api`, or `None` when this build cannot speak it.
    pub fn for_api(&self, api: &str) -> Option<Arc<dyn Provider>> {
        match api {
            "anthropic-messages" => Some(Arc::new(AnthropicProvider::new(
                self.client.clone(),
                self.idle_timeout,
            ))),
            "openai-completions" => Some(Arc::new(CompletionsProvider::new(
                self.client.clone(),
                self.idle_timeout,
            ))),
            "openai-responses" => Some(Arc::new(ResponsesProvider::new(
                self.client.clone(),
                self.idle_timeout,
            ))),
            "google-generative-ai" => Some(Arc::new(GoogleProvider::new(
                self.client.clone(),
                self.idle_timeout,
            ))),
            _ => None,
        }
    }
}
