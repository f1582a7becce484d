#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::{SaveError, save_settings};

fn save_setting(
    path: &std::path::Path,
    key: &[&str],
    value: serde_json::Value,
) -> Result<(), SaveError> {
    save_settings(path, &[(key, value)])
}

fn settings_file(text: Option<&str>) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    if let Some(text) = text {
        std::fs::write(&path, text).unwrap();
    }
    (dir, path)
}

#[test]
fn a_missing_file_is_created_with_the_one_setting_in_pis_layout() {
    let (_dir, path) = settings_file(None);
    save_setting(&path, &["theme"], json!("light")).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"theme\": \"light\"\n}"
    );
}

#[test]
fn every_other_key_is_kept_in_its_place_and_the_changed_one_is_replaced() {
    let (_dir, path) = settings_file(Some(
        r#"{"defaultModel": "m", "defaultThinkingLevel": "low", "retry": {"maxRetries": 5}}"#,
    ));
    save_setting(&path, &["defaultThinkingLevel"], json!("high")).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"defaultModel\": \"m\",\n  \"defaultThinkingLevel\": \"high\",\n  \"retry\": {\n    \"maxRetries\": 5\n  }\n}"
    );
}

#[test]
fn a_nested_setting_keeps_its_siblings_and_creates_its_parent() {
    let (_dir, path) = settings_file(Some(
        r#"{"compaction": {"reserveTokens": 8192, "enabled": true}}"#,
    ));
    save_setting(&path, &["compaction", "enabled"], json!(false)).unwrap();
    let (_other, fresh) = settings_file(Some(r#"{"theme": "dark", "compaction": 3}"#));
    save_setting(&fresh, &["compaction", "enabled"], json!(true)).unwrap();
    let read = |p: &std::path::Path| {
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    assert_eq!(
        (read(&path), read(&fresh)),
        (
            json!({"compaction": {"reserveTokens": 8192, "enabled": false}}),
            json!({"theme": "dark", "compaction": {"enabled": true}})
        )
    );
}

#[test]
fn a_broken_file_is_left_untouched_and_the_error_names_it() {
    for text in ["{\"theme\": \"dark\",", "[1, 2]"] {
        let (_dir, path) = settings_file(Some(text));
        let error = save_setting(&path, &["theme"], json!("light")).unwrap_err();
        assert!(
            matches!(
                error,
                SaveError::Parse { .. } | SaveError::NotAnObject { .. }
            ),
            "{error:?}"
        );
        assert!(error.to_string().contains("settings.json"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        let leftovers = std::fs::read_dir(path.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1);
    }
}

#[test]
fn a_symlinked_settings_file_stays_a_link_and_its_target_changes() {
    let (dir, target) = settings_file(Some(r#"{"theme": "dark"}"#));
    let link = dir.path().join("linked.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    save_setting(&link, &["theme"], json!("light")).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "{\n  \"theme\": \"light\"\n}"
    );
}
