//! Session export to one self-contained, readable HTML page (Pi's `--export <in> [out]` and the
//! RPC command `export_html`, pi-reference §7.2 and §7.6).
//!
//! The page shows the session's current branch as the model last saw it (the rebuilt
//! context: compacted history appears as its summary), with tool results beside their calls.
//! It needs nothing outside the file: the stylesheet is inline, images are `data:` URLs, long
//! output folds with `<details>`, and there is no script at all.

mod html;
mod messages;
mod text;
mod tools;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use rho_session::SessionFile;

pub use html::{ExportHeader, render_html};

/// The file name an export gets when no output path is given: `rho-session-<input name without
/// .jsonl>.html` (Pi writes `pi-session-…`).
pub fn default_output_name(input: &Path) -> String {
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(".jsonl")
        .filter(|s| !s.is_empty())
        .unwrap_or(&name);
    format!("rho-session-{stem}.html")
}

/// `--export <input> [output]`: opens the session file `input`, renders it and writes the page
/// to `output`, or to [`default_output_name`] in `cwd`. Relative paths are taken from `cwd`.
/// Returns the path written (absolute when `cwd` is).
///
/// Opening goes through [`SessionFile::open`], so the file is repaired or migrated as any open
/// does, and a session another rho process holds open is refused rather than read half-written.
pub fn export_session_file(
    input: &Path,
    output: Option<&Path>,
    cwd: &Path,
) -> anyhow::Result<PathBuf> {
    let input_path = cwd.join(input);
    if !input_path.exists() {
        anyhow::bail!("File not found: {}", input.display());
    }
    let (session, _repairs) = SessionFile::open(&input_path)?;
    export_open_session(&session, output, cwd)
}

/// RPC `export_html`: exports a session this process already has open (opening it a second
/// time would trip its own lock). `output` and the default name work as in
/// [`export_session_file`], the default named after the session's file.
pub fn export_open_session(
    session: &SessionFile,
    output: Option<&Path>,
    cwd: &Path,
) -> anyhow::Result<PathBuf> {
    let html = render_html(
        &ExportHeader::from(session.header()),
        session.session_name().as_deref(),
        &session.context().messages,
    );
    let path = match output {
        Some(output) => cwd.join(output),
        None => cwd.join(default_output_name(
            session.path().unwrap_or(Path::new("session.jsonl")),
        )),
    };
    std::fs::write(&path, html).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
