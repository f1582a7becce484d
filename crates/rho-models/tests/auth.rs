#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Keys: `--api-key` > `auth.json` > environment variable > `models.json` `apiKey`; `!command`
//! values; keys never printable; which models are available.

use std::path::Path;
use std::sync::Arc;

use rho_models::{
    ApiKey, AuthStore, KeyError, MapEnvironment, ModelRegistry, RequestAuth, rho_home,
};

/// A temporary `RHO_HOME` holding the given `auth.json` (none when `None`).
fn home_with_auth(auth_json: Option<&str>) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    if let Some(text) = auth_json {
        std::fs::write(home.path().join("auth.json"), text).unwrap();
    }
    home
}

fn store(home: &Path, env: MapEnvironment) -> AuthStore {
    let (store, problem) = AuthStore::load(home, Arc::new(env));
    assert!(problem.is_none(), "{problem:?}");
    store
}

fn registry(models_json: &str) -> ModelRegistry {
    let (registry, problems) =
        ModelRegistry::from_models_json(models_json, Path::new("models.json"));
    assert!(problems.is_empty(), "{problems:?}");
    registry
}

fn key(registry: &ModelRegistry, provider: &str, auth: &AuthStore) -> Option<String> {
    registry
        .api_key(provider, auth)
        .unwrap()
        .map(|key| key.expose().to_owned())
}

const OPENAI_WITH_API_KEY: &str = r#"{"providers": {"openai": {"apiKey": "from-models-json", "baseUrl": "https://api.openai.com/v1"}}}"#;

#[test]
fn runtime_key_beats_auth_json_beats_environment_beats_models_json() {
    let home = home_with_auth(Some(
        r#"{"openai": {"type": "api_key", "key": "from-auth-json"}}"#,
    ));
    let empty_home = home_with_auth(None);
    let env = || MapEnvironment::new().with_var("OPENAI_API_KEY", "from-env");
    let registry = registry(OPENAI_WITH_API_KEY);

    let mut all_sources = store(home.path(), env());
    all_sources.set_runtime_api_key("openai", ApiKey::new("from-flag"));
    assert_eq!(
        key(&registry, "openai", &all_sources),
        Some("from-flag".into())
    );

    let no_flag = store(home.path(), env());
    assert_eq!(
        key(&registry, "openai", &no_flag),
        Some("from-auth-json".into())
    );

    let no_auth_json = store(empty_home.path(), env());
    assert_eq!(
        key(&registry, "openai", &no_auth_json),
        Some("from-env".into())
    );

    let only_models_json = store(empty_home.path(), MapEnvironment::new());
    assert_eq!(
        key(&registry, "openai", &only_models_json),
        Some("from-models-json".into())
    );

    let nothing = store(empty_home.path(), MapEnvironment::new());
    assert_eq!(key(&ModelRegistry::builtin(), "openai", &nothing), None);
}

#[test]
fn runtime_key_applies_only_to_its_provider() {
    let home = home_with_auth(None);
    let mut auth = store(home.path(), MapEnvironment::new());
    auth.set_runtime_api_key("anthropic", ApiKey::new("k"));
    assert_eq!(auth.api_key("openai").unwrap(), None);
    assert_eq!(auth.api_key("anthropic").unwrap(), Some(ApiKey::new("k")));
}

#[test]
fn anthropic_oauth_token_variable_outranks_the_api_key_variable_and_empty_variables_are_unset() {
    let home = home_with_auth(None);
    let both = MapEnvironment::new()
        .with_var("ANTHROPIC_OAUTH_TOKEN", "oauth")
        .with_var("ANTHROPIC_API_KEY", "key");
    assert_eq!(
        store(home.path(), both).api_key("anthropic").unwrap(),
        Some(ApiKey::new("oauth"))
    );
    let empty_oauth = MapEnvironment::new()
        .with_var("ANTHROPIC_OAUTH_TOKEN", "")
        .with_var("ANTHROPIC_API_KEY", "key");
    assert_eq!(
        store(home.path(), empty_oauth)
            .api_key("anthropic")
            .unwrap(),
        Some(ApiKey::new("key"))
    );
}

