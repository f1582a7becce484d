//! `mcp.json` changed as Pi 1.6 changes it: the rest of the file kept, its indentation kept,
//! defaults dropped from full entries but kept in project overrides.

use std::os::unix::fs::PermissionsExt;

use rho_mcp::Exposure;
use rho_mcp::edit::{EditError, ServerPatch, add_server, remove_server, update_server};
use serde_json::{Map, Value, json};

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

#[test]
fn adding_creates_a_private_file_and_replacing_keeps_other_keys_and_the_tab_indentation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent/mcp.json");
    let replaced = add_server(
        &path,
        "fs",
        object(json!({"command": "npx", "args": ["-y", "x"]})),
    );
    assert!(!replaced.unwrap());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"mcpServers\": {\n    \"fs\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"x\"\n      ]\n    }\n  }\n}\n"
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );

    std::fs::write(
        &path,
        "\u{feff}{\n\t\"autoEnableCodemode\": false,\n\t\"mcpServers\": {\"fs\": {\"command\": \"old\"}, \"b\": {\"url\": \"https://b\"}},\n\t\"extra\": [1]\n}",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    assert!(add_server(&path, "fs", object(json!({"command": "new"}))).unwrap());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n\t\"autoEnableCodemode\": false,\n\t\"mcpServers\": {\n\t\t\"fs\": {\n\t\t\t\"command\": \"new\"\n\t\t},\n\t\t\"b\": {\n\t\t\t\"url\": \"https://b\"\n\t\t}\n\t},\n\t\"extra\": [\n\t\t1\n\t]\n}\n"
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[test]
fn removing_a_server_the_file_lacks_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    assert!(!remove_server(&path, "x").unwrap());
    assert!(!path.exists());
    let text = "{\"mcpServers\": {\"a\": {\"command\": \"a\"}, \"b\": {\"command\": \"b\"}}}";
    std::fs::write(&path, text).unwrap();
    assert!(!remove_server(&path, "x").unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert!(remove_server(&path, "a").unwrap());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"mcpServers\": {\n    \"b\": {\n      \"command\": \"b\"\n    }\n  }\n}\n"
    );
}

#[test]
fn updates_drop_defaults_from_full_entries_and_keep_them_in_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        r#"{"mcpServers": {"a": {"command": "a", "enabled": false, "exposure": "direct"}}}"#,
    )
    .unwrap();
    let enable = ServerPatch {
        enabled: Some(true),
        exposure: Some(Exposure::Codemode),
    };
    update_server(&path, "a", enable, false).unwrap();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written, json!({"mcpServers": {"a": {"command": "a"}}}));

    update_server(&path, "g", enable, true).unwrap();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        written["mcpServers"]["g"],
        json!({"enabled": true, "exposure": "codemode"})
    );

    let missing = update_server(&path, "nope", enable, false);
    assert!(matches!(missing, Err(EditError::NotDefined { .. })));
}

#[test]
fn a_file_that_is_not_an_mcp_config_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    for text in ["[1]", "{\"mcpServers\": 3}", "{oops"] {
        std::fs::write(&path, text).unwrap();
        let added = add_server(&path, "a", Map::new());
        assert!(
            matches!(
                added,
                Err(EditError::Shape { .. } | EditError::Parse { .. })
            ),
            "{text}: {added:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}
