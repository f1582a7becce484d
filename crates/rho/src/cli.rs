//! Command-line flags (the subset of Pi's, pi-reference §7.2, that this version implements).

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// Output mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Plain text: the final answer.
    Text,
    /// JSON Lines: the session header, then every event.
    Json,
    /// Pi's RPC protocol over stdin/stdout.
    Rpc,
}

/// rho: an agent runtime and coding-agent command line.
#[derive(Debug, Parser)]
#[command(name = "rho", version, about)]
pub struct Cli {
    /// Output mode.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Print mode: run the prompts and print the final answer.
    #[arg(short = 'p', long = "print")]
    pub print: bool,
    /// Answer with the scripted faux model from FILE (`{"turns": [[block, …], …]}`).
    #[arg(long, value_name = "FILE")]
    pub faux_script: Option<PathBuf>,
    /// Provider of the model (e.g. `anthropic`, `openai`, or one from models.json).
    #[arg(long)]
    pub provider: Option<String>,
    /// Model id or pattern (`provider/id`, fuzzy, optional `:thinking` suffix).
    #[arg(long)]
    pub model: Option<String>,
    /// API key for the selected model's provider (never printed or stored).
    #[arg(long = "api-key", value_name = "KEY")]
    pub api_key: Option<String>,
    /// Thinking level: off, minimal, low, medium, high, xhigh.
    #[arg(long, value_name = "LEVEL")]
    pub thinking: Option<String>,
    /// List the models that have a key configured (optionally matching SEARCH), then exit.
    #[arg(long = "list-models", value_name = "SEARCH", num_args = 0..=1)]
    pub list_models: Option<Option<String>>,
    /// Tools to enable, comma-separated (read, bash, edit, write, grep, find, ls); unknown names
    /// are ignored. Default: read, bash, edit, write.
    #[arg(short = 't', long, value_delimiter = ',', value_name = "NAMES")]
    pub tools: Option<Vec<String>>,
    /// No tools at all.
    #[arg(long)]
    pub no_tools: bool,
    /// Budget: end the run after this many turns per prompt (exit code 3).
    #[arg(long = "max-turns", value_name = "N")]
    pub max_turns: Option<u64>,
    /// Budget: end the run once a prompt has cost this many US dollars (exit code 3).
    #[arg(long = "max-cost", value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Budget: end the run once a prompt's model calls have used this many tokens (exit code 3).
    #[arg(long = "max-tokens", value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Keep the session in memory only.
    #[arg(long)]
    pub no_session: bool,
    /// The prompts; the first is joined to piped stdin, the rest run one after another.
    #[arg(value_name = "MESSAGE")]
    pub messages: Vec<String>,
}
