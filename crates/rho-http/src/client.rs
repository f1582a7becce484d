//! The process's HTTP client: built on first use, shared by every provider, no hidden retries.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

/// How the client is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpConfig {
    /// Longest wait for a TCP connection (and TLS handshake) before the call fails with a network
    /// error.
    pub connect_timeout: Duration,
    /// Whether `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` are honoured.
    pub proxy_from_env: bool,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            connect_timeout: Duration::from_secs(10),
            proxy_from_env: true,
        }
    }
}

/// One streaming POST: a JSON body and the provider's headers (API key included).
#[derive(Clone, PartialEq, Eq)]
pub struct PostRequest {
    /// The full endpoint URL.
    pub url: String,
    /// Extra headers; `content-type: application/json` is added by the client.
    pub headers: Vec<(String, String)>,
    /// The serialized JSON body.
    pub body: Vec<u8>,
}

impl std::fmt::Debug for PostRequest {
    /// Header values are never printed: they hold API keys.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("PostRequest")
            // A query may carry a key (`?key=…`): print the URL up to it.
            .field("url", &self.url.split('?').next().unwrap_or_default())
            .field("header_names", &names)
            .field("body_len", &self.body.len())
            .finish()
    }
}

/// Why a request could not be sent. Its text never contains header values or the URL.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SendError {
    /// The client could not be built (TLS set-up failed).
    #[error("Failed to create the HTTP client: {0}")]
    Client(String),
    /// A header name or value is not valid HTTP; only the name is reported.
    #[error("Invalid request header: {0}")]
    Header(String),
    /// Connecting or sending failed before a response arrived.
    #[error("Connection error: {0}")]
    Connect(String),
}

/// A cheap-to-clone handle on one lazily built `reqwest::Client`: connections are pooled and
/// reused (HTTP/2 when the server offers it), TLS is rustls, redirects are not followed and
/// nothing is retried — a retry is always the session's, visible as an event.
#[derive(Clone, Debug)]
pub struct HttpClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: HttpConfig,
    /// Built on the first request, so a run that never calls a model sets up no TLS.
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl Default for HttpClient {
    fn default() -> Self {
        HttpClient::new(HttpConfig::default())
    }
}

impl HttpClient {
    /// A client with `config`; nothing is set up until the first request.
    pub fn new(config: HttpConfig) -> Self {
        HttpClient {
            inner: Arc::new(Inner {
                config,
                client: OnceLock::new(),
            }),
        }
    }

    /// The process-wide client with the default configuration: every provider shares its
    /// connection pool.
    pub fn shared() -> HttpClient {
        static SHARED: OnceLock<HttpClient> = OnceLock::new();
        SHARED.get_or_init(HttpClient::default).clone()
    }

    /// The configuration this client is built with.
    pub fn config(&self) -> &HttpConfig {
        &self.inner.config
    }

    fn client(&self) -> Result<&reqwest::Client, SendError> {
        self.inner
            .client
            .get_or_init(|| build(&self.inner.config))
            .as_ref()
            .map_err(|message| SendError::Client(message.clone()))
    }

    /// Sends one POST and waits for the response head. Exactly one request goes out.
    pub(crate) async fn send(&self, request: PostRequest) -> Result<reqwest::Response, SendError> {
        let client = self.client()?;
        let headers = header_map(request.headers)?;
        client
            .post(request.url)
            .headers(headers)
            .body(request.body)
            .send()
            .await
            .map_err(|error| SendError::Connect(error_chain(error)))
    }
}

fn build(config: &HttpConfig) -> Result<reqwest::Client, String> {
    // reqwest is built without its own crypto provider; ring is smaller than aws-lc. An `Err`
    // means another provider was installed first, which reqwest then uses: fine either way.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .connect_timeout(config.connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        // reqwest's default replays requests refused at the protocol level (HTTP/2 NACKs);
        // rho's contract is exactly one request per call.
        .retry(reqwest::retry::never());
    if !config.proxy_from_env {
        builder = builder.no_proxy();
    }
    builder.build().map_err(error_chain)
}

/// Builds the header map, marking credential-like headers sensitive (never logged, never
/// HPACK-indexed). An invalid header is reported by name only: its value may be a key.
fn header_map(headers: Vec<(String, String)>) -> Result<HeaderMap, SendError> {
    let mut map = HeaderMap::with_capacity(headers.len() + 1);
    map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    for (name, value) in headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| SendError::Header(printable(&name)))?;
        let mut value = HeaderValue::from_str(&value)
            .map_err(|_| SendError::Header(header.as_str().to_owned()))?;
        if is_secret(header.as_str()) {
            value.set_sensitive(true);
        }
        map.insert(header, value);
    }
    Ok(map)
}

fn is_secret(name: &str) -> bool {
    ["auth", "key", "token", "secret", "cookie"]
        .iter()
        .any(|word| name.contains(word))
}

/// A header name that failed to parse, cut short and stripped of control characters.
fn printable(name: &str) -> String {
    name.chars().filter(|c| !c.is_control()).take(64).collect()
}

/// The error's causes joined with `": "`, for example `client error (Connect): tcp connect
/// error: Connection refused (os error 111)`. reqwest's own top line ("error sending request for
/// url (…)") is left out when there is a cause: it adds nothing, and the URL's query may carry a
/// key.
pub(crate) fn error_chain(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut source = std::error::Error::source(&error);
    let mut text = match source {
        Some(_) => String::new(),
        None => error.to_string(),
    };
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        // hyper sometimes repeats a cause's text in its parent; print it once.
        if !text.ends_with(&cause_text) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn credential_headers_are_sensitive_and_content_type_is_json() {
        let map = header_map(vec![
            ("x-api-key".into(), "sk-secret".into()),
            ("anthropic-version".into(), "2023-06-01".into()),
        ])
        .unwrap();
        assert_eq!(map["content-type"], "application/json");
        assert!(map["x-api-key"].is_sensitive());
        assert!(!map["anthropic-version"].is_sensitive());
    }

    #[test]
    fn an_invalid_header_value_is_reported_by_name_only() {
        let error =
            header_map(vec![("authorization".into(), "Bearer sk\nsecret".into())]).unwrap_err();
        assert_eq!(error.to_string(), "Invalid request header: authorization");
    }

    #[test]
    fn debug_output_of_a_request_hides_header_values() {
        let request = PostRequest {
            url: "https://api.example/v1".into(),
            headers: vec![("x-api-key".into(), "sk-secret".into())],
            body: b"{}".to_vec(),
        };
        assert_eq!(
            format!("{request:?}"),
            r#"PostRequest { url: "https://api.example/v1", header_names: ["x-api-key"], body_len: 2 }"#
        );
    }
}
