//! The file-tool cases of the escape corpus.

use serde_json::{Value, json};

use super::harness::{Expect, World};

pub fn file_cases(w: &World) -> Vec<(&'static str, Value, Expect)> {
    use Expect::{Contained, Refused};
    let out = w.outside.display().to_string();
    let root = w.root.display().to_string();
    let outside_dirs = "is outside the allowed directories";
    let secret = "is a secret file";
    let bad = "was refused:";
    vec![
        (
            "read",
            json!({"path": "../outside/secret.txt"}),
            Refused(outside_dirs),
        ),
        (
            "read",
            json!({"path": "../../../../../../../../etc/passwd"}),
            Refused(outside_dirs),
        ),
        (
            "read",
            json!({"path": format!("{out}/secret.txt")}),
            Refused(outside_dirs),
        ),
        (
            "read",
            json!({"path": "/etc/passwd"}),
            Refused(outside_dirs),
        ),
        ("read", json!({"path": "~/.bashrc"}), Refused(outside_dirs)),
        (
            "read",
            json!({"path": "@../outside/secret.txt"}),
            Refused(outside_dirs),
        ),
        ("read", json!({"path": "link_file"}), Refused(outside_dirs)),
        (
            "read",
            json!({"path": "link_dir/secret.txt"}),
            Refused(outside_dirs),
        ),
        ("read", json!({"path": "chain1"}), Refused(outside_dirs)),
        (
            "read",
            json!({"path": "loop_a"}),
            Refused("too many symbolic links"),
        ),
        (
            "read",
            json!({"path": format!("/proc/self/root{out}/secret.txt")}),
            Refused(outside_dirs),
        ),
        (
            "read",
            json!({"path": "/proc/self/cwd/Cargo.toml"}),
            Refused(outside_dirs),
        ),
        (
            "read",
            json!({"path": format!("{root}/../outside/secret.txt")}),
            Refused(outside_dirs),
        ),
        (
            "read",
            json!({"path": "sub/../../outside/secret.txt"}),
            Refused(outside_dirs),
        ),
        ("read", json!({"path": ".env"}), Refused(secret)),
        ("read", json!({"path": "sub/../.env"}), Refused(secret)),
        ("read", json!({"path": "envlink"}), Refused(secret)),
        ("read", json!({"path": "id_rsa"}), Refused(secret)),
        (
            "read",
            json!({"path": "\u{FF0E}\u{FF0E}/outside/secret.txt"}),
            Contained,
        ),
        (
            "read",
            json!({"path": "..\u{2215}outside\u{2215}secret.txt"}),
            Contained,
        ),
        (
            "read",
            json!({"path": "ok.txt\u{0}/../../outside/secret.txt"}),
            Refused("NUL byte"),
        ),
        (
            "write",
            json!({"path": "new\u{0}.txt", "content": "x"}),
            Refused("NUL byte"),
        ),
        (
            "read",
            json!({"path": "a/".repeat(3000)}),
            Refused("longer than 4096 bytes"),
        ),
        ("read", json!({"path": "n".repeat(300)}), Refused(bad)),
        ("ls", json!({"path": ".."}), Refused(outside_dirs)),
        ("ls", json!({"path": "link_dir"}), Refused(outside_dirs)),
        ("ls", json!({"path": "/"}), Refused(outside_dirs)),
        (
            "grep",
            json!({"pattern": "OUTSIDE", "path": "../outside"}),
            Refused(outside_dirs),
        ),
        (
            "grep",
            json!({"pattern": "OUTSIDE", "path": "link_dir"}),
            Refused(outside_dirs),
        ),
        (
            "grep",
            json!({"pattern": "OUTSIDE", "path": format!("/proc/self/root{out}")}),
            Refused(outside_dirs),
        ),
        (
            "grep",
            json!({"pattern": "SECRET", "path": ".env"}),
            Refused(secret),
        ),
        (
            "find",
            json!({"pattern": "*", "path": ".."}),
            Refused(outside_dirs),
        ),
        (
            "find",
            json!({"pattern": "*", "path": "~"}),
            Refused(outside_dirs),
        ),
        (
            "write",
            json!({"path": "../outside/new.txt", "content": "x"}),
            Refused(outside_dirs),
        ),
        (
            "write",
            json!({"path": "dangling", "content": "x"}),
            Refused(outside_dirs),
        ),
        (
            "write",
            json!({"path": "link_dir/new.txt", "content": "x"}),
            Refused(outside_dirs),
        ),
        (
            "write",
            json!({"path": "nothere/../../outside/x", "content": "x"}),
            Refused(outside_dirs),
        ),
        (
            "write",
            json!({"path": "chain1", "content": "x"}),
            Refused(outside_dirs),
        ),
        (
            "write",
            json!({"path": ".env.local", "content": "x"}),
            Refused(secret),
        ),
        (
            "write",
            json!({"path": format!("/proc/self/root{out}/new.txt"), "content": "x"}),
            Refused(outside_dirs),
        ),
        (
            "edit",
            json!({"path": "link_file", "edits": [{"oldText": "OUTSIDE", "newText": "x"}]}),
            Refused(outside_dirs),
        ),
        (
            "edit",
            json!({"path": "../outside/secret.txt", "edits": [{"oldText": "OUTSIDE", "newText": "x"}]}),
            Refused(outside_dirs),
        ),
        (
            "edit",
            json!({"path": ".env", "edits": [{"oldText": "SECRET", "newText": "x"}]}),
            Refused(secret),
        ),
        (
            "edit",
            json!({"path": "chain1", "edits": [{"oldText": "OUTSIDE", "newText": "x"}]}),
            Refused(outside_dirs),
        ),
        (
            "write",
            json!({"path": "loop_a", "content": "x"}),
            Refused("too many symbolic links"),
        ),
        (
            "ls",
            json!({"path": "loop_a"}),
            Refused("too many symbolic links"),
        ),
        (
            "ls",
            json!({"path": format!("/proc/self/root{out}")}),
            Refused(outside_dirs),
        ),
        ("ls", json!({"path": "\u{FF0E}\u{FF0E}"}), Contained),
        ("ls", json!({"path": "sub\u{0}/../.."}), Refused("NUL byte")),
        (
            "find",
            json!({"pattern": "*", "path": "link_dir"}),
            Refused(outside_dirs),
        ),
        (
            "find",
            json!({"pattern": "*", "path": "/proc/self/cwd"}),
            Refused(outside_dirs),
        ),
        (
            "find",
            json!({"pattern": "*", "path": "a/".repeat(3000)}),
            Refused("longer than 4096 bytes"),
        ),
        // The walk never follows `link_dir` out of the project.
        ("find", json!({"pattern": "secret.txt"}), Contained),
        (
            "grep",
            json!({"pattern": "OUTSIDE", "path": "chain1"}),
            Refused(outside_dirs),
        ),
        (
            "grep",
            json!({"pattern": "OUTSIDE", "path": "link_file"}),
            Refused(outside_dirs),
        ),
        (
            "grep",
            json!({"pattern": "OUTSIDE", "path": "..\u{2215}outside"}),
            Contained,
        ),
        // Neither `link_file` nor `link_dir` is followed by the walk, so nothing outside is read.
        ("grep", json!({"pattern": "OUTSIDE"}), Contained),
    ]
}
