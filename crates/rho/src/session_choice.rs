//! Which session file a run continues or starts (pi-reference §8.1, §8.3): `--no-session`,
//! `--fork`, `--session`, `--resume`, `--continue`, `--session-dir`, in Pi's order of precedence.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use rho_session::{
    EntryKind, SessionContext, SessionDir, SessionFile, SessionInfo, list_sessions,
    most_recent_session,
};

use rho_ai::ThinkingLevel;
use rho_models::{AuthStore, ModelRegistry};

use crate::cli::Cli;

/// Where a run's transcript goes.
pub enum SessionTarget {
    /// `--no-session` (or no `RHO_HOME` to keep sessions in): nothing is written.
    Ephemeral,
    /// A new session, created in `dir` once the run is ready to start (a failure before the
    /// model leaves no empty file behind).
    New {
        /// The session directory.
        dir: PathBuf,
        /// `--session-id`: the new session's id (a fresh UUID without it).
        id: Option<String>,
    },
    /// `--session <path>` naming a file that does not exist yet: a new session there.
    NewAt(PathBuf),
    /// An existing session, opened and locked (or a fork, already written).
    Open(Box<Opened>),
    /// `--resume` without a terminal: the list was printed; nothing runs.
    Listed,
}

/// An opened session and what it restores.
pub struct Opened {
    /// The file, locked for this process.
    pub file: SessionFile,
    /// The context at its leaf.
    pub context: SessionContext,
    /// Whether the branch holds a `thinking_level_change` (Pi falls back to the settings'
    /// level without one).
    pub has_thinking_entry: bool,
    /// The working directory the run continues in: the header's for `--session`, as in Pi.
    pub cwd: PathBuf,
}

