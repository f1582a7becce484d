//! The interactive mode driven as a person meets it: the real binary in a real terminal (a
//! `tmux` pane of 80×24), keys sent with `send-keys`, the screen read with `capture-pane`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::json;

/// How long any expected screen may take to appear.
pub(crate) const DEADLINE: Duration = Duration::from_secs(20);

/// A tmux server of its own (a private socket), killed when the test ends.
pub(crate) struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts a plain `sh` with a known prompt in `dir`, in a detached 80×24 session.
    pub(crate) fn start(dir: &Path) -> Tmux {
        let probe = Command::new("tmux").arg("-V").output();
        assert!(
            probe.is_ok_and(|o| o.status.success()),
            "tmux is not installed (apt-get install -y tmux)"
        );
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let tmux = Tmux {
            socket: format!("rho-test-{}-{nanos}", std::process::id()),
        };
        let path = std::env::var("PATH").unwrap_or_default();
        let shell = format!(
            "env -i PATH='{path}' HOME='{home}' RHO_HOME='{home}' TERM=xterm-256color PS1='PROMPT$ ' sh",
            home = dir.display()
        );
        tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "80",
            "-y",
            "24",
            "-c",
            &dir.to_string_lossy(),
            &shell,
        ]);
        // An Escape must reach rho at once, not after tmux's wait for a longer sequence.
        tmux.run(&["set-option", "-s", "escape-time", "0"]);
        tmux
    }

    pub(crate) fn run(&self, args: &[&str]) -> Output {
        let output = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    pub(crate) fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "0", "-l", text]);
    }

    pub(crate) fn screen(&self) -> String {
        String::from_utf8(self.run(&["capture-pane", "-p", "-t", "0"]).stdout).unwrap()
    }

    pub(crate) fn alternate_screen_on(&self) -> bool {
        let out = self.run(&["display-message", "-p", "-t", "0", "#{alternate_on}"]);
        String::from_utf8_lossy(&out.stdout).trim() == "1"
    }

    /// Polls the pane until `check` holds, failing with the last screen at the deadline.
    pub(crate) fn wait_for(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if check(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {what}; the screen was:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

pub(crate) fn last_line(screen: &str) -> &str {
    screen.trim_end().lines().last().unwrap_or("")
}

#[test]
fn a_prompt_streams_text_and_a_tool_block_steers_escape_aborts_and_ctrl_c_twice_restores_the_shell()
{
    let dir = tempfile::tempdir().unwrap();
    let script = json!({"turns": [[
        {"type": "text", "text": "Let me check the files."},
        {"type": "tool_call", "name": "bash",
         "arguments": {"command": "echo live-output-1; sleep 30"}}
    ]], "fallback": [{"type": "text", "text": "done"}]});
    std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
    let tmux = Tmux::start(dir.path());
    crate::interactive_support::launch(&tmux, "--faux-script script.json");
    tmux.wait_for("the editor and the footer", |s| s.contains("ctx ?/"));
    assert!(
        tmux.alternate_screen_on(),
        "the UI runs on the alternate screen"
    );

    tmux.type_text("list the files");
    tmux.keys(&["Enter"]);
    let running = tmux.wait_for("the streamed text and the running bash block", |s| {
        s.contains("› list the files")
            && s.contains("Let me check the files.")
            && s.contains("bash echo live-output-1; sleep 30")
            && s.contains("  live-output-1")
            && s.contains("Working... (esc to interrupt)")
    });
    assert!(!running.contains("PROMPT$"), "{running}");

    // Steering while the tool runs: queued, and shown as queued.
    tmux.type_text("also count the words");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the queued steering message", |s| {
        s.contains("Queued: 1 steering")
    });

    // Escape aborts; the queued message comes back into the editor, as in Pi.
    tmux.keys(&["Escape"]);
    let aborted = tmux.wait_for("the run to stop", |s| {
        !s.contains("esc to interrupt") && s.contains("Aborted")
    });
    assert!(aborted.contains("✗ bash echo live-output-1"), "{aborted}");
    assert!(aborted.contains("\nalso count the words"), "{aborted}");
    assert!(!aborted.contains("Queued:"), "{aborted}");

    // A resize redraws the whole layout at the new size.
    tmux.run(&["resize-window", "-t", "0", "-x", "60", "-y", "20"]);
    let narrow = tmux.wait_for("the layout at 60 columns", |s| {
        s.lines().any(|l| l == "─".repeat(60)) && s.lines().count() <= 20
    });
    let footer = narrow.trim_end().lines().last().unwrap_or("");
    assert!(footer.ends_with("faux-1"), "{narrow}");

    tmux.keys(&["C-c", "C-c"]);
    tmux.wait_for("the shell prompt after leaving", |s| {
        last_line(s).starts_with("PROMPT$")
    });
    assert!(!tmux.alternate_screen_on(), "the alternate screen was left");
    // Raw mode left on would swallow this line's Enter: the shell answering proves cooked mode.
    tmux.type_text("echo restored-$((40+2))");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the shell to run a command", |s| {
        s.contains("\nrestored-42")
    });
}

#[test]
fn messages_on_the_command_line_are_sent_as_the_first_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let script = json!({"turns": [
        [{"type": "text", "text": "first answer"}],
        [{"type": "text", "text": "second answer"}]
    ]});
    std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
    let tmux = Tmux::start(dir.path());
    crate::interactive_support::launch(&tmux, "--faux-script script.json one two");
    let screen = tmux.wait_for("both prompts answered in order", |s| {
        s.contains("second answer") && !s.contains("esc to interrupt")
    });
    let order: Vec<&str> = screen
        .lines()
        .filter(|l| l.starts_with("› ") || l.ends_with(" answer"))
        .map(str::trim_end)
        .collect();
    assert_eq!(
        order,
        ["› one", "first answer", "› two", "second answer"],
        "{screen}"
    );
    tmux.keys(&["C-d"]);
    tmux.wait_for("the shell prompt after Ctrl+D", |s| {
        last_line(s).starts_with("PROMPT$")
    });
}
