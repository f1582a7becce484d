//! rho-mcp: rho's Model Context Protocol client, as Pi 1.6 behaves (its `mcp.json`, names,
//! exposures, result conversion, timeouts and lifecycle), on the official Rust SDK (`rmcp`).
//!
//! - [`config`]: `mcp.json` files, validated with Pi's wording, with project overrides.
//! - [`interpolate`]: `${VAR}` and `!command` values.
//! - [`naming`], [`exposure`]: tool names and how tools reach the model.
//! - [`server`]: one live server (stdio process or streamable HTTP), its tools and calls;
//!   [`process`] the stdio process; [`handler`] what rho answers a server.
//! - [`tool`]: a server's tool as an `AgentTool`; [`convert`] its results.
//! - [`elicit`]: who answers a server's questions; [`log`]: `mcp.log`.
//! - [`edit`]: changing an `mcp.json` (`rho mcp add|remove`, `/mcp`).
//! - [`auth`]: OAuth sign-in for HTTP servers, and `mcp-auth.json`.
//!
//! No I/O at load: servers connect when the host starts them.

pub mod auth;
pub mod config;
pub mod context;
pub mod convert;
pub mod edit;
pub mod elicit;
pub mod exposure;
pub mod handler;
pub mod interpolate;
pub mod log;
pub mod naming;
pub mod process;
pub mod server;
pub mod tap;
pub mod tool;

pub use config::{McpConfig, Scope, ServerConfig, ServerEntry, TransportKind};
pub use context::{Credentials, McpContext, NoCredentials};
pub use elicit::{Defaults, Elicitation, ElicitationAnswer, Elicitor};
pub use exposure::Exposure;
pub use handler::ServerSignal;
pub use server::{Phase, Server, SignInFailure, SignedIn, Snapshot};
pub use tool::McpTool;
