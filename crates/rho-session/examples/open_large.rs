//! Peak-memory probe for the open benchmark: `open_large [entries]` writes a session of that
//! many entries (default 100,000), then, in a fresh process (so the writer's memory does not
//! count), opens it and rebuilds the context. Run it under `/usr/bin/time -v`.
//! `--generate DIR` / `--generate-uncompacted DIR` only write a file (the second without a
//! compaction, the worst case); `--open FILE` only opens one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/support/generate.rs"]
mod generate;

use std::time::Instant;

use rho_session::SessionFile;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--open") {
        let path = std::path::PathBuf::from(&args[2]);
        let start = Instant::now();
        let (session, warnings) = SessionFile::open(&path).unwrap();
        let context = session.context();
        println!(
            "opened {} entries, {} context messages, {} warnings in {:?}",
            session.entries().len(),
            context.messages.len(),
            warnings.len(),
            start.elapsed()
        );
        return;
    }
    if args.get(1).map(String::as_str) == Some("--baseline") {
        let bytes = std::fs::read(&args[2]).unwrap();
        let start = Instant::now();
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            serde_json::from_slice::<serde::de::IgnoredAny>(line).unwrap();
        }
        println!("skip-parse: {:?}", start.elapsed());
        let start = Instant::now();
        let mut values = Vec::new();
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            values.push(serde_json::from_slice::<serde_json::Value>(line).unwrap());
        }
        println!("Value parse: {:?}", start.elapsed());
        return;
    }
    if args.get(1).map(String::as_str) == Some("--generate") {
        let path = generate::generate(std::path::Path::new(&args[2]), 100_000).unwrap();
        println!("{}", path.display());
        return;
    }
    if args.get(1).map(String::as_str) == Some("--generate-uncompacted") {
        let path = generate::generate_uncompacted(std::path::Path::new(&args[2]), 100_000).unwrap();
        println!("{}", path.display());
        return;
    }
    let entries = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let dir = tempfile::tempdir().unwrap();
    let path = generate::generate(dir.path(), entries).unwrap();
    println!(
        "{}: {} bytes",
        path.display(),
        std::fs::metadata(&path).unwrap().len()
    );
    let status = std::process::Command::new("/usr/bin/time")
        .arg("-v")
        .arg(std::env::current_exe().unwrap())
        .arg("--open")
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
}
