//! Whole scripted runs through the library API, in-process, with the faux model (no HTTP, no
//! process start): issue 11's scenarios 4 and 8. Each run is an `AgentSession` with the real
//! `read` tool; every turn is one `read` call, then a final text. Every session event is
//! serialized to JSON (as `--mode json` does) and dropped.
//!
//! `cargo bench -p rho-host --bench runs -- turns` — scenario 4: one run of 10, 100 and 1,000
//! turns; median total and per-turn cost, and the marginal cost of a turn between 100 and 1,000
//! (flat if a turn's cost does not grow with the transcript).
//!
//! `cargo bench -p rho-host --bench runs -- once TURNS` — one run, for a profiler.
//!
//! `cargo bench -p rho-host --bench runs -- concurrent N [TURNS]` — scenario 8: N runs of TURNS
//! turns (default 10) at once on one runtime; turns per second, and memory per run: the peak of
//! live heap (counted by this binary's allocator) above the idle baseline, next to the size of
//! the transcripts as JSON, and the process's peak RSS.
//!
//! Each result is one JSON line on stdout (read by `bench/run.py`). Not part of `cargo test`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rho_agent::AgentOptions;
use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_tool_call};
use rho_host::AgentSession;
use rho_host::compaction::CompactionPolicy;
use rho_host::toolset::create_tools;
use serde_json::json;

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let now = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The file every turn reads: 20 short lines, like a small source file.
const FILE_TEXT: &str = "export function add(a: number, b: number): number {\n  return a + b;\n}\n";

/// A session whose faux model asks for `turns` reads of `f.ts`, then answers.
fn scripted_session(cwd: &Path, turns: usize) -> AgentSession {
    let provider = FauxProvider::new()
        .with_chunk_chars(1024)
        .with_usage(false)
        .with_recording(false);
    for i in 0..turns {
        provider.push(faux_message(vec![
            faux_text("Reading."),
            faux_tool_call(format!("call_{i}"), "read", json!({"path": "f.ts"})),
        ]));
    }
    provider.push(faux_message(vec![faux_text("Done.")]));
    let mut options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    options.system_prompt = Some("You are a benchmark.".into());
    options.tools = create_tools(cwd, &["read"], None);
    let session = AgentSession::builder(options)
        .compaction(CompactionPolicy {
            enabled: false,
            ..CompactionPolicy::default()
        })
        .build();
    session.subscribe(|event| {
        let line = serde_json::to_vec(event).unwrap();
        std::hint::black_box(line);
    });
    session
}

/// Runs one prompt to the end and checks that every turn ran.
async fn run(session: &AgentSession, turns: usize) {
    let settled = session.prompt("Read f.ts, again and again.").await.unwrap();
    assert_eq!(settled.turns as usize, turns + 1, "{settled:?}");
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.ts"), FILE_TEXT.repeat(7)).unwrap();
    dir
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn current_thread_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Scenario 4: per-turn cost at 10, 100 and 1,000 turns.
fn turns() {
    let dir = workspace();
    let runtime = current_thread_runtime();
    let mut medians = Vec::new();
    for (turns, samples) in [(10usize, 21usize), (100, 11), (1000, 5)] {
        // One warm-up run, not counted.
        runtime.block_on(run(&scripted_session(dir.path(), turns), turns));
        let mut times: Vec<f64> = (0..samples)
            .map(|_| {
                let session = scripted_session(dir.path(), turns);
                let started = Instant::now();
                runtime.block_on(run(&session, turns));
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        let (min, max) = (
            times.iter().copied().fold(f64::MAX, f64::min),
            times.iter().copied().fold(0.0, f64::max),
        );
        let median = median(&mut times);
        medians.push((turns, median));
        println!(
            "{}",
            json!({"scenario": "turns", "turns": turns, "runs": samples, "median_ms": median,
                   "min_ms": min, "max_ms": max, "per_turn_us": median * 1000.0 / turns as f64})
        );
    }
    let (t100, t1000) = (medians[1].1, medians[2].1);
    println!(
        "{}",
        json!({"scenario": "turns_marginal", "from": 100, "to": 1000,
               "per_turn_us": (t1000 - t100) * 1000.0 / 900.0})
    );
}

/// One run of `turns` turns and nothing else, for a profiler (`valgrind --tool=callgrind`): the
/// difference between two lengths is what the longer transcript costs.
fn once(turns: usize) {
    let dir = workspace();
    let runtime = current_thread_runtime();
    runtime.block_on(run(&scripted_session(dir.path(), turns), turns));
}

/// The process's peak resident set, in KiB (its own figure, from the kernel).
fn peak_rss_kib() -> i64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` is a valid, writable rusage; getrusage only writes into it.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    usage.ru_maxrss
}

/// Scenario 8: `runs` scripted runs of `turns` turns at once in one process.
fn concurrent(runs: usize, turns: usize) {
    let dir = workspace();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    // Warm up the runtime, the tool and the allocator's arenas with one run.
    runtime.block_on(run(&scripted_session(dir.path(), turns), turns));
    let rss_before = peak_rss_kib();
    // The baseline is taken before the sessions exist: a run's memory includes its agent, tools
    // and listeners, and its faux script (the assistant half of its transcript, queued up).
    let baseline = LIVE.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let sessions: Vec<AgentSession> = (0..runs)
        .map(|_| scripted_session(dir.path(), turns))
        .collect();
    let started = Instant::now();
    runtime.block_on(async {
        let tasks: Vec<_> = sessions
            .iter()
            .map(|session| {
                let session = session.clone();
                tokio::spawn(async move { run(&session, turns).await })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    let wall = started.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed);
    let transcript_bytes: usize = sessions
        .iter()
        .map(|s| {
            s.agent()
                .with_state(|state| serde_json::to_vec(&state.messages).unwrap().len())
        })
        .sum();
    let heap_per_run = (peak - baseline) as f64 / runs as f64;
    let transcript_per_run = transcript_bytes as f64 / runs as f64;
    println!(
        "{}",
        json!({"scenario": "concurrent", "runs": runs, "turns_each": turns, "wall_ms": wall * 1000.0,
               "turns_per_s": (runs * (turns + 1)) as f64 / wall,
               "peak_heap_per_run_kib": heap_per_run / 1024.0,
               "transcript_json_per_run_kib": transcript_per_run / 1024.0,
               "heap_beyond_transcript_per_run_kib": (heap_per_run - transcript_per_run) / 1024.0,
               "rss_before_kib": rss_before, "peak_rss_kib": peak_rss_kib(),
               "peak_rss_per_run_kib": (peak_rss_kib() - rss_before) as f64 / runs as f64})
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this binary with no such
    // flag, and a benchmark is never part of the tests: then it does nothing.
    let benching = std::env::args().any(|a| a == "--bench");
    // Only the words after `--` matter here.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let number =
        |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    match args.first().map(String::as_str) {
        Some("concurrent") => concurrent(number(1, 100), number(2, 10)),
        Some("turns") => turns(),
        Some("once") => once(number(1, 100)),
        None if benching => turns(),
        None => {
            eprintln!("runs: not run outside `cargo bench` (or name a mode: turns, concurrent)")
        }
        Some(other) => {
            eprintln!("usage: runs [turns | once TURNS | concurrent N [TURNS]] (got {other:?})");
            std::process::exit(2);
        }
    }
}
