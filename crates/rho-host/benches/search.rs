//! rho's in-process `grep`/`find` against `rg`/`fd` run as processes with Pi's flags.
//!
//! The tree (FILES files of about FILE_BYTES each, 1 GB in all, with a .gitignore and ignored
//! files) is generated once under `target/search-bench-tree` and reused. After criterion's
//! groups, a summary prints the median of RUNS runs of each side and rho's ratio to the tool.
//! Run: `cargo bench -p rho-host --bench search`. Needs `rg` and `fd`/`fdfind` on PATH.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::Criterion;
use rho_host::tools::{FindTool, GrepTool};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Files in the tree: 100 top directories × 10 subdirectories × 100 files.
const FILES: usize = 100_000;
/// Approximate size of one file; FILES × FILE_BYTES ≈ 1 GB.
const FILE_BYTES: usize = 10_000;
/// Runs per side for the summary medians.
const RUNS: usize = 5;

/// Words the generator draws lines from.
const WORDS: [&str; 16] = [
    "alpha", "beta", "gamma", "delta", "fn", "let", "struct", "impl", "match", "return", "value",
    "error", "result", "option", "string", "vector",
];

fn tree_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/search-bench-tree")
}

/// Writes the tree unless a complete one of the same size is already there.
fn ensure_tree(root: &Path) {
    let marker = root.join(".complete");
    let stamp = format!("{FILES} {FILE_BYTES}\n");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(stamp.as_str()) {
        return;
    }
    eprintln!(
        "generating {FILES} files (~{} MB) in {}",
        FILES * FILE_BYTES / 1_000_000,
        root.display()
    );
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for i in 0..FILES {
        let dir = root.join(format!("d{:02}/s{}", i / 1000, (i / 100) % 10));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let ext = ["rs", "ts", "txt", "md", "log"][i % 5];
        let mut text = String::with_capacity(FILE_BYTES + 100);
        while text.len() < FILE_BYTES {
            for _ in 0..8 {
                text.push_str(WORDS[(next() % 16) as usize]);
                text.push(' ');
            }
            text.push('\n');
        }
        // A rare token: a full scan finds it in 1 of 2000 files.
        if i % 2000 == 7 {
            text.push_str(&format!("RARE_TOKEN_{i} here\n"));
        }
        let mut file = std::fs::File::create(dir.join(format!("f{i:06}.{ext}"))).unwrap();
        file.write_all(text.as_bytes()).unwrap();
    }
    std::fs::write(marker, stamp).unwrap();
}

fn binary(names: &[&str]) -> String {
    names
        .iter()
        .find(|n| Command::new(n).arg("--version").output().is_ok())
        .map(|n| (*n).to_owned())
        .unwrap_or_else(|| panic!("none of {names:?} on PATH (apt-get install ripgrep fd-find)"))
}

/// One benchmark case: rho's call and the equivalent process.
struct Case {
    name: &'static str,
    tool: &'static str,
    args: Value,
    command: Vec<String>,
}

fn cases(root: &Path, rg: &str, fd: &str) -> Vec<Case> {
    let root_s = root.display().to_string();
    let rg_cmd = |pattern: &str| {
        [
            rg,
            "--json",
            "--line-number",
            "--color=never",
            "--hidden",
            "--",
            pattern,
            &root_s,
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let fd_cmd = |pattern: &str, limit: &str| {
        [
            fd,
            "--glob",
            "--color=never",
            "--hidden",
            "--max-results",
            limit,
            "--",
            pattern,
            &root_s,
        ]
        .map(str::to_owned)
        .to_vec()
    };
    vec![
        Case {
            name: "grep rare token (full scan)",
            tool: "grep",
            args: json!({"pattern": "RARE_TOKEN_\\d+"}),
            command: rg_cmd("RARE_TOKEN_\\d+"),
        },
        Case {
            name: "find rare name (full walk)",
            tool: "find",
            args: json!({"pattern": "f09999*"}),
            command: fd_cmd("f09999*", "1000"),
        },
        Case {
            name: "find *.rs (stops at 1000)",
            tool: "find",
            args: json!({"pattern": "*.rs"}),
            command: fd_cmd("*.rs", "1000"),
        },
    ]
}

fn run_rho(runtime: &tokio::runtime::Runtime, root: &Path, case: &Case) {
    let cancel = CancellationToken::new();
    let output = runtime.block_on(async {
        match case.tool {
            "grep" => GrepTool::new(root).grep(&case.args, &cancel).await,
            _ => FindTool::new(root).find(&case.args, &cancel).await,
        }
    });
    assert!(output.is_ok(), "{}: {output:?}", case.name);
}

fn run_process(case: &Case) {
    let output = Command::new(&case.command[0])
        .args(&case.command[1..])
        .output()
        .unwrap();
    assert!(
        output.status.code().is_some_and(|c| c <= 1),
        "{}",
        case.name
    );
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let root = tree_root();
    ensure_tree(&root);
    let root = std::fs::canonicalize(root).unwrap();
    let (rg, fd) = (binary(&["rg"]), binary(&["fd", "fdfind"]));
    let runtime = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    let cases = cases(&root, &rg, &fd);

    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10))
        .configure_from_args();
    for case in &cases {
        let mut group = criterion.benchmark_group(case.name);
        group.bench_function("rho", |b| b.iter(|| run_rho(&runtime, &root, case)));
        group.bench_function(&case.command[0], |b| b.iter(|| run_process(case)));
        group.finish();
    }

    println!(
        "\n{:<32} {:>12} {:>12} {:>8}",
        "case (median)", "rho", "tool", "ratio"
    );
    for case in &cases {
        let rho = time(RUNS, || run_rho(&runtime, &root, case));
        let tool = time(RUNS, || run_process(case));
        let ratio = rho.as_secs_f64() / tool.as_secs_f64();
        println!(
            "{:<32} {:>12.1?} {:>12.1?} {:>7.2}x",
            case.name, rho, tool, ratio
        );
    }
}
