//! `mcp.json` as Pi 1.6 reads it: `RHO_HOME/mcp.json`, then — in a trusted project —
//! `.rho/mcp.json`, each `{"mcpServers": {name: entry}, "autoEnableCodemode"?: bool}`.
//!
//! An entry is a stdio server (`command`, `args`, `env`, `cwd`) or a streamable HTTP server
//! (`url`, `headers`, `oauth`, `auth`), with `type`, `timeout`, `enabled`, `description`,
//! `exposure` and `toolExposure`. Every invalid entry is reported with Pi's wording and skipped;
//! the others load. A project entry with the same name replaces the global one; a project entry
//! without `command`, `url` or `type` only overrides `enabled`, `exposure` and `toolExposure` of
//! the global server of that name (so a repository cannot redirect a server's credentials).
//! Unknown fields are kept (and kept when rho rewrites the file).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::exposure::Exposure;
use crate::naming::namespace;

/// The fields a project override may set.
const OVERRIDE_KEYS: [&str; 3] = ["enabled", "exposure", "toolExposure"];

/// Hosts an `http:` URL may name where Pi insists on TLS otherwise.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Which file a server came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `RHO_HOME/mcp.json`.
    Global,
    /// The project's `.rho/mcp.json`.
    Project,
    /// Given by the editor over ACP (`session/new`'s `mcpServers`): nothing to save it to.
    Client,
}

impl Scope {
    /// `global` or `project`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Project => "project",
            Scope::Client => "client",
        }
    }
}

/// How rho talks to a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportKind {
    /// A child process on stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    Http,
}

/// One server entry, validated. The entry's JSON is kept as written (key order, unknown
/// fields); the accessors read the fields validation checked.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    raw: Map<String, Value>,
    kind: TransportKind,
}

impl ServerConfig {
    /// The entry as written.
    pub fn raw(&self) -> &Map<String, Value> {
        &self.raw
    }

    /// Stdio or HTTP.
    pub fn kind(&self) -> TransportKind {
        self.kind
    }

    fn str(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }

