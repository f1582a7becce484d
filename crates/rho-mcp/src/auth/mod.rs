//! OAuth for HTTP servers, as Pi 1.6 signs in to them, on rmcp's OAuth support: a server without
//! an `Authorization` header (or `auth.provider`) that answers 401 needs a sign-in; rho never
//! starts one by itself — `rho mcp login` and `/mcp login` do — and afterwards sends the stored
//! access token, refreshed before it expires and once more after a 401.
//!
//! - [`settings`]: the `oauth` object of a server's entry.
//! - [`store`]: `RHO_HOME/mcp-auth.json`, the registrations and tokens.
//! - [`sign_in`]: discovery (RFC 9728, RFC 8414 with the issuer check and the older fallbacks),
//!   the client (pre-registered, a Client ID Metadata Document, or dynamic registration), the
//!   scopes (configured, challenged, advertised; a step-up adds to those granted), PKCE, the
//!   browser's answer on a loopback [`callback`] or pasted by hand, the code exchanged.
//! - [`transport`]: the connection of a signed-in server.

pub mod callback;
pub mod settings;
pub mod sign_in;
pub mod store;
pub mod transport;

pub use settings::{OAuthSettings, Registration};
pub use sign_in::{Paste, SignInError, SignInPrompt, sign_in};
pub use store::{McpAuthStore, ServerAuth, ServerCredentials};

/// Whether a `WWW-Authenticate` challenge asks for more scope than the token has
/// (`error="insufficient_scope"`), which only a new sign-in gives.
pub fn is_insufficient_scope(challenge: &str) -> bool {
    challenge
        .split([',', ' '])
        .filter_map(|part| part.trim().split_once('='))
        .any(|(key, value)| {
            key.trim().eq_ignore_ascii_case("error")
                && value.trim().trim_matches('"') == "insufficient_scope"
        })
}

/// The `scope` of a challenge, split into scopes.
pub fn challenge_scopes(challenge: &str) -> Vec<String> {
    let Some(at) = challenge.find("scope=") else {
        return Vec::new();
    };
    let rest = &challenge[at + "scope=".len()..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next().unwrap_or(""),
        None => rest.split([',', ' ']).next().unwrap_or(""),
    };
    value.split_whitespace().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_says_whether_it_wants_more_scope_and_which() {
        let step_up = r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="https://x/.well-known/oauth-protected-resource""#;
        assert!(is_insufficient_scope(step_up));
        assert_eq!(challenge_scopes(step_up), ["mcp:basic", "mcp:write"]);
        let plain = r#"Bearer resource_metadata="https://x/prm""#;
        assert!(!is_insufficient_scope(plain));
        assert!(challenge_scopes(plain).is_empty());
        assert_eq!(challenge_scopes("Bearer scope=read"), ["read"]);
    }
}
