//! Tests that need something of the machine (Landlock, Node, tmux): on a developer's machine
//! without it they say so and pass; in CI (`CI=true`) a missing prerequisite fails the run,
//! so a green CI never hides a test that did not run.

/// Whether the test may go on: `Ok` passes the value through; `Err(why)` panics in CI and, out of
/// CI, prints `SKIPPED: <test needs …>` and gives `None`.
pub fn require<T>(what: &str, found: Result<T, String>) -> Option<T> {
    match found {
        Ok(value) => Some(value),
        Err(why) if in_ci() => {
            panic!("missing prerequisite in CI: {what}: {why} (.ci/run must install it)")
        }
        Err(why) => {
            eprintln!("SKIPPED: {what}: {why}");
            None
        }
    }
}

/// `CI` is set to anything but empty, `0` or `false`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.as_str(), "" | "0" | "false"))
}
