//! Signing in from the editor: `initialize` offers one `terminal` method per provider whose key
//! `rho auth login <provider>` stores (the client runs rho with those arguments in a terminal,
//! where the user pastes the key); `authenticate` then answers at once, since every session
//! reads the keys when it is built. A `session/new` that finds no key answers `auth_required`.

use agent_client_protocol::v1::schema::{
    AuthMethod, AuthMethodTerminal, AuthenticateRequest, AuthenticateResponse,
};
use agent_client_protocol::{Error, ErrorCode};

/// The providers offered, with the name a person knows them by.
const PROVIDERS: [(&str, &str); 3] = [
    ("anthropic", "Anthropic"),
    ("openai", "OpenAI"),
    ("google", "Google Gemini"),
];

fn id(provider: &str) -> String {
    format!("rho-auth-login-{provider}")
}

/// The sign-in methods `initialize` offers.
pub fn methods() -> Vec<AuthMethod> {
    PROVIDERS
        .iter()
        .map(|(provider, name)| {
            AuthMethod::Terminal(
                AuthMethodTerminal::new(id(provider), format!("{name} API key"))
                    .description(format!(
                        "Paste an {name} API key; rho keeps it in RHO_HOME/auth.json (mode 0600)"
                    ))
                    .args(vec![
                        "auth".to_owned(),
                        "login".to_owned(),
                        (*provider).to_owned(),
                    ]),
            )
        })
        .collect()
}

/// `authenticate` after the client ran a method's command: the key is read by the next
/// session; an unknown method is refused.
pub fn authenticate(request: &AuthenticateRequest) -> Result<AuthenticateResponse, Error> {
    let known = PROVIDERS
        .iter()
        .any(|(provider, _)| id(provider) == request.method_id.0.as_ref());
    if known {
        Ok(AuthenticateResponse::new())
    } else {
        Err(Error::new(
            ErrorCode::INVALID_PARAMS,
            format!("no sign-in method {}", request.method_id.0),
        ))
    }
}
