//! The connection of a signed-in server: rmcp's `AuthClient` over rho's HTTP client, with an
//! authorization manager that reads and writes this server's stored tokens — it sends the
//! access token, refreshes it before it expires (under the server's refresh lock, so two rho
//! processes do not both spend the refresh token), and refreshes once more after a 401.

use rmcp::transport::AuthorizationManager;
use rmcp::transport::auth::{AuthError, OAuthClientConfig};

use super::settings::OAuthSettings;
use super::store::{ServerAuth, ServerCredentials};
use crate::config::ServerEntry;

/// The authorization manager of a server that has stored tokens; `None` without tokens (the
/// server's 401 then says a sign-in is needed).
pub async fn signed_in_manager(
    server: &ServerEntry,
    credentials: &ServerCredentials,
    stored: &ServerAuth,
) -> Result<Option<AuthorizationManager>, AuthError> {
    let (Some(client_id), true) = (&stored.client_id, stored.has_tokens) else {
        return Ok(None);
    };
    rho_http::install_crypto_provider();
    let url = server.config.url().unwrap_or_default();
    let settings = OAuthSettings::of(&server.config);
    let mut manager = AuthorizationManager::new(url).await?;
    manager.set_credential_store(credentials.clone());
    if let Some(metadata_url) = &settings.auth_server_metadata_url {
        let metadata = super::sign_in::fetch_metadata(metadata_url)
            .await
            .map_err(|e| AuthError::MetadataError(e.to_string()))?;
        manager.set_metadata(metadata);
    }
    if !manager.initialize_from_store().await? {
        return Ok(None);
    }
    // The stored client's secret is needed to refresh (rmcp keeps only its id).
    if let Some(secret) = &stored.client_secret {
        let redirect = stored.redirect_uris.first().cloned().unwrap_or_default();
        manager.configure_client(
            OAuthClientConfig::new(client_id.clone(), redirect).with_client_secret(secret.clone()),
        )?;
    } else if settings.client_id.as_deref() == Some(client_id.as_str())
        && settings.client_secret.is_some()
    {
        // A pre-registered client's secret stays in the configuration: resolved here.
        let raw = settings.client_secret.clone().unwrap_or_default();
        let what = format!("MCP server \"{}\" oauth.clientSecret", server.name);
        let secret = tokio::task::spawn_blocking(move || {
            crate::interpolate::resolve(&raw, &what, &crate::interpolate::ProcessVariables)
        })
        .await
        .map_err(|e| AuthError::InternalError(e.to_string()))?
        .map_err(AuthError::InternalError)?;
        let redirect = stored.redirect_uris.first().cloned().unwrap_or_default();
        manager.configure_client(
            OAuthClientConfig::new(client_id.clone(), redirect).with_client_secret(secret),
        )?;
    }
    Ok(Some(manager))
}
