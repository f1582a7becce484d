//! Command-line flags: Pi's (pi-reference §7.2) plus rho's budget and permission flags.
//! Pi's spellings clap cannot read directly are rewritten first (`argv.rs`).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};
use rho_host::settings::Permission;

use crate::argv;
use crate::cli_checks::{self, CliError};

/// Output mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Plain text: the final answer.
    Text,
    /// JSON Lines: the session header, then every event.
    Json,
    /// Pi's RPC protocol over stdin/stdout.
    Rpc,
    /// The Agent Client Protocol over stdin/stdout (`rho acp`).
    Acp,
}

const EXAMPLES: &str = "\
Examples:
  # Non-interactive mode (process and exit)
  rho -p \"List all .ts files in src/\"

  # Include files in the initial message
  rho -p @prompt.md @image.png \"What color is the sky?\"

  # Pipe a file in; it is joined to the first message
  cat error.log | rho -p \"Explain this error\"

  # Every event as JSON Lines
  rho --mode json \"Read package.json\"

  # Use a different model
  rho --provider openai --model gpt-4o-mini -p \"Help me refactor this code\"

  # Model with provider prefix and thinking level shorthand
  rho --model anthropic/sonnet:high -p \"Solve this complex problem\"

  # Read-only tools (no file modifications possible)
  rho --tools read,grep,find,ls -p \"Review the code in src/\"

  # Stop after 10 turns or 50 cents, whichever comes first (exit code 3)
  rho --max-turns 10 --max-cost 0.5 -p \"Fix the failing test\"

  # Store an API key in RHO_HOME/auth.json (read from stdin)
  echo \"$KEY\" | rho auth login anthropic

Commands:
  rho auth login <provider>   Store an API key read from stdin
  rho auth logout <provider>  Remove a stored key
  rho auth status             List the providers with a key and where it comes from
  rho verify <log>            Check a --mode json log

Settings: RHO_HOME/settings.json (RHO_HOME defaults to $PI_CODING_AGENT_DIR, else ~/.rho),
overridden by ./.rho/settings.json once the project is trusted (--approve, RHO_HOME/trust.json).
Exit codes: 0 completed, 1 model error, 2 failure before the first model call, 3 budget reached,
130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP.";

