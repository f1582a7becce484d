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

impl PostRequest {
    /// `body` serialized for the wire, compact, as `body.to_string()` would write it but straight
    /// into bytes: `Display` goes through `fmt::Write`, which made up a large share of a long
    /// session's cost, where every request carries the whole transcript.
    pub fn json_body(body: &serde_json::Value) -> Vec<u8> {
        // Writing a `Value` into a `Vec` cannot fail (its keys are strings, the `Vec` grows).
        Self::try_json_body(body).unwrap_or_else(|_| body.to_string().into_bytes())
    }

    /// Any serializable `body` (a provider's typed request) written compactly, straight into
    /// bytes. Fails only where serde_json cannot write the value: a map whose keys are not
    /// strings, or a `Serialize` implementation that reports an error.
    pub fn try_json_body<T: serde::Serialize + ?Sized>(
        body: &T,
    ) -> Result<Vec<u8>, serde_json::Error> {
        let mut bytes = Vec::with_capacity(4096);
        serde_json::to_writer(&mut bytes, body)?;
        Ok(bytes)
    }
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

/// A cheap-to-clone handle on two lazily built `reqwest` clients, one for `https` and one for
/// plain `http` that never loads root certificates: connections are pooled and reused (HTTP/2
/// when the server offers it), TLS is rustls, redirects are not followed and nothing is
/// retried — a retry is always the session's, visible as an event.
#[derive(Clone, Debug)]
pub struct HttpClient {
    inner: Arc<Inner>,
}

/// Two clients, each built on its first request, so a run that never calls a model sets up
/// nothing, and a run against a plain `http://` server (a local model, the benchmarks' mock)
/// never reads the system's root certificates: decoding that store costs more than the whole
/// rest of a short run.
#[derive(Debug)]
struct Inner {
    config: HttpConfig,
    /// For `https` URLs, and for everything when a proxy may be in the way: the platform's roots.
    tls: OnceLock<Result<reqwest::Client, String>>,
    /// For `http` URLs without a proxy: rustls still configured, but with an empty root store.
    plain: OnceLock<Result<reqwest::Client, String>>,
}

/// Which trust a client is built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Roots {
    /// The platform verifier with the system's root certificates.
    Platform,
    /// No root certificate at all: only for URLs that never reach TLS.
    None,
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
                tls: OnceLock::new(),
                plain: OnceLock::new(),
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

    fn client(&self, roots: Roots) -> Result<&reqwest::Client, SendError> {
        let slot = match roots {
            Roots::Platform => &self.inner.tls,
            Roots::None => &self.inner.plain,
        };
        slot.get_or_init(|| build(&self.inner.config, roots))
            .as_ref()
            .map_err(|message| SendError::Client(message.clone()))
    }

    /// The reqwest client for any URL (platform roots): for protocols rho-http does not speak
    /// itself (MCP's streamable HTTP), with the same TLS, no redirects and no retries.
    pub fn reqwest_client(&self) -> Result<reqwest::Client, String> {
        self.client(Roots::Platform)
            .cloned()
            .map_err(|error| error.to_string())
    }

    /// Sends one POST and waits for the response head. Exactly one request goes out.
    pub(crate) async fn send(&self, request: PostRequest) -> Result<reqwest::Response, SendError> {
        let proxy_set =
            self.inner.config.proxy_from_env && proxy_in_env(|name| std::env::var_os(name));
        let client = self.client(roots_for(&request.url, proxy_set))?;
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

/// The trust a request to `url` needs: none for a plain `http` URL, unless a proxy may carry it
/// (an `https://` proxy needs the roots, and reqwest's proxy rules are not worth re-deriving).
/// Redirects are never followed, so an `http` request cannot end up on an `https` URL.
fn roots_for(url: &str, proxy_set: bool) -> Roots {
    let plain_http = url
        .get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"));
    if plain_http && !proxy_set {
        Roots::None
    } else {
        Roots::Platform
    }
}

/// Whether any variable reqwest reads a proxy for an `http` URL from is set and non-empty.
fn proxy_in_env(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
        .iter()
        .any(|name| var(name).is_some_and(|value| !value.is_empty()))
}

/// Installs rustls' process-wide crypto provider (ring) unless one is there: every reqwest
/// client of the process needs it, rho-http's own and those other crates build (rmcp's OAuth
/// client), since reqwest is built without a provider of its own.
pub fn install_crypto_provider() {
    // An `Err` means another provider was installed first, which reqwest then uses: fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn build(config: &HttpConfig, roots: Roots) -> Result<reqwest::Client, String> {
    // reqwest is built without its own crypto provider; ring is smaller than aws-lc.
    install_crypto_provider();
    let mut builder = reqwest::Client::builder()
        .connect_timeout(config.connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        // reqwest's default replays requests refused at the protocol level (HTTP/2 NACKs);
        // rho's contract is exactly one request per call.
        .retry(reqwest::retry::never());
    if !config.proxy_from_env {
        builder = builder.no_proxy();
    }
    if roots == Roots::None {
        // An empty root store instead of the platform verifier: nothing is read or decoded.
        builder = builder.tls_certs_only(Vec::<reqwest::Certificate>::new());
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
    fn a_json_body_is_the_compact_text_of_the_value() {
        let body = serde_json::json!({
            "model": "m", "stream": true, "temperature": 0.5, "n": 1, "none": null,
            "messages": [{"role": "user", "content": "tab\t quote\" é 🦀 \u{1}"}],
            "empty": {}, "list": []
        });
        assert_eq!(PostRequest::json_body(&body), body.to_string().into_bytes());
    }

    #[test]
    fn only_plain_http_without_a_proxy_goes_without_root_certificates() {
        let cases = [
            ("http://127.0.0.1:8080/v1", false, Roots::None),
            ("HTTP://localhost/v1", false, Roots::None),
            ("https://api.anthropic.com/v1", false, Roots::Platform),
            ("http://127.0.0.1:8080/v1", true, Roots::Platform),
            ("http:/", false, Roots::Platform),
            ("", false, Roots::Platform),
        ];
        let chosen: Vec<(&str, bool, Roots)> = cases
            .iter()
            .map(|(url, proxy, _)| (*url, *proxy, roots_for(url, *proxy)))
            .collect();
        assert_eq!(chosen, cases);
    }

    #[test]
    fn an_empty_proxy_variable_is_no_proxy() {
        let env = |set: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                set.iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| std::ffi::OsString::from(value))
            }
        };
        assert!(!proxy_in_env(env(&[])));
        assert!(!proxy_in_env(env(&[("HTTP_PROXY", "")])));
        assert!(proxy_in_env(env(&[("all_proxy", "https://proxy:3128")])));
        assert!(!proxy_in_env(env(&[("HTTPS_PROXY", "https://proxy:3128")])));
    }

    #[tokio::test]
    async fn a_request_to_a_plain_http_server_builds_only_the_client_without_roots() {
        let server =
            rho_testkit::MockServer::start(vec![rho_testkit::MockResponse::new(200)]).await;
        // No proxy from the environment, so the test does not depend on the machine's variables.
        let client = HttpClient::new(HttpConfig {
            proxy_from_env: false,
            ..HttpConfig::default()
        });
        let response = client
            .send(PostRequest {
                url: format!("{}/v1/chat/completions", server.base_url()),
                headers: vec![],
                body: b"{}".to_vec(),
            })
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert!(client.inner.plain.get().is_some_and(Result::is_ok));
        assert!(client.inner.tls.get().is_none());
    }

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
