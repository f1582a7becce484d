//! Opening a 100,000-entry session (~50 MB) and rebuilding its context: target < 300 ms.
//! The second benchmark is the worst case: no compaction, every message on the path.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/generate.rs"]
mod generate;

use criterion::{Criterion, criterion_group, criterion_main};
use rho_session::SessionFile;

fn open_and_rebuild(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = generate::generate(dir.path(), 100_000).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    eprintln!("session file: {} bytes", size);
    let mut group = c.benchmark_group("session");
    group.sample_size(10);
    group.bench_function("open_100k_entries_and_build_context", |b| {
        b.iter(|| {
            let (session, warnings) = SessionFile::open(&path).unwrap();
            assert!(warnings.is_empty());
            let context = session.context();
            std::hint::black_box((context.messages.len(), session.entries().len()))
        })
    });
    let path = generate::generate_uncompacted(dir.path(), 100_000).unwrap();
    group.bench_function("open_100k_entries_and_build_uncompacted_context", |b| {
        b.iter(|| {
            let (session, warnings) = SessionFile::open(&path).unwrap();
            assert!(warnings.is_empty());
            let context = session.context();
            std::hint::black_box((context.messages.len(), session.entries().len()))
        })
    });
    group.finish();
}

criterion_group!(benches, open_and_rebuild);
criterion_main!(benches);
