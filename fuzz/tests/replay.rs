//! Every corpus file through its target, in process: the inputs the fuzzers kept (and every
//! crash they found, once fixed) stay checked on every `cargo test`.

use std::path::PathBuf;
use std::time::Instant;

use rho_fuzz::{TARGETS, replay};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

#[test]
fn every_corpus_file_runs_through_its_target_without_a_failure() {
    for target in TARGETS {
        let started = Instant::now();
        let dir = corpus().join(target.name);
        let files =
            replay(&dir, target.run).unwrap_or_else(|error| panic!("{}: {error}", dir.display()));
        assert!(!files.is_empty(), "{}: no corpus", dir.display());
        eprintln!(
            "{}: {} files in {:?}",
            target.name,
            files.len(),
            started.elapsed()
        );
    }
}

#[test]
fn every_corpus_directory_belongs_to_a_target() {
    let mut names: Vec<String> = std::fs::read_dir(corpus())
        .unwrap_or_else(|error| panic!("{}: {error}", corpus().display()))
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut targets: Vec<String> = TARGETS.iter().map(|t| t.name.to_owned()).collect();
    targets.sort();
    assert_eq!(names, targets);
}
