//! Running a target on files: the replay of a corpus, and a target binary without AFL.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `run` on every file in `dir` (sorted by name, so a failure names the same file each
/// time); the files run, or the I/O error that stopped the listing.
pub fn replay(dir: &Path, run: fn(&[u8])) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    for file in &files {
        run(&std::fs::read(file)?);
    }
    Ok(files)
}

/// A target binary built without AFL: runs `run` on each file or directory named on the command
/// line, or on standard input when none is; a panic shows which input crashed.
pub fn replay_args(run: fn(&[u8])) -> ExitCode {
    let paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        let mut data = Vec::new();
        if let Err(error) = std::io::stdin().read_to_end(&mut data) {
            eprintln!("cannot read standard input: {error}");
            return ExitCode::FAILURE;
        }
        run(&data);
        return ExitCode::SUCCESS;
    }
    for path in paths {
        eprintln!("{}", path.display());
        let outcome = if path.is_dir() {
            replay(&path, run).map(|_| ())
        } else {
            std::fs::read(&path).map(|data| run(&data))
        };
        if let Err(error) = outcome {
            eprintln!("cannot read {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