#[test]
fn auth_json_key_may_interpolate_variables_or_run_a_command() {
    let home = home_with_auth(Some(
        r#"{"openai": {"type": "api_key", "key": "$MY_OPENAI"},
            "anthropic": {"type": "api_key", "key": "!printf '  sk-%s\\n' from-command"},
            "google": {"type": "api_key", "key": "MY_OPENAI"},
            "groq": {"type": "api_key", "key": "gsk-${PART}", "env": {"PART": "from-entry"}},
            "mistral": {"type": "api_key", "key": "$UNSET_NAME"}}"#,
    ));
    let auth = store(
        home.path(),
        MapEnvironment::new()
            .with_var("MY_OPENAI", "from-variable")
            .with_var("PART", "from-environment"),
    );
    assert_eq!(
        auth.api_key("openai").unwrap(),
        Some(ApiKey::new("from-variable"))
    );
    assert_eq!(
        auth.api_key("anthropic").unwrap(),
        Some(ApiKey::new("sk-from-command"))
    );
    // Pi 1.6: a plain string is the key itself, even when a variable of that name is set.
    assert_eq!(
        auth.api_key("google").unwrap(),
        Some(ApiKey::new("MY_OPENAI"))
    );
    // The entry's own `env` comes before the environment.
    assert_eq!(
        auth.api_key("groq").unwrap(),
        Some(ApiKey::new("gsk-from-entry"))
    );
    // A key naming an unset variable is not configured, and asking for it says which.
    assert!(!auth.has_auth("mistral"));
    assert_eq!(
        auth.api_key("mistral").unwrap_err(),
        KeyError::VariablesUnset {
            description: "API key for provider \"mistral\"".into(),
            names: vec!["UNSET_NAME".into()],
        }
    );
}

#[test]
fn a_failing_command_is_an_auth_error_naming_the_command() {
    let home = home_with_auth(Some(r#"{"openai": {"type": "api_key", "key": "!exit 3"}}"#));
    let auth = store(
        home.path(),
        MapEnvironment::new().with_var("OPENAI_API_KEY", "env"),
    );
    let error = auth.api_key("openai").unwrap_err();
    assert_eq!(
        error,
        KeyError::CommandFailed {
            description: "API key for provider \"openai\"".into(),
            command: "exit 3".into(),
        }
    );
    assert_eq!(
        error.to_string(),
        "Failed to resolve API key for provider \"openai\" from shell command: exit 3"
    );
    assert_eq!(error.kind(), rho_ai::ErrorKind::Auth);
}

#[test]
fn models_json_api_key_command_runs_when_the_key_is_asked_for() {
    let marker = tempfile::tempdir().unwrap();
    let counter = marker.path().join("runs");
    let text = format!(
        r#"{{"providers": {{"local": {{"baseUrl": "http://10.0.0.1/v1", "api": "openai-completions",
            "apiKey": "!echo run >> '{}'; echo local-key", "models": [{{"id": "m"}}]}}}}}}"#,
        counter.display()
    );
    let registry = registry(&text);
    let home = home_with_auth(None);
    let auth = store(home.path(), MapEnvironment::new());
    let model = registry.find("local", "m").unwrap();
    // Availability does not run the command.
    assert!(registry.is_available(model, &auth));
    assert!(!counter.exists());
    assert_eq!(key(&registry, "local", &auth), Some("local-key".into()));
    assert_eq!(key(&registry, "local", &auth), Some("local-key".into()));
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "run\nrun\n");
}

#[test]
fn unexpired_oauth_access_token_is_used_and_an_expired_one_falls_through() {
    let auth_json = r#"{"anthropic": {"type": "oauth", "access": "access-token", "refresh": "r", "expires": 1000}}"#;
    let home = home_with_auth(Some(auth_json));
    let env = |now| {
        MapEnvironment::new()
            .with_var("ANTHROPIC_API_KEY", "env-key")
            .at_time(now)
    };
    assert_eq!(
        store(home.path(), env(999)).api_key("anthropic").unwrap(),
        Some(ApiKey::new("access-token"))
    );
    assert_eq!(
        store(home.path(), env(1000)).api_key("anthropic").unwrap(),
        Some(ApiKey::new("env-key"))
    );
    let expired_only = store(home.path(), MapEnvironment::new().at_time(5000));
    assert!(!expired_only.has_auth("anthropic"));
}

