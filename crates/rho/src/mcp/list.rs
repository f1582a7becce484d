//! `rho mcp list [--json]`: connects to every enabled server (a fresh connection each), then
//! prints each one's state, transport, tools and errors as Pi 1.6 does, and exits 1 when a file
//! has an error or an enabled server is not connected.

use std::sync::Arc;

use rho_host::mcp::{McpHost, McpToolFilter};
use rho_host::settings::{SettingsPaths, load_global_settings};
use rho_mcp::exposure::tool_exposure;
use rho_mcp::{Defaults, McpConfig, Phase, Server, TransportKind};
use serde_json::{Map, Value, json};

use super::command::Places;

/// One server's line of the report.
struct Report {
    name: String,
    scope: &'static str,
    source: String,
    override_source: Option<String>,
    enabled: bool,
    exposure: &'static str,
    transport: String,
    auth_provider: Option<String>,
    state: &'static str,
    tools: Vec<String>,
    /// Tools whose exposure differs from the server's, with theirs.
    tool_exposure: Vec<(String, &'static str)>,
    resources: bool,
    error: Option<String>,
}

pub(super) fn list(places: &Places, json: bool) -> Result<u8, String> {
    let config = McpConfig::load(&places.home, &places.cwd, places.trusted);
    let environment = tool_environment(places)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let errors = config.errors.clone();
    let reports = runtime.block_on(async {
        let (context, signals) =
            super::context(&places.home, &places.cwd, environment, Arc::new(Defaults));
        let host = McpHost::start(config, context, signals, McpToolFilter::default());
        host.settled().await;
        let reports: Vec<Report> = host.servers().iter().map(report).collect();
        host.shutdown().await;
        reports
    });
    runtime.shutdown_background();
    let failed = !errors.is_empty() || reports.iter().any(|r| r.enabled && r.state != "connected");
    let note = places.untrusted_note();
    if json {
        let document = json!({
            "servers": reports.iter().map(to_json).collect::<Vec<_>>(),
            "errors": errors,
        });
        let mut document = match document {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if let Some(note) = note {
            document.insert("note".into(), note.into());
        }
        let text = serde_json::to_string_pretty(&document).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        print_text(places, &reports, &errors, note.as_deref());
    }
    Ok(u8::from(failed))
}

/// The environment servers start with: the global settings' `toolEnvironment`, without keys.
pub(super) fn tool_environment(places: &Places) -> Result<Arc<rho_gate::ToolEnvironment>, String> {
    let settings = load_global_settings(&SettingsPaths::new(Some(&places.home), &places.cwd))
        .map_err(|e| e.to_string())?;
    rho_gate::ToolEnvironment::new(
        &settings.tool_environment.clone().unwrap_or_default(),
        &rho_models::providers::every_api_key_env_var(),
    )
    .map(Arc::new)
    .map_err(|e| e.to_string())
}

fn report(server: &Arc<Server>) -> Report {
    let entry = server.entry();
    let config = &entry.config;
    let exposure = config.exposure();
    let transport = match config.kind() {
        TransportKind::Http => config.url().unwrap_or_default().to_owned(),
        TransportKind::Stdio => std::iter::once(config.command().unwrap_or_default().to_owned())
            .chain(config.args())
            .collect::<Vec<_>>()
            .join(" "),
    };
    let snapshot = server.snapshot();
    let enabled = config.enabled();
    let tools: Vec<String> = if enabled {
        snapshot.tools.iter().map(|t| t.name.to_string()).collect()
    } else {
        Vec::new()
    };
    let tool_exposure = tools
        .iter()
        .map(|tool| (tool.clone(), tool_exposure(config, tool)))
        .filter(|(_, own)| *own != exposure)
        .map(|(tool, own)| (tool, own.as_str()))
        .collect();
    Report {
        name: entry.name.clone(),
        scope: entry.scope.as_str(),
        source: entry.source.display().to_string(),
        override_source: entry
            .override_source
            .as_ref()
            .map(|p| p.display().to_string()),
        enabled,
        exposure: exposure.as_str(),
        transport,
        auth_provider: config.auth_provider().map(str::to_owned),
        state: if enabled {
            snapshot.phase.as_str()
        } else {
            Phase::Disabled.as_str()
        },
        tools,
        tool_exposure,
        resources: enabled && snapshot.has_resources,
        error: snapshot
            .error
            .filter(|_| snapshot.phase != Phase::Connected),
    }
}

/// Pi's JSON report of one server (its key order).
fn to_json(report: &Report) -> Value {
    let mut map = Map::new();
    map.insert("name".into(), report.name.clone().into());
    map.insert("scope".into(), report.scope.into());
    map.insert("source".into(), report.source.clone().into());
    if let Some(path) = &report.override_source {
        map.insert("override".into(), path.clone().into());
    }
    map.insert("enabled".into(), report.enabled.into());
    map.insert("exposure".into(), report.exposure.into());
    map.insert("transport".into(), report.transport.clone().into());
    if let Some(provider) = &report.auth_provider {
        map.insert("authProvider".into(), provider.clone().into());
    }
    map.insert("state".into(), report.state.into());
    map.insert("tools".into(), report.tools.clone().into());
    if !report.tool_exposure.is_empty() {
        let exposures: Map<String, Value> = report
            .tool_exposure
            .iter()
            .map(|(tool, exposure)| (tool.clone(), Value::from(*exposure)))
            .collect();
        map.insert("toolExposure".into(), Value::Object(exposures));
    }
    if report.resources {
        map.insert("resources".into(), true.into());
    }
    if let Some(error) = &report.error {
        map.insert("error".into(), error.clone().into());
    }
    Value::Object(map)
}

fn print_text(places: &Places, reports: &[Report], errors: &[String], note: Option<&str>) {
    if reports.is_empty() && errors.is_empty() {
        println!(
            "No MCP servers configured. Add them to {} or .rho/mcp.json.",
            places.global.display()
        );
    }
    for report in reports {
        let count = report.tools.len();
        let state = match report.state {
            "connected" => format!(
                "connected, {count} tool{}",
                if count == 1 { "" } else { "s" }
            ),
            "needs-auth" => "needs sign-in".to_owned(),
            other => other.to_owned(),
        };
        println!(
            "{}: {state} ({}, {})",
            report.name, report.exposure, report.scope
        );
        println!("  {}", report.transport);
        if let Some(path) = &report.override_source {
            println!("  project override: {path}");
        }
        if report.state == "needs-auth" {
            match &report.auth_provider {
                Some(provider) => println!("  sign in with: rho auth login {provider}"),
                None => println!("  sign in with: rho mcp login {}", report.name),
            }
        }
        if !report.tools.is_empty() {
            let tools: Vec<String> = report
                .tools
                .iter()
                .map(
                    |tool| match report.tool_exposure.iter().find(|(name, _)| name == tool) {
                        Some((_, exposure)) => format!("{tool} [{exposure}]"),
                        None => tool.clone(),
                    },
                )
                .collect();
            println!("  tools: {}", tools.join(", "));
        }
        if report.resources {
            println!("  offers resources");
        }
        if let Some(error) = &report.error {
            println!("  {}", error.lines().collect::<Vec<_>>().join("\n  "));
        }
    }
    for error in errors {
        println!("config error: {error}");
    }
    if let Some(note) = note {
        println!("{note}");
    }
}
