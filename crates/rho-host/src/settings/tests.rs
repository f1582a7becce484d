#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::retry::RetryPolicy;

fn paths(dir: &Path, global: Option<&str>, project: Option<&str>) -> SettingsPaths {
    let home = dir.join("home");
    let cwd = dir.join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(cwd.join(PROJECT_DIR)).unwrap();
    if let Some(text) = global {
        std::fs::write(home.join(SETTINGS_FILE), text).unwrap();
    }
    if let Some(text) = project {
        std::fs::write(cwd.join(PROJECT_DIR).join(SETTINGS_FILE), text).unwrap();
    }
    SettingsPaths::new(Some(&home), &cwd)
}

#[test]
fn no_files_means_pi_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let settings = load_settings(&paths(dir.path(), None, None)).unwrap();
    assert_eq!(settings, Settings::default());
    assert_eq!(settings.retry_policy(), RetryPolicy::default());
}

#[test]
fn the_project_file_overrides_the_global_one_key_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let global = r#"{"defaultModel": "g", "defaultThinkingLevel": "high",
        "retry": {"maxRetries": 5, "baseDelayMs": 10}, "budget": {"maxTurns": 4},
        "theme": "dark", "permission": "read-only"}"#;
    let project = r#"{"defaultModel": "p", "retry": {"baseDelayMs": 1},
        "steeringMode": "all", "allowDirs": ["/tmp"], "streamIdleTimeoutMs": 500}"#;
    let settings = load_settings(&paths(dir.path(), Some(global), Some(project))).unwrap();
    assert_eq!(settings.default_model.as_deref(), Some("p"));
    assert_eq!(
        settings.default_thinking_level,
        Some(rho_ai::ThinkingLevel::High)
    );
    assert_eq!(
        settings.retry_policy(),
        RetryPolicy {
            enabled: true,
            max_retries: 5,
            base_delay_ms: 1,
            max_delay_ms: 60_000,
        }
    );
    assert_eq!(settings.budget().max_turns, Some(4));
    assert_eq!(settings.steering_mode, Some(rho_agent::QueueMode::All));
    assert_eq!(settings.permission, Some(Permission::ReadOnly));
    // A project never widens permissions: its allowDirs are ignored.
    assert_eq!(settings.allow_dirs, None);
    assert_eq!(
        settings.stream_idle_timeout(),
        Some(std::time::Duration::from_millis(500))
    );
}

#[test]
fn a_project_may_only_narrow_permission_and_never_decides_trust() {
    let dir = tempfile::tempdir().unwrap();
    let global = r#"{"permission": "workspace-write", "allowDirs": ["/data"]}"#;
    let wider = r#"{"permission": "full", "allowDirs": ["/"], "defaultProjectTrust": "always"}"#;
    let settings = load_settings(&paths(dir.path(), Some(global), Some(wider))).unwrap();
    assert_eq!(settings.permission, Some(Permission::WorkspaceWrite));
    assert_eq!(settings.allow_dirs, Some(vec!["/data".to_owned()]));
    assert_eq!(settings.default_project_trust, None);
    let fresh = tempfile::tempdir().unwrap();
    let unset = load_settings(&paths(fresh.path(), None, Some(wider))).unwrap();
    assert_eq!(unset.permission, None);
    let narrower = r#"{"permission": "read-only"}"#;
    let settings = load_settings(&paths(dir.path(), Some(global), Some(narrower))).unwrap();
    assert_eq!(settings.permission, Some(Permission::ReadOnly));
    let untrusted = paths(dir.path(), Some(global), Some(narrower)).with_project_trust(false);
    assert_eq!(
        load_settings(&untrusted).unwrap().permission,
        Some(Permission::WorkspaceWrite)
    );
}

#[test]
fn the_tool_environment_comes_from_the_global_file_only() {
    let dir = tempfile::tempdir().unwrap();
    let global = r#"{"toolEnvironment": {"inherit": "core", "exclude": ["AWS_*"],
        "set": {"GH_TOKEN": "${GH_TOKEN}"}}}"#;
    let project = r#"{"toolEnvironment": {"inherit": "all", "exclude": []}}"#;
    let settings = load_settings(&paths(dir.path(), Some(global), Some(project))).unwrap();
    let expected = rho_gate::ToolEnvironmentSettings {
        inherit: Some(rho_gate::Inherit::Core),
        exclude: Some(vec!["AWS_*".to_owned()]),
        set: Some([("GH_TOKEN".to_owned(), "${GH_TOKEN}".to_owned())].into()),
    };
    assert_eq!(settings.tool_environment, Some(expected));
    let fresh = tempfile::tempdir().unwrap();
    let only_project = load_settings(&paths(fresh.path(), None, Some(project))).unwrap();
    assert_eq!(only_project.tool_environment, None);
    let bad = r#"{"toolEnvironment": {"inherit": "some"}}"#;
    let error = load_settings(&paths(fresh.path(), Some(bad), None)).unwrap_err();
    assert!(error.to_string().contains("toolEnvironment"), "{error}");
}

