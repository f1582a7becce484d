//! The in-process search behind `grep`: ripgrep's own crates, configured as `rg --hidden` is.
//!
//! Files are walked in path order (what `rg --sort path` prints) by one thread and searched by a
//! pool of workers; a collector puts results back into walk order and stops everything once the
//! match limit is reached. So the output is deterministic — rg's own parallel order is not — and
//! the first `limit` matches are always the same ones.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use rho_gate::{GatePolicy, SecretInodes};
use tokio_util::sync::CancellationToken;

use super::guard::Searchable;

/// How often the collector looks at the cancellation token while waiting for results.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// Files queued ahead of the workers; bounds the memory a fast walk can use.
const QUEUE_DEPTH: usize = 1024;

/// What to search for and where.
pub(crate) struct SearchRequest {
    /// The resolved search path (a directory or a file).
    pub root: PathBuf,
    /// The directory `--glob` patterns are relative to (rg's working directory: the search
    /// directory, or the session's for a file).
    pub glob_root: PathBuf,
    /// The pattern, a regex unless `literal`.
    pub pattern: String,
    /// `--ignore-case`.
    pub ignore_case: bool,
    /// `--fixed-strings`.
    pub literal: bool,
    /// `--glob <glob>`.
    pub glob: Option<String>,
    /// Matches shown; one more is looked for, to prove the limit cut results off.
    pub limit: usize,
    /// `--context`: lines shown before and after each match.
    pub context: usize,
    /// Every file is opened through this gate, if there is one.
    pub gate: Option<Arc<GatePolicy>>,
}

/// One line rg reports: a match or a context line.
pub(crate) struct FoundLine {
    /// The file, as the walk produced it (the search root joined with the relative path).
    pub path: PathBuf,
    /// 1-based line number.
    pub line_number: u64,
    /// The line with its terminator (lossy UTF-8, as Pi decodes rg's base64 `bytes`).
    pub text: String,
    /// A match (`path:n: text`), or context (`path-n- text`).
    pub is_match: bool,
}

/// Everything the search found.
pub(crate) struct SearchOutcome {
    /// The lines to show, in walk order: at most `limit` matches with their context.
    pub lines: Vec<FoundLine>,
    /// How many matches are shown.
    pub match_count: usize,
    /// Whether a further match exists beyond the limit.
    pub limit_reached: bool,
    /// Secret files the walk found and did not read.
    pub secrets_skipped: usize,
}

/// Why a search produced no outcome.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SearchError {
    /// The cancellation token fired.
    Aborted,
    /// What rg would have printed on stderr before exiting with status 2.
    Failed(String),
}

/// One reported line: number, bytes with terminator, whether it matched.
type Line = (u64, Vec<u8>, bool);

/// The result of searching one walk entry.
enum FileResult {
    /// The file and its reported lines.
    Matches(PathBuf, Vec<Line>),
    /// rg's message for a file or directory it could not read.
    Error(String),
    /// A secret file, skipped unread.
    Secret,
}

/// The gate every file is opened through, with the secret files' inodes taken before the walk.
type FileGate<'a> = Option<(&'a GatePolicy, &'a SecretInodes)>;

/// One file for a worker: its walk index, path, and whether it was named explicitly.
type Job = (usize, PathBuf, bool);

/// Runs the search on the calling thread plus a walker and worker threads.
pub(crate) fn search(
    request: &SearchRequest,
    secrets: &SecretInodes,
    cancel: &CancellationToken,
) -> Result<SearchOutcome, SearchError> {
    let matcher = build_matcher(request)?;
    let walk = build_walk(request)?;
    let stop = AtomicBool::new(false);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let (job_tx, job_rx) = crossbeam_channel::bounded::<Job>(QUEUE_DEPTH);
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<(usize, FileResult)>();
    std::thread::scope(|scope| {
        let walker_results = result_tx.clone();
        let stop_ref = &stop;
        scope.spawn(move || walk_files(walk, &job_tx, &walker_results, stop_ref));
        for _ in 0..workers {
            let (jobs, results, matcher) = (job_rx.clone(), result_tx.clone(), matcher.clone());
            // One match past the limit proves that more exist.
            let cap = request.limit.saturating_add(1);
            let gate = request.gate.as_deref().map(|gate| (gate, secrets));
            let context = request.context;
            scope.spawn(move || {
                search_files(&matcher, &jobs, &results, (cap, context), stop_ref, gate);
            });
        }
        drop(result_tx);
        drop(job_rx);
        let outcome = collect(&result_rx, request, cancel);
        // Whatever happened, the helpers must wind down before the scope can end.
        stop.store(true, Ordering::Relaxed);
        outcome
    })
}