/// rho - AI coding agent with read, bash, edit, write tools.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "rho",
    version,
    about,
    override_usage = "rho [options] [@files...] [messages...]",
    after_help = EXAMPLES
)]
pub struct Cli {
    /// Output mode: text (default), json, or rpc.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Non-interactive mode: process the prompt and exit.
    #[arg(short = 'p', long = "print")]
    pub print: bool,
    /// A `-p` message that starts with `---` (see argv.rs); merged into `messages`.
    #[arg(long = "print-message", hide = true, value_name = "MESSAGE")]
    print_message: Vec<String>,
    /// Continue the previous session.
    #[arg(short = 'c', long = "continue")]
    pub continue_session: bool,
    /// Select a session to resume.
    #[arg(short = 'r', long)]
    pub resume: bool,
    /// Use a specific session file or partial UUID.
    #[arg(long, value_name = "PATH|ID")]
    pub session: Option<String>,
    /// Fork a specific session file or partial UUID into a new session.
    #[arg(long, value_name = "PATH|ID")]
    pub fork: Option<String>,
    /// Directory for session storage and lookup.
    #[arg(long = "session-dir", value_name = "DIR")]
    pub session_dir: Option<PathBuf>,
    /// Use the current directory's session with this id, creating it otherwise.
    #[arg(long = "session-id", value_name = "ID", allow_hyphen_values = true)]
    pub session_id: Option<String>,
    /// Set the session display name.
    #[arg(
        short = 'n',
        long = "name",
        value_name = "NAME",
        allow_hyphen_values = true
    )]
    pub name: Option<String>,
    /// Trust project-local files for this run.
    #[arg(short = 'a', long = "approve", overrides_with = "no_approve")]
    pub approve: bool,
    /// Ignore project-local files for this run (also -na).
    #[arg(long = "no-approve", overrides_with = "approve")]
    pub no_approve: bool,
    /// Don't save the session (ephemeral).
    #[arg(long = "no-session")]
    pub no_session: bool,
    /// Provider name (e.g. anthropic, openai, or one from models.json).
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Model pattern or id (supports "provider/id" and an optional ":<thinking>").
    #[arg(long, value_name = "PATTERN")]
    pub model: Option<String>,
    /// API key for the selected model's provider (defaults to env vars and auth.json).
    #[arg(long = "api-key", value_name = "KEY")]
    pub api_key: Option<String>,
    /// Thinking level: off, minimal, low, medium, high, xhigh, max.
    #[arg(long, value_name = "LEVEL")]
    pub thinking: Option<String>,
    /// Comma-separated model patterns for cycling; globs (anthropic/*, *sonnet*), fuzzy
    /// matching and ":<thinking>" suffixes. Without --model the first one is used.
    #[arg(long, value_name = "PATTERNS", value_delimiter = ',')]
    pub models: Option<Vec<String>>,
    /// Comma-separated allowlist of tool names or patterns (*) to enable (read, bash, edit,
    /// write, grep, find, ls; unknown names are ignored), or only +name/-name entries to change
    /// the default tools (read, bash, edit, write).
    #[arg(short = 't', long, value_delimiter = ',', value_name = "TOOLS")]
    pub tools: Option<Vec<String>>,
    /// Comma-separated denylist of tool names or patterns (*) to disable (also -xt).
    #[arg(long = "exclude-tools", value_delimiter = ',', value_name = "TOOLS")]
    pub exclude_tools: Option<Vec<String>>,
    /// Connect to no MCP server of mcp.json (no MCP tools, no /mcp command).
    #[arg(long = "no-mcp")]
    pub no_mcp: bool,
    /// Disable all tools (also -nt).
    #[arg(long = "no-tools")]
    pub no_tools: bool,
    /// Disable the built-in tools but keep custom ones (also -nbt).
    #[arg(long = "no-builtin-tools")]
    pub no_builtin_tools: bool,
    /// System prompt, or a file whose contents are the system prompt.
    #[arg(long = "system-prompt", value_name = "TEXT|FILE")]
    pub system_prompt: Option<String>,
    /// Append text or file contents to the system prompt (repeatable).
    #[arg(long = "append-system-prompt", value_name = "TEXT|FILE")]
    pub append_system_prompt: Vec<String>,
    /// Load an extension file (rho cannot load extensions yet: exits 2).
    #[arg(short = 'e', long = "extension", value_name = "PATH")]
    pub extensions: Vec<PathBuf>,
    /// Disable extension discovery (also -ne).
    #[arg(long = "no-extensions")]
    pub no_extensions: bool,
    /// Load a skill file or directory (repeatable).
    #[arg(long = "skill", value_name = "PATH")]
    pub skills: Vec<PathBuf>,
    /// Disable skills discovery and loading (also -ns).
    #[arg(long = "no-skills")]
    pub no_skills: bool,
    /// Load a prompt template file or directory (repeatable).
    #[arg(long = "prompt-template", value_name = "PATH")]
    pub prompt_templates: Vec<PathBuf>,
    /// Disable prompt template discovery and loading (also -np).
    #[arg(long = "no-prompt-templates")]
    pub no_prompt_templates: bool,
    /// Load a theme file or directory (rho has no themes: exits 2).
    #[arg(long = "theme", value_name = "PATH")]
    pub themes: Vec<PathBuf>,
    /// Disable theme discovery and loading.
    #[arg(long = "no-themes")]
    pub no_themes: bool,
    /// Theme for this run's interactive mode: dark, light or auto (not saved).
    #[arg(long = "use-theme", value_name = "NAME")]
    pub use_theme: Option<String>,
    /// Interactive rendering: fullscreen (rho's; `regular` exits 2).
    #[arg(long = "tui-mode", value_name = "MODE")]
    pub tui_mode: Option<String>,
    /// Disable AGENTS.md and CLAUDE.md discovery and loading (also -nc).
    #[arg(long = "no-context-files")]
    pub no_context_files: bool,
    /// Export a session file to HTML and exit.
    #[arg(long, value_name = "FILE", num_args = 1..=2)]
    pub export: Option<Vec<PathBuf>>,
    /// List the models that have a key configured (optionally matching SEARCH), then exit.
    #[arg(long = "list-models", value_name = "SEARCH", num_args = 0..=1)]
    pub list_models: Option<Option<String>>,
    /// Force verbose startup.
    #[arg(long)]
    pub verbose: bool,
    /// Disable startup network operations.
    #[arg(long)]
    pub offline: bool,
    /// What tools may touch: read-only, workspace-write or full.
    #[arg(long, value_name = "LEVEL", value_parser = parse_permission)]
    pub permission: Option<Permission>,
    /// A directory tools may also write to (repeatable).
    #[arg(long = "allow-dir", value_name = "DIR")]
    pub allow_dirs: Vec<PathBuf>,
    /// Tools may not use the network.
    #[arg(long = "no-network")]
    pub no_network: bool,
    /// Budget: end the run after this many turns per prompt (exit code 3).
    #[arg(long = "max-turns", value_name = "N")]
    pub max_turns: Option<u64>,
    /// Budget: end the run once a prompt has cost this many US dollars (exit code 3).
    #[arg(long = "max-cost", value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Budget: end the run once a prompt's model calls have used this many tokens (exit code 3).
    #[arg(long = "max-tokens", value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Answer with the scripted faux model from FILE (`{"turns": [[block, …], …]}`).
    #[arg(long, value_name = "FILE")]
    pub faux_script: Option<PathBuf>,
    /// `@file` arguments and messages, in command-line order; the first message is joined to
    /// piped stdin and the files, the rest run one after another.
    #[arg(value_name = "MESSAGE")]
    pub messages: Vec<String>,
}

