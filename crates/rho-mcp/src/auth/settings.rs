//! A server's `oauth` object (validated with the rest of the entry in `config.rs`): the client
//! to sign in as, the callback, the scopes, where the authorization server's metadata is.

use serde_json::{Map, Value};

use crate::config::ServerConfig;

/// How rho gets a client id when none is configured (`clientRegistration`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Registration {
    /// A Client ID Metadata Document when one is configured and the authorization server takes
    /// them, else dynamic registration.
    #[default]
    Auto,
    /// Always dynamic client registration (RFC 7591).
    Dcr,
    /// Always the Client ID Metadata Document (`clientMetadataUrl`).
    Cimd,
}

/// The `oauth` settings of one server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OAuthSettings {
    /// A pre-registered client.
    pub client_id: Option<String>,
    /// Its secret, as written (`${VAR}` and `!command` still to resolve).
    pub client_secret: Option<String>,
    /// The loopback port the browser comes back to.
    pub callback_port: Option<u16>,
    /// The redirect URI, sent as written (a port added when it names none).
    pub callback_url: Option<String>,
    /// The scopes to ask for, space-separated.
    pub scope: Option<String>,
    /// The client name sent at registration (default `rho`).
    pub client_name: Option<String>,
    /// How the client id is got.
    pub registration: Registration,
    /// Where the authorization server's metadata is, instead of discovering it.
    pub auth_server_metadata_url: Option<String>,
    /// rho's addition: the URL of the user's Client ID Metadata Document (rho publishes none
    /// of its own).
    pub client_metadata_url: Option<String>,
}

impl OAuthSettings {
    /// The settings of `config` (defaults without an `oauth` object).
    pub fn of(config: &ServerConfig) -> OAuthSettings {
        let empty = Map::new();
        let oauth = config.oauth().unwrap_or(&empty);
        let text = |key: &str| oauth.get(key).and_then(Value::as_str).map(str::to_owned);
        OAuthSettings {
            client_id: text("clientId"),
            client_secret: text("clientSecret"),
            callback_port: oauth
                .get("callbackPort")
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok()),
            callback_url: text("callbackUrl"),
            scope: text("scope").filter(|s| !s.trim().is_empty()),
            client_name: text("clientName"),
            registration: match text("clientRegistration").as_deref() {
                Some("dcr") => Registration::Dcr,
                Some("cimd") => Registration::Cimd,
                _ => Registration::Auto,
            },
            auth_server_metadata_url: text("authServerMetadataUrl"),
            client_metadata_url: text("clientMetadataUrl"),
        }
    }

    /// The host and port the callback listens on: the configured callback URL's, else
    /// `127.0.0.1` and the configured port (0: any free one).
    pub fn callback_address(&self) -> (String, u16) {
        let from_url = self
            .callback_url
            .as_deref()
            .and_then(|u| url::Url::parse(u).ok());
        let host = from_url
            .as_ref()
            .and_then(|u| u.host_str().map(str::to_owned))
            .map(|h| {
                if h == "localhost" {
                    "127.0.0.1".to_owned()
                } else {
                    h.trim_matches(['[', ']']).to_owned()
                }
            })
            .unwrap_or_else(|| "127.0.0.1".to_owned());
        let port = self
            .callback_port
            .or_else(|| from_url.and_then(|u| u.port()))
            .unwrap_or(0);
        (host, port)
    }

    /// The configured scopes.
    pub fn scopes(&self) -> Vec<String> {
        self.scope
            .as_deref()
            .map(|s| s.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;
    use crate::config::validate;

    #[test]
    fn settings_are_read_from_the_entry_with_their_defaults() {
        let config = validate(
            "s",
            json!({"url": "https://x/mcp", "oauth": {"clientId": "id", "callbackUrl": "http://localhost/callback",
                   "scope": "a b", "clientRegistration": "dcr"}}),
        )
        .unwrap();
        let settings = OAuthSettings::of(&config);
        assert_eq!(settings.client_id.as_deref(), Some("id"));
        assert_eq!(settings.registration, Registration::Dcr);
        assert_eq!(settings.scopes(), ["a", "b"]);
        assert_eq!(settings.callback_address(), ("127.0.0.1".to_owned(), 0));
        let plain = validate("s", json!({"url": "https://x/mcp"})).unwrap();
        assert_eq!(OAuthSettings::of(&plain), OAuthSettings::default());
    }
}
