//! `RHO_HOME/mcp-auth.json`: each OAuth server's client registration and tokens, as Pi 1.6
//! keeps them — keyed `"<mcp namespace>|<URL>"`, so one URL under two names signs in twice and
//! one name and URL in two files share a sign-in — with what rho adds (the granted scopes, the
//! issuer, a challenge that asked for more scope). The file is private (0600), replaced whole,
//! and read and changed under a lock, so two rho processes never lose each other's tokens.
//! Tokens never leave this file but in an `Authorization` header.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use oauth2::TokenResponse;
use rho_stdx::fs::{Access, write_atomic};
use rmcp::transport::auth::{AuthError, CredentialRefreshGuard, OAuthTokenResponse};
use rmcp::transport::{CredentialStore, StoredCredentials};
use serde_json::{Map, Value, json};

use crate::naming::namespace;

/// The file's name in `RHO_HOME`.
pub const AUTH_FILE: &str = "mcp-auth.json";

/// The whole file, shared by every server.
#[derive(Debug)]
pub struct McpAuthStore {
    path: PathBuf,
}

/// What a server has stored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerAuth {
    /// The client rho signed in as.
    pub client_id: Option<String>,
    /// Its secret, when the authorization server gave one (or the configuration did).
    pub client_secret: Option<String>,
    /// The redirect URIs it was registered with.
    pub redirect_uris: Vec<String>,
    /// Whether an access token is stored.
    pub has_tokens: bool,
    /// A fingerprint of the access token (to tell a new sign-in from the old tokens).
    pub token_fingerprint: Option<u64>,
    /// The scopes granted so far.
    pub granted_scopes: Vec<String>,
    /// A server's challenge that asked for more than the tokens allow (`WWW-Authenticate`).
    pub challenge: Option<String>,
}

impl McpAuthStore {
    /// The store of `rho_home`.
    pub fn new(rho_home: &Path) -> Arc<McpAuthStore> {
        Arc::new(McpAuthStore {
            path: rho_home.join(AUTH_FILE),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The credentials of server `name` at `url`.
    pub fn for_server(self: &Arc<Self>, name: &str, url: &str) -> ServerCredentials {
        ServerCredentials {
            store: self.clone(),
            key: key(name, url),
            url: url.to_owned(),
        }
    }

    /// Reads the file under its lock, lets `change` edit the entries, and writes it back when
    /// `change` says so. Blocking.
    fn with_entries<T>(
        &self,
        change: impl FnOnce(&mut Map<String, Value>) -> (T, bool),
    ) -> std::io::Result<T> {
        let _lock = FileLock::take(&self.path.with_extension("json.lock"))?;
        let mut entries = match std::fs::read_to_string(&self.path) {
            Ok(text) if !text.trim().is_empty() => match serde_json::from_str(&text) {
                Ok(Value::Object(entries)) => entries,
                Ok(_) | Err(_) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("{} is not a JSON object", self.path.display()),
                    ));
                }
            },
            Ok(_) => Map::new(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
            Err(e) => return Err(e),
        };
        let (result, changed) = change(&mut entries);
        if changed {
            let mut text = serde_json::to_string_pretty(&Value::Object(entries))
                .map_err(std::io::Error::other)?;
            text.push('\n');
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            write_atomic(&self.path, text.as_bytes(), Access::Private)?;
        }
        Ok(result)
    }
}

/// `"<mcp namespace>|<URL as a URL parser writes it>"`, Pi's key.
fn key(name: &str, url: &str) -> String {
    let url = url::Url::parse(url).map_or_else(|_| url.to_owned(), |u| u.to_string());
    format!("{}|{url}", namespace(name))
}

/// One server's entry, and the rmcp credential store over it.
#[derive(Clone, Debug)]
pub struct ServerCredentials {
    store: Arc<McpAuthStore>,
    key: String,
    url: String,
}

impl ServerCredentials {
    /// The file the credentials are in.
    pub fn store_path(&self) -> PathBuf {
        self.store.path.clone()
    }

    /// What is stored (blocking).
    pub fn read(&self) -> std::io::Result<ServerAuth> {
        self.store.with_entries(|entries| {
            let auth = entries.get(&self.key).map(parse).unwrap_or_default();
            (auth, false)
        })
    }

    /// Records the client rho signed in as (blocking).
    pub fn save_client(
        &self,
        client_id: &str,
        client_secret: Option<&str>,
        redirect_uri: &str,
    ) -> std::io::Result<()> {
        self.edit(|entry| {
            let mut client = Map::new();
            client.insert("client_id".into(), client_id.into());
            if let Some(secret) = client_secret {
                client.insert("client_secret".into(), secret.into());
            }
            client.insert("redirect_uris".into(), json!([redirect_uri]));
            entry.insert("clientInformation".into(), Value::Object(client));
        })
    }

    /// Keeps (or, with `None`, forgets) a challenge asking for more scope (blocking).
    pub fn save_challenge(&self, challenge: Option<&str>) -> std::io::Result<()> {
        self.edit(|entry| match challenge {
            Some(challenge) => {
                entry.insert("challenge".into(), challenge.into());
            }
            None => {
                entry.shift_remove("challenge");
            }
        })
    }

    /// Deletes the server's entry; whether there was one (blocking).
    pub fn remove(&self) -> std::io::Result<bool> {
        self.store.with_entries(|entries| {
            let removed = entries.shift_remove(&self.key).is_some();
            (removed, removed)
        })
    }