fn parse_permission(text: &str) -> Result<Permission, String> {
    text.parse::<Permission>()
        .map_err(|_| format!("expected one of {}", Permission::NAMES.join(", ")))
}

impl Cli {
    /// Parses the arguments after the program name, Pi's spellings included.
    /// Pi's own checks (`cli_checks.rs`) come first, in Pi's words.
    pub fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Cli, CliError> {
        let args: Vec<OsString> = args.into_iter().collect();
        cli_checks::check_raw(&args).map_err(CliError::Invalid)?;
        let args = std::iter::once(OsString::from("rho")).chain(argv::rewrite(args));
        // Pi's version flag is `-v` (clap's default is `-V`).
        let command = Cli::command().disable_version_flag(true).arg(
            clap::Arg::new("version")
                .short('v')
                .long("version")
                .action(clap::ArgAction::Version)
                .help("Show the version number"),
        );
        let matches = command.try_get_matches_from(args)?;
        let mut cli = Cli::from_arg_matches(&matches)?;
        if !cli.print_message.is_empty() {
            cli.messages = in_command_line_order(&matches, &cli);
            cli.print_message.clear();
        }
        cli_checks::check_parsed(&cli).map_err(CliError::Invalid)?;
        Ok(cli)
    }
}

/// Positional messages and `--print-message` values merged by their place on the command line.
fn in_command_line_order(matches: &clap::ArgMatches, cli: &Cli) -> Vec<String> {
    let indexed = |id: &str, values: &[String]| -> Vec<(usize, String)> {
        matches
            .indices_of(id)
            .map(|indices| indices.zip(values.iter().cloned()).collect())
            .unwrap_or_default()
    };
    let mut all = indexed("messages", &cli.messages);
    all.extend(indexed("print_message", &cli.print_message));
    all.sort_by_key(|(index, _)| *index);
    all.into_iter().map(|(_, message)| message).collect()
}