    fn strings(&self, key: &str) -> Vec<String> {
        self.raw
            .get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    fn pairs(&self, key: &str) -> Vec<(String, String)> {
        self.raw
            .get(key)
            .and_then(Value::as_object)
            .map(|map| {
                map.iter()
                    .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The executable of a stdio server.
    pub fn command(&self) -> Option<&str> {
        self.str("command")
    }

    /// Its arguments.
    pub fn args(&self) -> Vec<String> {
        self.strings("args")
    }

    /// Its `env` entries (values still to be interpolated).
    pub fn env(&self) -> Vec<(String, String)> {
        self.pairs("env")
    }

    /// Its working directory as written.
    pub fn cwd(&self) -> Option<&str> {
        self.str("cwd")
    }

    /// The URL of an HTTP server.
    pub fn url(&self) -> Option<&str> {
        self.str("url")
    }

    /// Its headers (values still to be interpolated).
    pub fn headers(&self) -> Vec<(String, String)> {
        self.pairs("headers")
    }

    /// The `oauth` object, if any.
    pub fn oauth(&self) -> Option<&Map<String, Value>> {
        self.raw.get("oauth").and_then(Value::as_object)
    }

    /// `auth.provider`: the rho provider whose key is sent as the bearer token.
    pub fn auth_provider(&self) -> Option<&str> {
        self.raw
            .get("auth")
            .and_then(|auth| auth.get("provider"))
            .and_then(Value::as_str)
    }

    /// The per-request timeout in seconds (Pi's default: 60).
    pub fn timeout_secs(&self) -> f64 {
        self.raw
            .get("timeout")
            .and_then(Value::as_f64)
            .unwrap_or(60.0)
    }

    /// Whether rho connects to it.
    pub fn enabled(&self) -> bool {
        self.raw.get("enabled").and_then(Value::as_bool) != Some(false)
    }

    /// The one-sentence summary the user gave.
    pub fn description(&self) -> Option<&str> {
        self.str("description")
    }

    /// The server's exposure (default `codemode`).
    pub fn exposure(&self) -> Exposure {
        self.str("exposure")
            .and_then(Exposure::parse)
            .unwrap_or_default()
    }

    /// `toolExposure`, in the order written.
    pub fn tool_exposure(&self) -> Vec<(String, Exposure)> {
        self.raw
            .get("toolExposure")
            .and_then(Value::as_object)
            .map(|map| {
                map.iter()
                    .filter_map(|(k, v)| {
                        v.as_str().and_then(Exposure::parse).map(|e| (k.clone(), e))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether an HTTP server signs in with OAuth: it has no `auth` and no `Authorization`
    /// header.
    pub fn uses_oauth(&self) -> bool {
        self.kind == TransportKind::Http
            && self.auth_provider().is_none()
            && !self
                .headers()
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
    }
}

/// A change `/mcp` makes: turning a server on or off, or its exposure.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ServerPatch {
    /// Enable or disable.
    pub enabled: Option<bool>,
    /// The new exposure.
    pub exposure: Option<Exposure>,
}

impl ServerConfig {
    /// The configuration with `patch` applied.
    pub fn patched(&self, patch: ServerPatch) -> ServerConfig {
        let mut patched = self.clone();
        if let Some(enabled) = patch.enabled {
            patched
                .raw
                .insert("enabled".to_owned(), Value::Bool(enabled));
        }
        if let Some(exposure) = patch.exposure {
            patched
                .raw
                .insert("exposure".to_owned(), exposure.as_str().into());
        }
        patched
    }
}

/// One configured server.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerEntry {
    /// Its name (`[A-Za-z0-9_-]+`).
    pub name: String,
    /// Its settings.
    pub config: ServerConfig,
    /// The file that defines it.
    pub source: PathBuf,
    /// Which file that is.
    pub scope: Scope,
    /// The project file that overrides some of its fields, if one does.
    pub override_source: Option<PathBuf>,
}

/// Everything the files configure.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct McpConfig {
    /// The servers, global first, in file order.
    pub servers: Vec<ServerEntry>,
    /// `<file>: <problem>` for every file or entry that could not be used.
    pub errors: Vec<String>,
    /// `autoEnableCodemode` (default true; a project value wins).
    pub auto_enable_codemode: Option<bool>,
    /// The project file, when the project is trusted.
    pub project_file: Option<PathBuf>,
    /// `RHO_HOME/mcp.json`.
    pub global_file: PathBuf,
}

impl McpConfig {
    /// Loads `<rho_home>/mcp.json`, then `<cwd>/.rho/mcp.json` when the project is trusted.
    /// Blocking (reads files).
    pub fn load(rho_home: &Path, cwd: &Path, project_trusted: bool) -> McpConfig {
        let mut config = McpConfig {
            global_file: rho_home.join("mcp.json"),
            ..McpConfig::default()
        };
        config.read_file(&config.global_file.clone(), Scope::Global);
        if project_trusted {
            let project = cwd.join(".rho").join("mcp.json");
            config.read_file(&project, Scope::Project);
            config.project_file = Some(project);
        }
        config
    }

    /// The enabled servers.
    pub fn enabled(&self) -> impl Iterator<Item = &ServerEntry> {
        self.servers.iter().filter(|s| s.config.enabled())
    }

    /// A server the ACP client names (`entry` in `mcp.json`'s shape, its values taken as
    /// written); it replaces a configured server of the same name, as a project's would.
    pub fn add_client_server(&mut self, name: &str, entry: Value) -> Result<(), String> {
        self.add_entry(Path::new("(the ACP client)"), Scope::Client, name, entry)
    }

    fn read_file(&mut self, path: &Path, scope: Scope) {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return,
            Err(error) => {
                self.errors.push(format!("{}: {error}", path.display()));
                return;
            }
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let parsed: Value = match serde_json::from_str(text) {
            Ok(parsed) => parsed,
            Err(error) => {
                self.errors.push(format!("{}: {error}", path.display()));
                return;
            }
        };
        let servers = match (&parsed, parsed.get("mcpServers")) {
            (Value::Object(_), None) => Map::new(),
            (Value::Object(_), Some(Value::Object(servers))) => servers.clone(),
            _ => {
                self.errors.push(format!(
                    "{}: expected an object with an \"mcpServers\" object",
                    path.display()
                ));
                return;
            }
        };
        match parsed.get("autoEnableCodemode") {
            None => {}
            Some(Value::Bool(on)) => self.auto_enable_codemode = Some(*on),
            Some(_) => self.errors.push(format!(
                "{}: autoEnableCodemode must be a boolean",
                path.display()
            )),
        }
        for (name, value) in servers {
            if let Err(error) = self.add_entry(path, scope, &name, value) {
                self.errors.push(format!("{}: {error}", path.display()));
            }
        }
    }

    fn add_entry(
        &mut self,
        path: &Path,
        scope: Scope,
        name: &str,
        value: Value,
    ) -> Result<(), String> {
        let existing = self.servers.iter().position(|s| s.name == name);
        if scope == Scope::Project
            && let Value::Object(entry) = &value
            && is_override(entry)
        {
            let Some(index) = existing else {
                return Err(format!(
                    "server \"{name}\" needs \"command\" or \"url\", or a global server to override"
                ));
            };
            if entry
                .keys()
                .any(|key| !OVERRIDE_KEYS.contains(&key.as_str()))
            {
                return Err(format!(
                    "server \"{name}\": an override can only set {}",
                    OVERRIDE_KEYS.join(", ")
                ));
            }
            let mut merged = self.servers[index].config.raw.clone();
            merged.extend(entry.clone());
            let config = validate(name, Value::Object(merged))?;
            let base = &mut self.servers[index];
            base.config = config;
            base.override_source = Some(path.to_path_buf());
            return Ok(());
        }
        let config = validate(name, value)?;
        let clash = self
            .servers
            .iter()
            .find(|other| other.name != name && namespace(&other.name) == namespace(name));
        if let Some(other) = clash {
            return Err(format!(
                "server \"{name}\" conflicts with \"{}\"",
                other.name
            ));
        }
        if scope != Scope::Global && config.auth_provider().is_some() {
            return Err(format!(
                "server \"{name}\": auth is only allowed in the global mcp.json"
            ));
        }
        let entry = ServerEntry {
            name: name.to_owned(),
            config,
            source: path.to_path_buf(),
            scope,
            override_source: None,
        };
        match existing {
            Some(index) => self.servers[index] = entry,
            None => self.servers.push(entry),
        }
        Ok(())
    }
}

/// An entry that names no server of its own: no `command`, `url` or `type`.
pub(crate) fn is_override(entry: &Map<String, Value>) -> bool {
    ["command", "url", "type"]
        .iter()
        .all(|key| !entry.contains_key(*key))
}

/// Checks one entry with Pi's rules and wording; exposure aliases are resolved.
pub fn validate(name: &str, raw: Value) -> Result<ServerConfig, String> {
    let valid_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid_name {
        return Err(format!(
            "invalid server name \"{name}\" (use letters, digits, \"_\" and \"-\")"
        ));
    }
    let Value::Object(mut raw) = raw else {
        return Err(format!("server \"{name}\" must be an object"));
    };
    resolve_exposure_aliases(&mut raw);
    let problem = |text: &str| format!("server \"{name}\": {text}");
    check_base(&raw).map_err(|e| problem(&e))?;
    let kind_of = |key: &str| raw.get(key).and_then(Value::as_str);
    let type_ = raw.get("type");
    if type_.and_then(Value::as_str) == Some("sse") {
        return Err(problem(
            "legacy SSE transport is not supported; use the streamable HTTP URL",
        ));
    }
    let type_str = type_.and_then(Value::as_str);
    let type_ok =
        |allowed: &[&str]| type_.is_none() || type_str.is_some_and(|t| allowed.contains(&t));
    let kind = if let Some(url) = kind_of("url").filter(|_| type_ok(&["http", "streamable-http"])) {
        check_http(&raw, url).map_err(|e| problem(&e))?;
        TransportKind::Http
    } else if kind_of("command").is_some() && type_ok(&["stdio"]) {
        check_stdio(&raw).map_err(|e| problem(&e))?;
        TransportKind::Stdio
    } else {
        return Err(format!(
            "server \"{name}\" needs either \"command\" (stdio) or \"url\" (streamable HTTP)"
        ));
    };
    check_exposures(&raw).map_err(|e| problem(&e))?;
    if kind == TransportKind::Http {
        check_auth(&raw).map_err(|e| problem(&e))?;
    }
    Ok(ServerConfig { raw, kind })
}

/// `codemode-deferred` is the old name of `codemode`.
fn resolve_exposure_aliases(raw: &mut Map<String, Value>) {
    let resolve = |value: &mut Value| {
        if value.as_str() == Some("codemode-deferred") {
            *value = Value::String("codemode".to_owned());
        }
    };
    if let Some(exposure) = raw.get_mut("exposure") {
        resolve(exposure);
    }
    if let Some(Value::Object(tools)) = raw.get_mut("toolExposure") {
        tools.values_mut().for_each(resolve);
    }
}

fn check_base(raw: &Map<String, Value>) -> Result<(), String> {
    if raw.get("enabled").is_some_and(|v| !v.is_boolean()) {
        return Err("enabled must be a boolean".to_owned());
    }
    if raw.get("description").is_some_and(|v| !v.is_string()) {
        return Err("description must be a string".to_owned());
    }
    if raw
        .get("timeout")
        .is_some_and(|v| !v.as_f64().is_some_and(|t| t > 0.0))
    {
        return Err("timeout must be a positive number of seconds".to_owned());
    }
    Ok(())
}

fn is_string_map(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|map| map.values().all(Value::is_string))
}

fn check_http(raw: &Map<String, Value>, url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).ok();
    if !parsed.is_some_and(|u| matches!(u.scheme(), "http" | "https")) {
        return Err("url must be an http or https URL".to_owned());
    }
    if raw.get("headers").is_some_and(|v| !is_string_map(v)) {
        return Err("headers must map names to strings".to_owned());
    }
    match raw.get("oauth") {
        None => Ok(()),
        Some(oauth) => check_oauth(oauth),
    }
}

fn check_stdio(raw: &Map<String, Value>) -> Result<(), String> {
    let args_ok = raw.get("args").is_none_or(|v| {
        v.as_array()
            .is_some_and(|items| items.iter().all(Value::is_string))
    });
    if !args_ok {
        return Err("args must be an array of strings".to_owned());
    }
    if raw.get("env").is_some_and(|v| !is_string_map(v)) {
        return Err("env must map names to strings".to_owned());
    }
    if raw.get("cwd").is_some_and(|v| !v.is_string()) {
        return Err("cwd must be a string".to_owned());
    }
    Ok(())
}

/// Whether `url` is http(s) and, when plain http, names a loopback host.
fn is_https_or_loopback(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| {
        u.scheme() == "https"
            || (u.scheme() == "http" && u.host_str().is_some_and(|h| LOOPBACK_HOSTS.contains(&h)))
    })
}

fn check_oauth(value: &Value) -> Result<(), String> {
    let Some(oauth) = value.as_object() else {
        return Err("oauth must be an object".to_owned());
    };
    let not_string = |key: &str| oauth.get(key).is_some_and(|v| !v.is_string());
    if not_string("clientId") {
        return Err("oauth.clientId must be a string".to_owned());
    }
    if not_string("clientSecret") {
        return Err("oauth.clientSecret must be a string".to_owned());
    }
    let port = oauth.get("callbackPort");
    if port.is_some_and(|p| !p.as_u64().is_some_and(|p| (1..=65535).contains(&p))) {
        return Err("oauth.callbackPort must be a port number".to_owned());
    }
    if let Some(callback) = oauth.get("callbackUrl") {
        let parsed = callback.as_str().and_then(|u| url::Url::parse(u).ok());
        let loopback = parsed.as_ref().is_some_and(|u| {
            u.scheme() == "http"
                && u.host_str().is_some_and(|h| LOOPBACK_HOSTS.contains(&h))
                && u.query().is_none()
                && u.fragment().is_none()
        });
        if !loopback {
            return Err("oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment".to_owned());
        }
        let url_port = parsed.and_then(|u| u.port());
        if let (Some(url_port), Some(port)) = (url_port, port.and_then(Value::as_u64))
            && u64::from(url_port) != port
        {
            return Err("oauth.callbackUrl and oauth.callbackPort name different ports".to_owned());
        }
    }
    if not_string("scope") {
        return Err("oauth.scope must be a string".to_owned());
    }
    if oauth
        .get("clientName")
        .is_some_and(|v| v.as_str().is_none_or(|s| s.trim().is_empty()))
    {
        return Err("oauth.clientName must be a non-empty string".to_owned());
    }
    match oauth.get("clientRegistration").map(|v| v.as_str()) {
        None | Some(Some("auto" | "dcr")) => {}
        Some(Some("cimd")) => {
            if oauth.contains_key("clientId") || oauth.contains_key("clientName") {
                return Err("oauth.clientRegistration \"cimd\" cannot be combined with oauth.clientId or oauth.clientName".to_owned());
            }
            // Pi signs in with its own documents on pi.dev; rho publishes none, so the user
            // names theirs.
            if !oauth.contains_key("clientMetadataUrl") {
                return Err("oauth.clientRegistration \"cimd\" needs oauth.clientMetadataUrl: rho has no Client ID Metadata Document of its own".to_owned());
            }
        }
        Some(_) => {
            return Err(
                "oauth.clientRegistration must be \"auto\", \"dcr\", or \"cimd\"".to_owned(),
            );
        }
    }
    if let Some(document) = oauth.get("clientMetadataUrl") {
        let parsed = document.as_str().and_then(|u| url::Url::parse(u).ok());
        if !parsed.is_some_and(|u| u.scheme() == "https" && u.path() != "/" && !u.path().is_empty())
        {
            return Err("oauth.clientMetadataUrl must be an https URL with a path".to_owned());
        }
    }
    if let Some(metadata) = oauth.get("authServerMetadataUrl")
        && !metadata.as_str().is_some_and(is_https_or_loopback)
    {
        return Err("oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]".to_owned());
    }
    Ok(())
}

fn check_exposures(raw: &Map<String, Value>) -> Result<(), String> {
    let valid = Exposure::NAMES
        .iter()
        .map(|name| format!("\"{name}\""))
        .collect::<Vec<_>>()
        .join(", ");
    if raw
        .get("exposure")
        .is_some_and(|v| v.as_str().is_none_or(|s| Exposure::parse(s).is_none()))
    {
        return Err(format!("exposure must be one of {valid}"));
    }
    if let Some(tools) = raw.get("toolExposure") {
        let Some(tools) = tools.as_object() else {
            return Err("toolExposure must map tool names to exposures".to_owned());
        };
        for (tool, value) in tools {
            if value.as_str().is_none_or(|s| Exposure::parse(s).is_none()) {
                return Err(format!("toolExposure \"{tool}\" must be one of {valid}"));
            }
        }
    }
    Ok(())
}

fn check_auth(raw: &Map<String, Value>) -> Result<(), String> {
    let Some(auth) = raw.get("auth") else {
        return Ok(());
    };
    let provider = auth.get("provider").and_then(Value::as_str);
    if !auth.is_object() || provider.is_none_or(str::is_empty) {
        return Err("auth.provider must be a provider name".to_owned());
    }
    let url = raw.get("url").and_then(Value::as_str).unwrap_or_default();
    if !is_https_or_loopback(url) {
        return Err(
            "auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]".to_owned(),
        );
    }
    Ok(())
}
