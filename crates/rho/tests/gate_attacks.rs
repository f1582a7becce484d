//! The red team's routes out of the workspace, run as the attack: a scripted (hostile) model
//! makes the calls through the real `rho` binary in its default mode (`workspace-write`). Each
//! test asserts what a user relies on — nothing outside changed, no key or secret byte in any
//! event or the session file, no hang (a time bound), memory under a safety bound (peak RSS
//! below 256 MiB: a bound, not a target) — and that rho still settles with `agent_settled`.
//! The attacks touch only what the tests made: files in their own temp dirs, processes they
//! started.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod floods;
pub(crate) mod harness;
mod keys;
mod permissions;
mod sandbox_holes;