/// Resolves the session flags for a run started in `cwd`; `home` is `RHO_HOME`.
pub fn choose_session(cli: &Cli, cwd: &Path, home: Option<&Path>) -> anyhow::Result<SessionTarget> {
    if cli.fork.is_some() {
        let conflicts: Vec<&str> = [
            (cli.session.is_some(), "--session"),
            (cli.continue_session, "--continue"),
            (cli.resume, "--resume"),
            (cli.no_session, "--no-session"),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect();
        if !conflicts.is_empty() {
            bail!("--fork cannot be combined with {}", conflicts.join(", "));
        }
    }
    if cli.no_session {
        return Ok(SessionTarget::Ephemeral);
    }
    let cwd_text = cwd.to_string_lossy().into_owned();
    let sessions = home.map(SessionDir::new);
    let local = match (&cli.session_dir, &sessions) {
        (Some(dir), _) => Some(cwd.join(dir)),
        (None, Some(sessions)) => Some(sessions.for_cwd(&cwd_text)),
        (None, None) => None,
    };
    if let Some(arg) = &cli.fork {
        let source = find_session(arg, cwd, local.as_deref(), sessions.as_ref())?;
        let dir =
            local.context("--fork needs RHO_HOME or --session-dir to store the new session")?;
        let (file, warnings) = SessionFile::fork_file(&source, &dir, &cwd_text)?;
        report(&source, &warnings);
        return Ok(SessionTarget::Open(Box::new(opened(
            file,
            cwd.to_path_buf(),
        ))));
    }
    if let Some(id) = &cli.session_id {
        let dir =
            local.context("--session-id needs RHO_HOME or --session-dir to keep the session")?;
        // Pi 1.6: the project's session with this id, or a new session with it.
        if let Some(found) = list_sessions(&dir).into_iter().find(|s| s.id == *id) {
            return open_existing(&found.path, cwd).map(|o| SessionTarget::Open(Box::new(o)));
        }
        crate::warnings::warn(format_args!(
            "No project session found with id '{id}'; creating a new session with that id."
        ));
        return Ok(SessionTarget::New {
            dir,
            id: Some(id.clone()),
        });
    }
    if let Some(arg) = &cli.session {
        let path = find_session(arg, cwd, local.as_deref(), sessions.as_ref())?;
        if !path.exists() {
            return Ok(SessionTarget::NewAt(path));
        }
        return open_existing(&path, cwd).map(|o| SessionTarget::Open(Box::new(o)));
    }
    let Some(local) = local else {
        // Without a home there is nowhere to keep sessions; the run is ephemeral, as before.
        if cli.resume || cli.continue_session {
            bail!("no session directory: set RHO_HOME or pass --session-dir");
        }
        return Ok(SessionTarget::Ephemeral);
    };
    if cli.resume && opens_picker(cli) {
        // The interactive mode starts on a new session with the picker open over it.
        return Ok(SessionTarget::New {
            dir: local,
            id: None,
        });
    }
    if cli.resume {
        print!("{}", format_session_list(&list_sessions(&local), &local));
        return Ok(SessionTarget::Listed);
    }
    if cli.continue_session
        && let Some(path) = most_recent_session(&local)
    {
        let file = open_reporting(&path)?;
        return Ok(SessionTarget::Open(Box::new(opened(
            file,
            cwd.to_path_buf(),
        ))));
    }
    Ok(SessionTarget::New {
        dir: local,
        id: None,
    })
}

/// Whether `--resume` opens the picker: the run is interactive (no `-p`, no `--mode` other
/// than text, stdin and stdout terminals); otherwise the list is printed.
fn opens_picker(cli: &Cli) -> bool {
    use std::io::IsTerminal;
    !cli.print
        && matches!(cli.mode, None | Some(crate::cli::Mode::Text))
        && std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
}

/// `--session`/`--fork`'s argument: a path when it looks like one (it has a slash or ends in
/// `.jsonl`), else an id prefix looked up in this cwd's sessions, then in every cwd's.
fn find_session(
    arg: &str,
    cwd: &Path,
    local: Option<&Path>,
    sessions: Option<&SessionDir>,
) -> anyhow::Result<PathBuf> {
    if arg.contains('/') || arg.contains('\\') || arg.ends_with(".jsonl") {
        return Ok(cwd.join(arg));
    }
    let found: Option<SessionInfo> = match (sessions, local) {
        (Some(sessions), Some(local)) => sessions.find_by_id_prefix(local, arg),
        (None, Some(local)) => list_sessions(local)
            .into_iter()
            .find(|s| s.id.starts_with(arg)),
        (_, None) => None,
    };
    match found {
        Some(info) if !arg.is_empty() => Ok(info.path),
        _ => bail!("No session found matching '{arg}'"),
    }
}

/// `--session` on an existing file: the run continues in the header's cwd, which must exist.
pub(crate) fn open_existing(path: &Path, fallback_cwd: &Path) -> anyhow::Result<Opened> {
    let file = open_reporting(path)?;
    let stored = file.header().cwd.clone();
    let cwd = if stored.is_empty() {
        fallback_cwd.to_path_buf()
    } else {
        PathBuf::from(&stored)
    };
    if !cwd.is_dir() {
        bail!(
            "Stored session working directory does not exist: {stored} (session file: {}; current working directory: {})",
            path.display(),
            fallback_cwd.display()
        );
    }
    Ok(opened(file, cwd))
}

fn open_reporting(path: &Path) -> anyhow::Result<SessionFile> {
    let (file, warnings) = SessionFile::open(path)?;
    report(path, &warnings);
    Ok(file)
}

/// What an open repaired or skipped, once, on stderr.
fn report(path: &Path, warnings: &[rho_session::OpenWarning]) {
    for warning in warnings {
        crate::warnings::warn(format_args!("{}: {warning}", path.display()));
    }
}

/// An open file and what it restores, continued in `cwd`.
pub(crate) fn opened(file: SessionFile, cwd: PathBuf) -> Opened {
    let context = file.context();
    let has_thinking_entry = file
        .branch_entries(None)
        .iter()
        .any(|e| matches!(e.kind, EntryKind::ThinkingLevelChange { .. }));
    Opened {
        file,
        context,
        has_thinking_entry,
        cwd,
    }
}

/// `--resume` without a picker: one line per session, newest first — id, last activity (UTC),
/// message count and the first message (one line, at most 80 characters).
pub fn format_session_list(sessions: &[SessionInfo], dir: &Path) -> String {
    if sessions.is_empty() {
        return format!("No sessions found in {}\n", dir.display());
    }
    let mut out = format!(
        "{:<36}  {:<24}  {:>8}  FIRST MESSAGE\n",
        "ID", "DATE", "MESSAGES"
    );
    for session in sessions {
        let first: String = session
            .first_message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let first = match first.char_indices().nth(80) {
            Some((cut, _)) => format!("{}…", &first[..cut]),
            None => first,
        };
        out.push_str(&format!(
            "{:<36}  {:<24}  {:>8}  {first}\n",
            session.id,
            rho_session::time::iso_timestamp(session.modified),
            session.message_count,
        ));
    }
    out
}

/// Pi's restore (pi-reference §7.3): without `--model` or `--provider`, a resumed session's
/// model answers again if it still exists and has a key; the flags are set to it so the usual
/// model choice resolves it. Returns Pi's "Could not restore model …" when it cannot.
pub fn restore_model(
    cli: &mut Cli,
    opened: &Opened,
    registry: &ModelRegistry,
    auth: &AuthStore,
) -> Option<String> {
    let wants_own_model = cli.model.as_deref().is_some_and(|m| !m.is_empty())
        || cli.provider.is_some()
        // Pi refuses `--api-key` without a model even when a session would supply one.
        || (cli.api_key.is_some() && cli.models.is_none());
    if wants_own_model || opened.context.messages.is_empty() {
        return None;
    }
    let saved = opened.context.model.as_ref()?;
    match registry.find(&saved.provider, &saved.model_id) {
        Some(entry) if registry.has_configured_auth(entry, auth) => {
            cli.provider = Some(saved.provider.clone());
            cli.model = Some(saved.model_id.clone());
            None
        }
        _ => Some(format!(
            "Could not restore model {}/{}",
            saved.provider, saved.model_id
        )),
    }
}

/// The thinking level a resumed session keeps: its latest `thinking_level_change`, unless
/// `--thinking` or a `:level` suffix on `--model` says otherwise (checked on the flags as
/// given, before [`restore_model`]). The caller clamps it to the model.
pub fn restored_thinking(cli: &Cli, opened: &Opened) -> Option<ThinkingLevel> {
    let flag = cli.thinking.as_deref().and_then(ThinkingLevel::parse);
    let suffix = cli
        .model
        .as_deref()
        .and_then(|m| m.rsplit_once(':'))
        .and_then(|(_, level)| ThinkingLevel::parse(level));
    if flag.is_some()
        || suffix.is_some()
        || opened.context.messages.is_empty()
        || !opened.has_thinking_entry
    {
        return None;
    }
    ThinkingLevel::parse(&opened.context.thinking_level)
}
