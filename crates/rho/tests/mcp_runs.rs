//! MCP through the rho binary, with scripted servers (`rho-mcp/tests/servers/scripted.py`):
//! servers that fail, the configuration files, the gate on MCP calls, the servers' life in a
//! session, and the commands (`rho mcp`, `/mcp`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod commands;
mod config;
mod faults;
mod gate;
pub(crate) mod harness;
mod lifecycle;
