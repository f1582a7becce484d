//! One sign-in: the authorization code flow with PKCE against the server's authorization
//! server, the browser's answer taken on a loopback callback or pasted by hand, and the tokens
//! stored for the server.

use async_trait::async_trait;
use rmcp::transport::auth::{AuthError, AuthorizationMetadata};
use rmcp::transport::{AuthorizationManager, AuthorizationRequest, AuthorizationSession};

use super::callback::{Callback, Redirect, RedirectError, read_redirect};
use super::settings::{OAuthSettings, Registration};
use super::store::ServerCredentials;
use super::{challenge_scopes, store};
use crate::config::ServerEntry;
use crate::interpolate::{ProcessVariables, resolve};

/// Why a sign-in did not go through.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// The configuration cannot be used (a missing document, an unresolvable secret).
    #[error("{0}")]
    Config(String),
    /// The loopback callback could not listen.
    #[error("cannot listen for the browser on {address}: {source}")]
    Callback {
        /// Host and port.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// Discovery, registration or the token exchange failed.
    #[error("{0}")]
    Auth(#[from] AuthError),
    /// The browser's answer (or the pasted one) is not this sign-in's.
    #[error("{0}")]
    Redirect(#[from] RedirectError),
    /// The user stopped it.
    #[error("Sign-in cancelled.")]
    Cancelled,
    /// `mcp-auth.json` could not be read or written.
    #[error("{}: {source}", path.display())]
    Store {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// What the user did instead of the browser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Paste {
    /// Pasted the URL the browser was sent to.
    Url(String),
    /// Stopped the sign-in.
    Cancelled,
    /// Nobody can paste: only the loopback callback answers.
    Unavailable,
}

/// Who is shown the authorization URL and may paste where the browser went.
#[async_trait]
pub trait SignInPrompt: Send + Sync {
    /// The URL to open: show it, and open the browser where there is one.
    fn authorize(&self, url: &str);
    /// What the user pasted, or that they stopped; asked once the URL was shown.
    async fn pasted(&self) -> Paste;
}

/// Signs in to `server` (an HTTP server using OAuth) and stores its tokens. `challenge` is the
/// server's last `WWW-Authenticate` (a 401's, or a 403 asking for more scope). Runs until the
/// browser or the user answers: the caller bounds it in time.
pub async fn sign_in(
    server: &ServerEntry,
    credentials: &ServerCredentials,
    challenge: Option<&str>,
    prompt: &dyn SignInPrompt,
) -> Result<(), SignInError> {
    rho_http::install_crypto_provider();
    let url = server.config.url().unwrap_or_default().to_owned();
    let settings = OAuthSettings::of(&server.config);
    let stored = read_stored(credentials).await?;
    let callback = listen(&settings, &stored).await?;
    let redirect_uri = callback.redirect_uri().to_owned();

    let mut manager = AuthorizationManager::new(url.as_str()).await?;
    manager.set_credential_store(credentials.clone());
    let metadata = match &settings.auth_server_metadata_url {
        Some(metadata_url) => fetch_metadata(metadata_url).await?,
        None => {
            manager
                .resolve_metadata_from_challenge(challenge)
                .await?
                .metadata
        }
    };
    manager.set_metadata(metadata.clone());

    // The scopes: configured, else the challenge's or those the resource advertises (none:
    // the parameter is left out); a step-up keeps what was granted and adds what is asked.
    let mut scopes = settings.scopes();
    if scopes.is_empty() {
        scopes = manager.select_initial_scopes(&[]).await;
    }
    if let Some(challenge) = challenge {
        scopes.extend(stored.granted_scopes.iter().cloned());
        scopes.extend(challenge_scopes(challenge));
    }
    let mut seen = std::collections::HashSet::new();
    scopes.retain(|scope| seen.insert(scope.clone()));

    let request = client_request(
        &mut manager,
        server,
        &settings,
        &stored,
        &metadata,
        &redirect_uri,
        &scopes,
        credentials,
    )
    .await?;
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, error)| error)?;
    let authorization_url = session.get_authorization_url().to_owned();
    let state = url::Url::parse(&authorization_url)
        .ok()
        .and_then(|u| {
            u.query_pairs()
                .find(|(key, _)| key == "state")
                .map(|(_, value)| value.into_owned())
        })
        .unwrap_or_default();
    prompt.authorize(&authorization_url);

    let pasted = async {
        match prompt.pasted().await {
            Paste::Url(text) => {
                read_redirect(&text, &redirect_uri, &state).map_err(SignInError::from)
            }
            Paste::Cancelled => Err(SignInError::Cancelled),
            Paste::Unavailable => std::future::pending().await,
        }
    };
    let answer: Redirect = tokio::select! {
        answer = callback.answer(&state) => answer?,
        answer = pasted => answer?,
    };
    session
        .handle_callback_with_issuer(&answer.code, &answer.state, answer.iss.as_deref())
        .await?;
    let store_error = |source| SignInError::Store {
        path: credentials.store_path(),
        source,
    };
    let answered = credentials.clone();
    tokio::task::spawn_blocking(move || answered.save_challenge(None))
        .await
        .map_err(|e| store_error(std::io::Error::other(e)))?
        .map_err(store_error)?;
    Ok(())
}

async fn read_stored(credentials: &ServerCredentials) -> Result<store::ServerAuth, SignInError> {
    let reading = credentials.clone();
    let path = credentials.store_path();
    tokio::task::spawn_blocking(move || reading.read())
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))
        .and_then(|read| read)
        .map_err(|source| SignInError::Store { path, source })
}

