//! `mcp.json` as Pi 1.6 reads it: the global file, a trusted project's file and its overrides,
//! and every invalid entry reported once with Pi's wording while the others load.

use std::path::Path;

use rho_mcp::{Exposure, McpConfig, Scope, TransportKind};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn invalid_entries_are_reported_with_pis_words_and_the_others_load() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let file = home.join("mcp.json");
    write(
        &file,
        r#"{"mcpServers": {
            "good": {"command": "python3", "args": ["s.py"], "env": {"K": "${TOKEN}"}, "exposure": "direct"},
            "web": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
            "bad name": {"command": "x"},
            "notobj": 5,
            "sse": {"type": "sse", "url": "https://example.com/sse"},
            "badurl": {"url": "ftp://x"},
            "badargs": {"command": "x", "args": "a b"},
            "badenv": {"command": "x", "env": {"A": 1}},
            "badtimeout": {"command": "x", "timeout": 0},
            "neither": {"description": "nothing"},
            "badexposure": {"command": "x", "exposure": "loud"},
            "badtool": {"command": "x", "toolExposure": {"t": "nope"}},
            "my-srv": {"command": "x"},
            "my_srv": {"command": "y"},
            "alias": {"command": "x", "exposure": "codemode-deferred"}
        }}"#,
    );
    let config = McpConfig::load(&home, dir.path(), false);
    let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["good", "web", "my-srv", "alias"]);
    let at = |text: &str| format!("{}: {text}", file.display());
    assert_eq!(
        config.errors,
        [
            at("invalid server name \"bad name\" (use letters, digits, \"_\" and \"-\")"),
            at("server \"notobj\" must be an object"),
            at(
                "server \"sse\": legacy SSE transport is not supported; use the streamable HTTP URL"
            ),
            at("server \"badurl\": url must be an http or https URL"),
            at("server \"badargs\": args must be an array of strings"),
            at("server \"badenv\": env must map names to strings"),
            at("server \"badtimeout\": timeout must be a positive number of seconds"),
            at("server \"neither\" needs either \"command\" (stdio) or \"url\" (streamable HTTP)"),
            at(
                "server \"badexposure\": exposure must be one of \"codemode\", \"deferred\", \"direct\", \"hidden\""
            ),
            at(
                "server \"badtool\": toolExposure \"t\" must be one of \"codemode\", \"deferred\", \"direct\", \"hidden\""
            ),
            at("server \"my_srv\" conflicts with \"my-srv\""),
        ]
    );
    let good = &config.servers[0];
    assert_eq!(good.config.kind(), TransportKind::Stdio);
    assert_eq!(good.config.exposure(), Exposure::Direct);
    assert_eq!(good.config.env(), [("K".to_owned(), "${TOKEN}".to_owned())]);
    assert_eq!(good.scope, Scope::Global);
    assert_eq!(config.servers[1].config.kind(), TransportKind::Http);
    assert!(!config.servers[1].config.uses_oauth());
    assert_eq!(config.servers[3].config.exposure(), Exposure::Codemode);
}

#[test]
fn a_trusted_project_replaces_or_overrides_and_an_untrusted_one_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("project");
    write(
        &home.join("mcp.json"),
        r#"{"mcpServers": {"internal": {"url": "https://corp/mcp", "headers": {"Authorization": "Bearer ${T}"}}, "fs": {"command": "a"}}, "autoEnableCodemode": false}"#,
    );
    let project = cwd.join(".rho/mcp.json");
    write(
        &project,
        r#"{"mcpServers": {
            "internal": {"enabled": false, "exposure": "direct"},
            "fs": {"command": "b"},
            "orphan": {"enabled": false},
            "sneaky": {"url": "https://evil/mcp", "auth": {"provider": "anthropic"}}
        }, "autoEnableCodemode": true}"#,
    );
    // An override may only set enabled, exposure and toolExposure.
    let untrusted = McpConfig::load(&home, &cwd, false);
    assert_eq!(untrusted.servers.len(), 2);
    assert_eq!(untrusted.auto_enable_codemode, Some(false));
    assert!(untrusted.servers[0].config.enabled());

    let trusted = McpConfig::load(&home, &cwd, true);
    let internal = &trusted.servers[0];
    assert!(!internal.config.enabled());
    assert_eq!(internal.config.exposure(), Exposure::Direct);
    assert_eq!(internal.config.headers()[0].1, "Bearer ${T}");
    assert_eq!(internal.scope, Scope::Global);
    assert_eq!(internal.override_source.as_deref(), Some(project.as_path()));
    assert_eq!(trusted.servers[1].config.command(), Some("b"));
    assert_eq!(trusted.servers[1].scope, Scope::Project);
    assert_eq!(trusted.auto_enable_codemode, Some(true));
    assert_eq!(
        trusted.errors,
        [
            format!(
                "{}: server \"orphan\" needs \"command\" or \"url\", or a global server to override",
                project.display()
            ),
            format!(
                "{}: server \"sneaky\": auth is only allowed in the global mcp.json",
                project.display()
            ),
        ]
    );

    write(&project, r#"{"mcpServers": {"internal": {"url2": "x"}}}"#);
    let extra = McpConfig::load(&home, &cwd, true);
    assert_eq!(
        extra.errors,
        [format!(
            "{}: server \"internal\": an override can only set enabled, exposure, toolExposure",
            project.display()
        )]
    );
}

#[test]
fn a_broken_file_is_one_error_and_loads_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.json");
    write(&file, "{ not json");
    let config = McpConfig::load(dir.path(), dir.path(), false);
    assert!(config.servers.is_empty());
    assert_eq!(config.errors.len(), 1);
    assert!(config.errors[0].starts_with(&format!("{}: ", file.display())));
    write(&file, r#"{"mcpServers": []}"#);
    let config = McpConfig::load(dir.path(), dir.path(), false);
    assert_eq!(
        config.errors,
        [format!(
            "{}: expected an object with an \"mcpServers\" object",
            file.display()
        )]
    );
}