#[test]
fn keys_print_as_stars_in_debug_and_display() {
    let secret = ApiKey::new("sk-live-123");
    assert_eq!(format!("{secret:?}"), "***");
    assert_eq!(format!("{secret}"), "***");
    assert_eq!(format!("{:?}", Some(secret)), "Some(***)");

    let home = home_with_auth(Some(
        r#"{"openai": {"type": "api_key", "key": "sk-stored"}}"#,
    ));
    let mut auth = store(home.path(), MapEnvironment::new());
    auth.set_runtime_api_key("anthropic", ApiKey::new("sk-runtime"));
    let debug = format!("{auth:?}");
    assert_eq!(
        debug,
        r#"AuthStore { stored_providers: ["openai"], runtime_providers: ["anthropic"], .. }"#
    );
}

#[test]
fn request_auth_merges_headers_resolves_values_and_adds_the_bearer_header() {
    let registry = registry(
        r#"{"providers": {"local": {
            "baseUrl": "http://10.0.0.1/v1", "api": "openai-completions", "apiKey": "$LOCAL_KEY",
            "authHeader": true,
            "headers": {"X-Team": "team-${TEAM_VAR}", "X-Shared": "provider"},
            "models": [{"id": "m", "headers": {"X-Shared": "model", "X-Cmd": "!echo from-cmd"}}]}}}"#,
    );
    let home = home_with_auth(None);
    let auth = store(
        home.path(),
        MapEnvironment::new()
            .with_var("LOCAL_KEY", "sk-local")
            .with_var("TEAM_VAR", "blue"),
    );
    let model = registry.find("local", "m").unwrap();
    let request = registry.request_auth(model, &auth).unwrap();
    let expected = RequestAuth {
        api_key: Some(ApiKey::new("sk-local")),
        headers: vec![
            ("X-Team".into(), "team-blue".into()),
            ("X-Shared".into(), "model".into()),
            ("X-Cmd".into(), "from-cmd".into()),
            ("Authorization".into(), "Bearer sk-local".into()),
        ],
    };
    assert_eq!(request, expected);
    assert_eq!(
        format!("{request:?}"),
        r#"RequestAuth { api_key: Some(***), headers: [("X-Team", "***"), ("X-Shared", "***"), ("X-Cmd", "***"), ("Authorization", "***")] }"#
    );
}

#[test]
fn builtin_model_headers_come_first_in_a_request() {
    let registry = ModelRegistry::builtin();
    let home = home_with_auth(None);
    let auth = store(
        home.path(),
        MapEnvironment::new().with_var("KIMI_API_KEY", "k"),
    );
    let model = registry.find("kimi-coding", "kimi-for-coding").unwrap();
    let expected = RequestAuth {
        api_key: Some(ApiKey::new("k")),
        headers: vec![("User-Agent".into(), "KimiCLI/1.5".into())],
    };
    assert_eq!(registry.request_auth(model, &auth).unwrap(), expected);
}

#[test]
fn auth_header_without_any_key_is_an_error() {
    let registry = registry(
        r#"{"providers": {"openai": {"authHeader": true, "baseUrl": "https://api.openai.com/v1"}}}"#,
    );
    let home = home_with_auth(None);
    let auth = store(home.path(), MapEnvironment::new());
    let model = registry.find("openai", "gpt-5.4").unwrap();
    let error = registry.request_auth(model, &auth).unwrap_err();
    assert_eq!(error.to_string(), "No API key found for \"openai\"");
}