/// rg's matcher: Unicode regex (or literal), line-oriented, never matching NUL.
fn build_matcher(request: &SearchRequest) -> Result<RegexMatcher, SearchError> {
    if !request.literal {
        // Syntax errors quote the pattern as given; grep-regex would quote its `(?:…)` wrapper.
        regex_syntax::ParserBuilder::new()
            .build()
            .parse(&request.pattern)
            .map_err(|e| SearchError::Failed(e.to_string().trim().to_owned()))?;
    }
    RegexMatcherBuilder::new()
        .case_insensitive(request.ignore_case)
        .fixed_strings(request.literal)
        .line_terminator(Some(b'\n'))
        .ban_byte(Some(b'\0'))
        .build(&request.pattern)
        .map_err(|e| SearchError::Failed(e.to_string().trim().to_owned()))
}

/// rg's walk with `--hidden`: .gitignore (inside git repos only), .ignore, .rgignore, sorted.
fn build_walk(request: &SearchRequest) -> Result<ignore::Walk, SearchError> {
    let mut builder = WalkBuilder::new(&request.root);
    builder
        .hidden(false)
        .add_custom_ignore_filename(".rgignore")
        .sort_by_file_name(|a, b| a.cmp(b));
    if let Some(glob) = &request.glob {
        let mut overrides = OverrideBuilder::new(&request.glob_root);
        let built = overrides.add(glob).and_then(|o| o.build());
        let overrides = built.map_err(|e| SearchError::Failed(e.to_string()))?;
        builder.overrides(overrides);
    }
    Ok(builder.build())
}

/// The walker thread: numbers every searchable entry (and every walk error) in order.
fn walk_files(
    walk: ignore::Walk,
    jobs: &Sender<Job>,
    results: &Sender<(usize, FileResult)>,
    stop: &AtomicBool,
) {
    for (index, entry) in walk.filter_map(searchable).enumerate() {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let sent = match entry {
            Ok((path, explicit)) => jobs.send((index, path, explicit)).is_ok(),
            Err(message) => results.send((index, FileResult::Error(message))).is_ok(),
        };
        if !sent {
            return;
        }
    }
}

/// What rg does with one walk entry: search it (path, named explicitly?), report an error, or
/// skip it. Files are searched, and a root that is not a directory.
fn searchable(
    entry: Result<ignore::DirEntry, ignore::Error>,
) -> Option<Result<(PathBuf, bool), String>> {
    match entry {
        Ok(entry) => {
            let explicit = entry.depth() == 0;
            let is_file = entry.file_type().is_some_and(|t| t.is_file());
            let search = is_file || (explicit && !entry.path().is_dir());
            search.then(|| Ok((entry.into_path(), explicit)))
        }
        Err(error) => Some(Err(error.to_string())),
    }
}

/// A worker: searches files until the queue closes; after `stop`, only drains it.
fn search_files(
    matcher: &RegexMatcher,
    jobs: &Receiver<Job>,
    results: &Sender<(usize, FileResult)>,
    (cap, context): (usize, usize),
    stop: &AtomicBool,
    gate: FileGate<'_>,
) {
    let mut implicit = searcher(BinaryDetection::quit(b'\0'), context);
    let mut explicit = searcher(BinaryDetection::convert(b'\0'), context);
    for (index, path, is_explicit) in jobs {
        if stop.load(Ordering::Relaxed) {
            continue;
        }
        let result = if is_explicit {
            search_file(&mut explicit, matcher, &path, cap, stop, true, gate)
        } else {
            search_file(&mut implicit, matcher, &path, cap, stop, false, gate)
        };
        if results.send((index, result)).is_err() {
            return;
        }
    }
}

/// A line-numbering searcher with rg's binary handling (`quit` when walked, `convert` when named)
/// and `context` lines around matches (`rg --context`).
fn searcher(binary: BinaryDetection, context: usize) -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .binary_detection(binary)
        .before_context(context)
        .after_context(context)
        .build()
}

/// Searches one file, keeping at most `cap` matching lines.
///
/// A file named explicitly is searched as one slice, as rg does through a memory map for a few
/// explicit files: binary data is then only detected, never converted into line breaks.
///
/// The file is opened through `gate` (if any) and searched through that open file, so what is
/// searched is what the gate verified.
fn search_file(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    path: &Path,
    cap: usize,
    stop: &AtomicBool,
    whole: bool,
    gate: FileGate<'_>,
) -> FileResult {
    let mut file = match super::guard::open_file(gate, super::guard::NAME, path) {
        Ok(Searchable::File(file)) => file,
        Ok(Searchable::Secret) => return FileResult::Secret,
        Err(message) => return FileResult::Error(message),
    };
    let mut sink = Collect {
        lines: Vec::new(),
        matches: 0,
        cap,
        stop,
    };
    let searched = if whole {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .and_then(|_| searcher.search_slice(matcher, &bytes, &mut sink))
    } else {
        searcher.search_file(matcher, &file, &mut sink)
    };
    match searched {
        Ok(()) => FileResult::Matches(path.to_path_buf(), sink.lines),
        Err(error) => FileResult::Error(format!("{}: {error}", path.display())),
    }
}

