//! Tidy checks in the spirit of rust-analyzer's `tidy`: the code against ARCHITECTURE.md.
//!
//! - every crate's `[dependencies]` against the table of what it may depend on, and no crate on
//!   one below it in that table;
//! - no file-level `use` cycle inside `rho-agent`, `rho-host` and `rho-tui` (a file never imports
//!   back from a file that imports it);
//! - no `pub` field on the types that own the session's state, nor on the TUI's `App`.
//!
//! Each check is a pure function over text, tested on bad input too, so a check that could not
//! fail would show.

mod cycles;
mod deps;
mod fields;

use std::path::{Path, PathBuf};

/// The workspace root (this crate is `crates/rho`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|e| panic!("cannot find the workspace root: {e}"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_crate_depends_only_on_what_architecture_md_allows() {
    let root = root();
    let table = deps::parse_table(&read(&root.join("ARCHITECTURE.md")));
    assert!(table.rows.len() >= 10, "the table was not found: {table:?}");
    let mut crates = Vec::new();
    for entry in std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let manifest = entry.path().join("Cargo.toml");
        if manifest.is_file() {
            crates.push(deps::read_manifest(&read(&manifest)));
        }
    }
    let problems = deps::check(&table, &crates);
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md and the crates disagree:\n{}",
        problems.join("\n")
    );
}

#[test]
fn no_file_imports_back_from_a_file_that_imports_it() {
    let root = root();
    let mut problems = Vec::new();
    for krate in ["rho-agent", "rho-host", "rho-tui"] {
        let src = root.join("crates").join(krate).join("src");
        let files = cycles::rust_files(&src);
        let graph = cycles::import_graph(&src, &files);
        for cycle in cycles::find_cycles(&graph) {
            problems.push(format!("{krate}: {}", cycle.join(" -> ")));
        }
    }
    assert!(
        problems.is_empty(),
        "file-level import cycles:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_session_state_and_the_tui_app_have_no_public_fields() {
    let root = root();
    let owners: &[(&str, &[&str])] = &[
        (
            "crates/rho-host/src/session/mod.rs",
            &["AgentSession", "Inner", "SessionBuilder"],
        ),
        (
            "crates/rho-host/src/session/slot.rs",
            &["PromptSlot", "SlotGuard"],
        ),
        (
            "crates/rho-host/src/session/queues.rs",
            &["QueueMirror", "Texts"],
        ),
        ("crates/rho-host/src/session/events.rs", &["Listeners"]),
        ("crates/rho-host/src/retry.rs", &["Retry"]),
        ("crates/rho-host/src/compact.rs", &["AutoCompaction"]),
        ("crates/rho-host/src/record.rs", &["SessionRecord", "Inner"]),
        ("crates/rho-host/src/budget.rs", &["Meter"]),
        ("crates/rho-tui/src/app/mod.rs", &["App"]),
    ];
    let mut problems = Vec::new();
    for (file, types) in owners {
        let text = read(&root.join(file));
        for name in *types {
            match fields::public_fields(&text, name) {
                None => problems.push(format!("{file}: struct {name} not found")),
                Some(public) if !public.is_empty() => {
                    problems.push(format!("{file}: {name} has public fields {public:?}"));
                }
                Some(_) => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