#[test]
fn a_file_that_is_not_json_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let paths = paths(dir.path(), Some("{\"defaultModel\": "), None);
    let error = load_settings(&paths).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "settings file {} is not valid JSON: EOF while parsing a value at line 1 column 17",
            paths.global.unwrap().display()
        )
    );
}

#[test]
fn a_value_of_the_wrong_type_is_an_error_naming_the_file_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let paths = paths(
        dir.path(),
        None,
        Some(r#"{"retry": {"maxRetries": "many"}}"#),
    );
    let error = load_settings(&paths).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "settings file {}: retry.maxRetries: invalid type: string \"many\", expected u32",
            paths.project.display()
        )
    );
}

#[test]
fn unknown_permission_and_negative_cost_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let paths1 = paths(dir.path(), Some(r#"{"permission": "root"}"#), None);
    let error = load_settings(&paths1).unwrap_err().to_string();
    assert!(error.ends_with(
        "permission: unknown variant `root`, expected one of `read-only`, `workspace-write`, `full`"
    ), "{error}");
    let paths2 = paths(dir.path(), Some(r#"{"budget": {"maxCost": -1}}"#), None);
    let error = load_settings(&paths2).unwrap_err().to_string();
    assert!(
        error.ends_with("budget.maxCost: must be a non-negative number of US dollars, got -1"),
        "{error}"
    );
}

#[test]
fn a_top_level_array_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let paths = paths(dir.path(), Some("[]"), None);
    let error = load_settings(&paths).unwrap_err().to_string();
    assert!(
        error.ends_with("is not valid JSON: the top level must be an object"),
        "{error}"
    );
}

#[test]
fn pi_16_keys_are_read_and_unsupported_ones_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let global = r#"{"$schema": "https://pi.dev/schemas/settings.schema.json",
        "httpIdleTimeoutMs": "disabled", "cacheWarming": "idle", "theme": "dark",
        "modelThinkingLevels": {"openai/gpt-5": "max"}, "defaultTools": ["+grep"]}"#;
    let project = r#"{"packages": [], "cacheWarming": "streaming", "httpIdleTimeoutMs": "2500"}"#;
    let settings = load_settings(&paths(dir.path(), Some(global), Some(project))).unwrap();
    assert_eq!(settings.unsupported_pi_keys, ["cacheWarming", "packages"]);
    assert_eq!(
        settings.stream_idle_timeout(),
        Some(std::time::Duration::from_millis(2500))
    );
    assert_eq!(
        settings.model_thinking_level("openai", "gpt-5"),
        Some(rho_ai::ThinkingLevel::Max)
    );
    assert_eq!(settings.model_thinking_level("openai", "gpt-4"), None);
    assert_eq!(settings.default_tools, Some(vec!["+grep".to_owned()]));
    let untrusted = paths(dir.path(), Some(global), Some(project)).with_project_trust(false);
    let settings = load_settings(&untrusted).unwrap();
    assert_eq!(settings.unsupported_pi_keys, ["cacheWarming"]);
    assert_eq!(
        settings.stream_idle_timeout(),
        Some(std::time::Duration::from_secs(365 * 24 * 60 * 60))
    );
    let bad = load_settings(&paths(
        dir.path(),
        Some(r#"{"httpIdleTimeoutMs": -1}"#),
        None,
    ));
    assert!(matches!(bad, Err(SettingsError::Value { .. })), "{bad:?}");
}

#[test]
fn the_providers_retry_delay_cap_is_60_s_by_default_a_set_value_or_none_at_zero() {
    let dir = tempfile::tempdir().unwrap();
    let cap = |text: Option<&str>| {
        load_settings(&paths(dir.path(), text, None))
            .unwrap()
            .max_retry_delay()
    };
    assert_eq!(cap(None), Some(std::time::Duration::from_secs(60)));
    let set = r#"{"retry": {"provider": {"maxRetryDelayMs": 1500}}}"#;
    assert_eq!(cap(Some(set)), Some(std::time::Duration::from_millis(1500)));
    let none = r#"{"retry": {"provider": {"maxRetryDelayMs": 0}}}"#;
    assert_eq!(cap(Some(none)), None);
}
