//! `RHO_HOME/mcp.log`: the logging notifications of every server, one line each (continuation
//! lines indented), as Pi 1.6 writes them; past 5 MiB the file becomes `mcp.log.1` (replacing
//! the older one) before the next line. Failures to write are ignored: a log must never fail
//! a call.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

/// Past this size the log is rotated.
const MAX_LOG_BYTES: u64 = 5 * 1024 * 1024;

/// The log file.
#[derive(Debug)]
pub struct McpLog {
    path: PathBuf,
    /// One writer at a time, so lines and rotations do not interleave.
    lock: Mutex<()>,
}

impl McpLog {
    /// The log at `path`.
    pub fn new(path: impl Into<PathBuf>) -> McpLog {
        McpLog {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    /// `<time> [<server>] <level>[ <logger>:] <text>` with newlines in `text` indented.
    pub fn format_line(server: &str, level: &str, logger: Option<&str>, text: &str) -> String {
        let time = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ");
        let logger = logger.map(|l| format!(" {l}:")).unwrap_or_default();
        let text = text.replace("\r\n", "\n").replace('\n', "\n    ");
        format!("{time} [{server}] {level}{logger} {text}\n")
    }

    /// Appends `line`, rotating first when the file is past its size. Blocking.
    pub fn append(&self, line: &str) {
        let _guard = rho_stdx::sync::lock(&self.lock);
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if std::fs::metadata(&self.path).is_ok_and(|meta| meta.len() > MAX_LOG_BYTES) {
            let mut rotated = self.path.clone().into_os_string();
            rotated.push(".1");
            let _ = std::fs::rename(&self.path, rotated);
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path);
        if let Ok(mut file) = file {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn lines_are_pis_and_the_file_rotates_past_5_mib() {
        let line = McpLog::format_line("demo", "warning", Some("mylog"), "hello\nworld");
        assert!(
            line.ends_with(" [demo] warning mylog: hello\n    world\n"),
            "{line}"
        );
        assert!(
            McpLog::format_line("demo", "info", None, "{\"k\":1}")
                .ends_with(" [demo] info {\"k\":1}\n")
        );
        let dir = tempfile::tempdir().unwrap();
        let log = McpLog::new(dir.path().join("mcp.log"));
        std::fs::write(dir.path().join("mcp.log"), vec![b'x'; 5 * 1024 * 1024 + 1]).unwrap();
        log.append("new\n");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("mcp.log")).unwrap(),
            "new\n"
        );
        assert_eq!(
            std::fs::metadata(dir.path().join("mcp.log.1"))
                .unwrap()
                .len(),
            5 * 1024 * 1024 + 1
        );
    }
}
