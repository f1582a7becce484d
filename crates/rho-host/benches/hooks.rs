//! What a command hook costs a tool call: whole scripted runs of 10 `read` calls through the
//! library API (faux model, the real `read` tool, the real gate), with the gate alone, with
//! hooks configured but none for `PreToolUse`, and with one no-op `PreToolUse` hook (`true`,
//! a process per call); and, as the floor of that hook, ten bare `sh -c true` processes
//! started, fed and waited for. Divide by 10 for one call.
//!
//! `cargo bench -p rho-host --bench hooks`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use rho_agent::{AgentOptions, ToolHooks};
use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_tool_call};
use rho_gate::{GatePolicy, PermissionMode};
use rho_host::AgentSession;
use rho_host::compaction::CompactionPolicy;
use rho_host::gate::Gate;
use rho_host::hooks::tool_hooks::HookedGate;
use rho_host::hooks::{HookSetup, Hooks, HooksConfig, StartSource};
use rho_host::toolset::create_tools;
use serde_json::json;

const TURNS: usize = 10;

/// How the calls are checked.
#[derive(Clone, Copy)]
enum Check {
    GateOnly,
    HooksButNoneForTheCall,
    NoOpPreToolUse,
}

fn session(cwd: &Path, check: Check) -> AgentSession {
    let provider = FauxProvider::new()
        .with_chunk_chars(1024)
        .with_usage(false)
        .with_recording(false);
    for i in 0..TURNS {
        provider.push(faux_message(vec![faux_tool_call(
            format!("call_{i}"),
            "read",
            json!({"path": "f.ts"}),
        )]));
    }
    provider.push(faux_message(vec![faux_text("Done.")]));
    let mut options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    options.tools = create_tools(cwd, &["read"], None);
    let gate = Arc::new(Gate::new(Arc::new(GatePolicy::new(
        PermissionMode::default(),
        cwd.to_path_buf(),
    ))));
    let hooks = match check {
        Check::GateOnly => None,
        Check::HooksButNoneForTheCall => {
            Some(json!({"SessionEnd": [{"hooks": [{"type": "command", "command": "true"}]}]}))
        }
        Check::NoOpPreToolUse => {
            Some(json!({"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}))
        }
    };
    let mut builder_hooks = None;
    options.tool_hooks = Some(match hooks {
        None => gate as Arc<dyn ToolHooks>,
        Some(value) => {
            let (config, warnings) = HooksConfig::parse(&value);
            assert!(warnings.is_empty(), "{warnings:?}");
            let hooks = Arc::new(Hooks::new(HookSetup {
                config: Arc::new(config),
                cwd: cwd.to_path_buf(),
                env: vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())],
                permission_mode: "workspace-write".into(),
                session_id: "bench".into(),
                transcript_path: None,
                source: StartSource::Startup,
            }));
            builder_hooks = Some(hooks.clone());
            Arc::new(HookedGate::new(gate, hooks, None))
        }
    });
    let mut builder = AgentSession::builder(options).compaction(CompactionPolicy {
        enabled: false,
        ..CompactionPolicy::default()
    });
    if let (Check::HooksButNoneForTheCall, Some(hooks)) | (Check::NoOpPreToolUse, Some(hooks)) =
        (check, builder_hooks)
    {
        builder = builder.hooks(hooks);
    }
    builder.build()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.ts"), "export const x = 1;\n").unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("ten_read_calls");
    group.sample_size(30);
    for (name, check) in [
        ("gate_only", Check::GateOnly),
        ("hooks_but_none_for_the_call", Check::HooksButNoneForTheCall),
        ("one_noop_pre_tool_use_hook", Check::NoOpPreToolUse),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || session(dir.path(), check),
                |session| {
                    runtime.block_on(async {
                        let settled = session.prompt("read").await.unwrap();
                        assert_eq!(settled.turns as usize, TURNS + 1);
                    })
                },
                BatchSize::PerIteration,
            );
        });
    }
    // The floor of a hook: its process alone, `sh -c true` started, fed and waited for.
    group.bench_function("ten_bare_hook_processes", |b| {
        let env = vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())];
        let cancel = tokio_util::sync::CancellationToken::new();
        b.iter(|| {
            runtime.block_on(async {
                for _ in 0..TURNS {
                    let ran = rho_host::hooks::process::run(
                        "true",
                        b"{}",
                        dir.path(),
                        &env,
                        std::time::Duration::from_secs(10),
                        &cancel,
                    )
                    .await;
                    assert_eq!(ran.exit, rho_host::hooks::process::Exit::Code(0));
                }
            })
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
