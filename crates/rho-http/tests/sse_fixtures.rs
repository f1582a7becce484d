#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Every recorded provider stream parses to the same events however the network splits it.

use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;
use rho_http::{SseEvent, SseParser};

/// `(file name, bytes)` of every `.sse` fixture under `shared/fixtures/providers/*/`.
fn fixtures() -> &'static [(String, Vec<u8>)] {
    static FIXTURES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let root =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/providers");
        let mut files = Vec::new();
        for dir in std::fs::read_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display())) {
            let dir = dir.unwrap().path();
            if !dir.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&dir).unwrap() {
                let path = file.unwrap().path();
                if path.extension().is_some_and(|ext| ext == "sse") {
                    let name = path.strip_prefix(&root).unwrap().display().to_string();
                    files.push((name, std::fs::read(&path).unwrap()));
                }
            }
        }
        files.sort();
        files
    })
}

fn parse_whole(bytes: &[u8]) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    let mut events = parser.feed(bytes);
    events.extend(parser.finish());
    events
}

/// Feeds `bytes` in pieces of the given sizes, cycling through them.
fn parse_split(bytes: &[u8], sizes: &[usize]) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    let mut rest = bytes;
    for size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (piece, tail) = rest.split_at((*size).min(rest.len()));
        events.extend(parser.feed(piece));
        rest = tail;
    }
    events.extend(parser.finish());
    events
}

#[test]
fn the_fixture_set_is_present_and_every_file_has_events() {
    let fixtures = fixtures();
    assert!(
        fixtures.len() >= 20,
        "only {} .sse fixtures found",
        fixtures.len()
    );
    for (name, bytes) in fixtures {
        assert!(!parse_whole(bytes).is_empty(), "{name} parsed to no events");
    }
}

#[test]
fn every_fixture_fed_one_byte_at_a_time_gives_the_same_events() {
    for (name, bytes) in fixtures() {
        assert_eq!(parse_split(bytes, &[1]), parse_whole(bytes), "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_fixture_in_random_chunks_gives_the_same_events(
        index in any::<prop::sample::Index>(),
        sizes in prop::collection::vec(prop_oneof![Just(1usize), 1usize..16, 16usize..4096], 1..64),
    ) {
        let (name, bytes) = &fixtures()[index.index(fixtures().len())];
        prop_assert_eq!(parse_split(bytes, &sizes), parse_whole(bytes), "{}", name);
    }
}