    fn edit(&self, change: impl FnOnce(&mut Map<String, Value>)) -> std::io::Result<()> {
        self.store.with_entries(|entries| {
            let entry = entries
                .entry(self.key.clone())
                .or_insert_with(|| json!({"serverUrl": self.url}));
            if let Value::Object(entry) = entry {
                change(entry);
            }
            ((), true)
        })
    }

    /// The refresh lock of this server: `RHO_HOME/mcp-auth-refresh-<hash>`.
    fn refresh_lock_path(&self) -> PathBuf {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(self.key.as_bytes());
        let hash: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        self.store
            .path
            .with_file_name(format!("mcp-auth-refresh-{hash}"))
    }
}

/// What an entry says, read leniently (a hand-edited file is not an error).
fn parse(entry: &Value) -> ServerAuth {
    let client = entry.get("clientInformation");
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
    let strings = |value: Option<&Value>| -> Vec<String> {
        value
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    ServerAuth {
        client_id: text(client.and_then(|c| c.get("client_id"))),
        client_secret: text(client.and_then(|c| c.get("client_secret"))),
        redirect_uris: strings(client.and_then(|c| c.get("redirect_uris"))),
        has_tokens: entry
            .get("tokens")
            .and_then(|t| t.get("access_token"))
            .is_some(),
        token_fingerprint: entry
            .get("tokens")
            .and_then(|t| t.get("access_token"))
            .and_then(Value::as_str)
            .map(|token| {
                use std::hash::{Hash, Hasher};
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                token.hash(&mut hasher);
                hasher.finish()
            }),
        granted_scopes: strings(entry.get("grantedScopes")),
        challenge: text(entry.get("challenge")),
    }
}

fn store_error(error: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(error.to_string())
}

/// Runs blocking file work off the runtime.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> Result<T, AuthError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(store_error)?
        .map_err(store_error)
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[async_trait]
impl CredentialStore for ServerCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let this = self.clone();
        let entry = blocking(move || {
            this.store
                .with_entries(|entries| (entries.get(&this.key).cloned(), false))
        })
        .await?;
        let Some(entry) = entry else {
            return Ok(None);
        };
        let auth = parse(&entry);
        let Some(client_id) = auth.client_id else {
            return Ok(None);
        };
        let tokens: Option<OAuthTokenResponse> = entry
            .get("tokens")
            .cloned()
            .and_then(|t| serde_json::from_value(t).ok());
        // Pi keeps when the tokens expire; rmcp wants when they were received.
        let received_at = match (&tokens, entry.get("tokensExpireAt").and_then(Value::as_u64)) {
            (Some(tokens), Some(expire_at_ms)) => tokens
                .expires_in()
                .map(|lifetime| (expire_at_ms / 1000).saturating_sub(lifetime.as_secs())),
            _ => None,
        };
        let issuer = entry
            .get("issuer")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(Some(
            StoredCredentials::new(client_id, tokens, auth.granted_scopes, received_at)
                .with_issuer(issuer),
        ))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let this = self.clone();
        blocking(move || {
            this.edit(|entry| {
                let client = entry
                    .entry("clientInformation")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(client) = client {
                    // Another client's secret does not belong to this one.
                    if client.get("client_id").and_then(Value::as_str)
                        != Some(credentials.client_id.as_str())
                    {
                        client.shift_remove("client_secret");
                    }
                    client.insert("client_id".into(), credentials.client_id.clone().into());
                }
                match &credentials.token_response {
                    Some(tokens) => {
                        let received = credentials.token_received_at.unwrap_or_else(now_secs);
                        match tokens.expires_in() {
                            Some(lifetime) => entry.insert(
                                "tokensExpireAt".into(),
                                ((received + lifetime.as_secs()) * 1000).into(),
                            ),
                            None => entry.shift_remove("tokensExpireAt"),
                        };
                        let value = serde_json::to_value(tokens).unwrap_or(Value::Null);
                        entry.insert("tokens".into(), value);
                    }
                    None => {
                        entry.shift_remove("tokens");
                        entry.shift_remove("tokensExpireAt");
                    }
                }
                entry.insert("grantedScopes".into(), json!(credentials.granted_scopes));
                match &credentials.issuer {
                    Some(issuer) => entry.insert("issuer".into(), issuer.clone().into()),
                    None => entry.shift_remove("issuer"),
                };
            })
        })
        .await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let this = self.clone();
        blocking(move || this.remove().map(drop)).await
    }

    async fn on_refresh_token_rejected(
        &self,
        _credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        // The tokens are dead: forget them, so every process sees that a sign-in is needed.
        let this = self.clone();
        blocking(move || {
            this.edit(|entry| {
                entry.shift_remove("tokens");
                entry.shift_remove("tokensExpireAt");
            })
        })
        .await
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let path = self.refresh_lock_path();
        let lock = blocking(move || FileLock::take(&path)).await?;
        Ok(Some(CredentialRefreshGuard::new(lock)))
    }
}

/// An exclusive `flock` on a private lock file, released when dropped.
struct FileLock {
    _file: File,
}

impl FileLock {
    /// Blocks until the lock is held.
    fn take(path: &Path) -> std::io::Result<FileLock> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)?;
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function owns; no memory is involved.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if locked != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(FileLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_namespace_and_the_parsed_url() {
        assert_eq!(
            key("my-server", "https://Example.com"),
            "mcp__my_server|https://example.com/"
        );
        assert_eq!(
            key("s", "http://127.0.0.1:8080/mcp"),
            "mcp__s|http://127.0.0.1:8080/mcp"
        );
    }
}