/// Keeps matching and context lines until the per-file match cap or a global stop.
struct Collect<'a> {
    lines: Vec<Line>,
    matches: usize,
    cap: usize,
    stop: &'a AtomicBool,
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, found: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let line_number = found.line_number().unwrap_or_default();
        // A multi-line match is one event in rg's JSON; line mode gives one line per match.
        self.lines.push((line_number, found.bytes().to_vec(), true));
        self.matches += 1;
        Ok(self.matches < self.cap && !self.stop.load(Ordering::Relaxed))
    }

    fn context(&mut self, _searcher: &Searcher, line: &SinkContext<'_>) -> Result<bool, io::Error> {
        let line_number = line.line_number().unwrap_or_default();
        self.lines.push((line_number, line.bytes().to_vec(), false));
        Ok(!self.stop.load(Ordering::Relaxed))
    }
}

/// Puts results back into walk order and applies Pi 1.6's limit: after the `limit`-th match
/// only its trailing context is kept, and the notice needs proof of one more match. Stops then,
/// on cancellation, or at the end.
fn collect(
    results: &Receiver<(usize, FileResult)>,
    request: &SearchRequest,
    cancel: &CancellationToken,
) -> Result<SearchOutcome, SearchError> {
    let mut pending: BTreeMap<usize, FileResult> = BTreeMap::new();
    let mut next = 0;
    let mut errors = Vec::new();
    let mut shown = Shown::new(request.limit, request.context as u64);
    loop {
        if cancel.is_cancelled() {
            return Err(SearchError::Aborted);
        }
        let (index, result) = match results.recv_timeout(CANCEL_POLL) {
            Ok(received) => received,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        pending.insert(index, result);
        while let Some(result) = pending.remove(&next) {
            next += 1;
            let (path, lines) = match result {
                FileResult::Error(message) => {
                    errors.push(message);
                    continue;
                }
                FileResult::Secret => {
                    shown.secrets_skipped += 1;
                    continue;
                }
                FileResult::Matches(path, lines) => (path, lines),
            };
            for (line_number, bytes, is_match) in lines {
                let line = FoundLine {
                    path: path.clone(),
                    line_number,
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    is_match,
                };
                if shown.take(line) {
                    // rg is killed here, so errors seen so far do not fail the call.
                    return Ok(shown.outcome());
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(SearchError::Failed(errors.join("\n")));
    }
    Ok(shown.outcome())
}

/// Pi's line handler (`rl.on("line")`): which reported lines are shown, and when to stop.
struct Shown {
    limit: usize,
    context: u64,
    lines: Vec<FoundLine>,
    match_count: usize,
    /// Set at the last allowed match.
    limit_hit: bool,
    /// Its trailing context ends at this line of `last_file`.
    trailing_context_end: u64,
    last_file: Option<PathBuf>,
    /// A further match was seen.
    limit_reached: bool,
    /// Secret files skipped so far.
    secrets_skipped: usize,
}

impl Shown {
    fn new(limit: usize, context: u64) -> Self {
        Shown {
            limit,
            context,
            lines: Vec::new(),
            match_count: 0,
            limit_hit: false,
            trailing_context_end: 0,
            last_file: None,
            limit_reached: false,
            secrets_skipped: 0,
        }
    }

    /// Takes one reported line; `true` when the search is done.
    fn take(&mut self, line: FoundLine) -> bool {
        if !self.limit_hit {
            let (is_match, number) = (line.is_match, line.line_number);
            self.push(line);
            if is_match {
                self.match_count += 1;
                if self.match_count >= self.limit {
                    self.limit_hit = true;
                    self.trailing_context_end = number + self.context;
                }
            }
            return false;
        }
        let in_window = self.last_file.as_deref() == Some(line.path.as_path())
            && line.line_number <= self.trailing_context_end;
        let before_end = line.line_number < self.trailing_context_end;
        let is_match = line.is_match;
        // A match inside the last match's trailing context is shown as context.
        if in_window {
            self.push(FoundLine {
                is_match: false,
                ..line
            });
        }
        // Only another match proves that the limit cut results off.
        if is_match {
            self.limit_reached = true;
        }
        self.limit_reached && !(in_window && before_end)
    }

    fn push(&mut self, line: FoundLine) {
        self.last_file = Some(line.path.clone());
        self.lines.push(line);
    }

    fn outcome(self) -> SearchOutcome {
        SearchOutcome {
            lines: self.lines,
            match_count: self.match_count,
            limit_reached: self.limit_reached,
            secrets_skipped: self.secrets_skipped,
        }
    }
}
