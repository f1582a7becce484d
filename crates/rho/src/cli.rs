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
    /// Keep the session in memory only.
    #[arg(long)]
    pub no_session: bool,
    /// The prompts; the first is joined to piped stdin, the rest run one after another.
    #[arg(value_name = "MESSAGE")]
    pub messages: Vec<String>,
}