/// The loopback listener: the configured address, else the port of the redirect URI the
/// stored client was registered with (so the registration can be used again), else any.
async fn listen(
    settings: &OAuthSettings,
    stored: &store::ServerAuth,
) -> Result<Callback, SignInError> {
    let (host, port) = settings.callback_address();
    let remembered = stored
        .redirect_uris
        .first()
        .and_then(|u| url::Url::parse(u).ok())
        .and_then(|u| u.port());
    let configured = settings.callback_port.is_some() || port != 0;
    let first = if configured {
        port
    } else {
        remembered.unwrap_or(0)
    };
    let failed = |source| SignInError::Callback {
        address: format!("{host}:{first}"),
        source,
    };
    match Callback::listen(&host, first, settings.callback_url.as_deref()).await {
        Ok(callback) => Ok(callback),
        // The remembered port is taken: any port will do (a new registration follows).
        Err(_) if !configured && first != 0 => {
            Callback::listen(&host, 0, settings.callback_url.as_deref())
                .await
                .map_err(failed)
        }
        Err(error) => Err(failed(error)),
    }
}

/// The authorization server's metadata at a configured URL (`authServerMetadataUrl`).
pub(super) async fn fetch_metadata(url: &str) -> Result<AuthorizationMetadata, SignInError> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| SignInError::Config(format!("cannot make an HTTP client: {e}")))?;
    let fetch_error = |e: reqwest::Error| {
        SignInError::Config(format!(
            "cannot read the authorization server metadata at {url}: {e}"
        ))
    };
    client
        .get(url)
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(fetch_error)?
        .json::<AuthorizationMetadata>()
        .await
        .map_err(fetch_error)
}

/// The request naming the client: a pre-registered one, the Client ID Metadata Document, the
/// client registered before with this redirect URI, or a new dynamic registration (stored).
#[allow(clippy::too_many_arguments)]
async fn client_request(
    manager: &mut AuthorizationManager,
    server: &ServerEntry,
    settings: &OAuthSettings,
    stored: &store::ServerAuth,
    metadata: &AuthorizationMetadata,
    redirect_uri: &str,
    scopes: &[String],
    credentials: &ServerCredentials,
) -> Result<AuthorizationRequest, SignInError> {
    let request = AuthorizationRequest::new(redirect_uri).with_scopes(scopes.to_vec());
    let save = |id: &str, secret: Option<&str>| {
        let credentials = credentials.clone();
        let (id, secret, redirect) = (
            id.to_owned(),
            secret.map(str::to_owned),
            redirect_uri.to_owned(),
        );
        async move {
            let path = credentials.store_path();
            tokio::task::spawn_blocking(move || {
                credentials.save_client(&id, secret.as_deref(), &redirect)
            })
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))
            .and_then(|saved| saved)
            .map_err(|source| SignInError::Store { path, source })
        }
    };
    if let Some(client_id) = &settings.client_id {
        let mut request = request.with_preregistered_client(client_id.clone());
        if let Some(secret) = &settings.client_secret {
            let what = format!("MCP server \"{}\" oauth.clientSecret", server.name);
            let (value, what) = (secret.clone(), what);
            let secret =
                tokio::task::spawn_blocking(move || resolve(&value, &what, &ProcessVariables))
                    .await
                    .map_err(|e| SignInError::Config(e.to_string()))?
                    .map_err(SignInError::Config)?;
            request = request.with_client_secret(secret);
        }
        save(client_id, None).await?;
        return Ok(request);
    }
    let takes_documents = metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        == Some(true);
    match (settings.registration, &settings.client_metadata_url) {
        (Registration::Cimd, None) => {
            return Err(SignInError::Config(
                "oauth.clientRegistration \"cimd\" needs oauth.clientMetadataUrl: rho publishes no Client ID Metadata Document of its own".to_owned(),
            ));
        }
        (Registration::Cimd, Some(_)) if !takes_documents => {
            return Err(SignInError::Config(
                "The authorization server does not support Client ID Metadata Documents for public clients; remove oauth.clientRegistration \"cimd\"".to_owned(),
            ));
        }
        (Registration::Cimd | Registration::Auto, Some(document)) if takes_documents => {
            save(document, None).await?;
            return Ok(request.with_client_metadata_url(document.clone()));
        }
        _ => {}
    }
    // A client registered before for this redirect URI signs in again as itself.
    if let Some(client_id) = &stored.client_id
        && stored.redirect_uris.iter().any(|u| u == redirect_uri)
        && !client_id.starts_with("https://")
    {
        let mut request = request.with_preregistered_client(client_id.clone());
        if let Some(secret) = &stored.client_secret {
            request = request.with_client_secret(secret.clone());
        }
        return Ok(request);
    }
    let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
    let name = settings.client_name.as_deref().unwrap_or("rho");
    let registered = manager
        .register_client(name, redirect_uri, &scope_refs)
        .await?;
    save(&registered.client_id, registered.client_secret.as_deref()).await?;
    let mut request = request.with_preregistered_client(registered.client_id.clone());
    if let Some(secret) = registered.client_secret {
        request = request.with_client_secret(secret);
    }
    Ok(request)
}