#[test]
fn a_model_is_available_iff_its_provider_has_a_key_or_it_is_served_locally() {
    let home = home_with_auth(None);
    let no_keys = store(home.path(), MapEnvironment::new());
    let builtin = ModelRegistry::builtin();
    assert_eq!(
        builtin.available(&no_keys),
        Vec::<&rho_models::ModelEntry>::new()
    );

    let with_openai = store(
        home.path(),
        MapEnvironment::new().with_var("OPENAI_API_KEY", "k"),
    );
    let providers: Vec<&str> = builtin
        .available(&with_openai)
        .iter()
        .map(|entry| entry.model.provider.as_str())
        .collect();
    assert!(!providers.is_empty());
    assert!(providers.iter().all(|provider| *provider == "openai"));

    for (base_url, local) in [
        ("http://localhost:11434/v1", true),
        ("http://LOCALHOST./v1", true),
        ("http://api.localhost:8080", true),
        ("http://127.0.0.1:8080/v1", true),
        ("http://127.1.2.3/v1", true),
        ("http://[::1]:8080/v1", true),
        ("http://user@localhost/v1", true),
        ("https://localhost.example.com/v1", false),
        ("http://10.0.0.1/v1", false),
        ("http://0.0.0.0:8080/v1", false),
    ] {
        let text = format!(r#"{{"providers": {{"openai": {{"baseUrl": "{base_url}"}}}}}}"#);
        let registry = registry(&text);
        let model = registry.find("openai", "gpt-5.4").unwrap();
        assert_eq!(registry.is_available(model, &no_keys), local, "{base_url}");
    }
}

#[test]
fn a_broken_auth_json_means_no_stored_keys_and_a_problem() {
    let home = home_with_auth(Some("{not json"));
    let env = MapEnvironment::new().with_var("OPENAI_API_KEY", "env");
    let (auth, problem) = AuthStore::load(home.path(), Arc::new(env));
    let path = home.path().join("auth.json");
    assert_eq!(
        problem.unwrap().to_string(),
        format!(
            "Failed to parse auth.json: key must be a string at line 1 column 2\n\nFile: {}",
            path.display()
        )
    );
    assert_eq!(auth.api_key("openai").unwrap(), Some(ApiKey::new("env")));

    let array_home = home_with_auth(Some("[]"));
    let (_, problem) = AuthStore::load(array_home.path(), Arc::new(MapEnvironment::new()));
    assert_eq!(
        problem.unwrap().to_string(),
        format!(
            "Failed to parse auth.json: expected a JSON object\n\nFile: {}",
            array_home.path().join("auth.json").display()
        )
    );
}

#[test]
fn rho_home_is_the_variable_with_tilde_expanded_or_dot_rho_in_home() {
    let env = MapEnvironment::new().with_var("HOME", "/home/u");
    assert_eq!(rho_home(&env), Some("/home/u/.rho".into()));
    let custom = env.clone().with_var("RHO_HOME", "~/conf/rho");
    assert_eq!(rho_home(&custom), Some("/home/u/conf/rho".into()));
    let absolute = env.with_var("RHO_HOME", "/etc/rho");
    assert_eq!(rho_home(&absolute), Some("/etc/rho".into()));
    assert_eq!(rho_home(&MapEnvironment::new()), None);
}

#[test]
fn pis_agent_dir_variable_is_rho_home_when_rho_home_is_unset() {
    let env = MapEnvironment::new()
        .with_var("HOME", "/home/u")
        .with_var("PI_CODING_AGENT_DIR", "~/.pi/agent");
    assert_eq!(rho_home(&env), Some("/home/u/.pi/agent".into()));
    let both = env.clone().with_var("RHO_HOME", "/etc/rho");
    assert_eq!(rho_home(&both), Some("/etc/rho".into()));
    let empty = env.with_var("PI_CODING_AGENT_DIR", "");
    assert_eq!(rho_home(&empty), Some("/home/u/.rho".into()));
}

#[test]
fn a_models_json_key_naming_an_unset_variable_makes_its_models_unavailable() {
    let registry = registry(
        r#"{"$schema": "https://pi.dev/schemas/models.schema.json",
            "providers": {"acme": {"baseUrl": "https://acme.example/v1", "api": "openai-completions",
            "apiKey": "${ACME_KEY}", "models": [{"id": "m"}]}}}"#,
    );
    let home = home_with_auth(None);
    let model = registry.find("acme", "m").unwrap();
    let without = store(home.path(), MapEnvironment::new());
    assert!(!registry.is_available(model, &without));
    let with = store(
        home.path(),
        MapEnvironment::new().with_var("ACME_KEY", "sk-acme"),
    );
    assert!(registry.is_available(model, &with));
    assert_eq!(key(&registry, "acme", &with), Some("sk-acme".into()));
}
