//! File-level import cycles inside a crate: `use crate::…`, `super::…`, `self::…` (and the same
//! paths written inline) resolved to the files that define the modules they name.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A module path (`session::events`; the crate root is the empty string).
type Module = String;

/// Every `.rs` file under `src`.
pub fn rust_files(src: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The module a file defines: `lib.rs`/`main.rs` → root, `a.rs` and `a/mod.rs` → `a`.
fn module_of(src: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The import graph of the files under `src`: module → modules it imports from.
pub fn import_graph(src: &Path, files: &[PathBuf]) -> BTreeMap<Module, BTreeSet<Module>> {
    let texts: Vec<(Module, String)> = files
        .iter()
        .map(|file| {
            (
                module_of(src, file),
                code_only(&std::fs::read_to_string(file).unwrap_or_default()),
            )
        })
        .collect();
    let modules: BTreeSet<Module> = texts.iter().map(|(m, _)| m.clone()).collect();
    let reexports = texts
        .iter()
        .find(|(m, _)| m.is_empty())
        .map(|(_, root)| root_reexports(root))
        .unwrap_or_default();
    let mut graph = BTreeMap::new();
    for (module, text) in &texts {
        let mut targets = BTreeSet::new();
        for path in paths_in(text) {
            if let Some(target) = resolve(module, &path, &modules, &reexports)
                && target != *module
                && !target.is_empty()
            {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The text without comments (doc links name paths that are not imports) and without an inline
/// `#[cfg(test)] mod tests { … }` at the end (its `super` is the file itself).
fn code_only(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::`/`super::`/`self::` path in `text`, `use` trees expanded.
fn paths_in(text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("use ") {
        let before_ok = at == 0
            || !rest.as_bytes()[at - 1].is_ascii_alphanumeric() && rest.as_bytes()[at - 1] != b'_';
        let after = &rest[at + 4..];
        let end = after.find(';').unwrap_or(after.len());
        if before_ok {
            for path in expand(after[..end].trim()) {
                paths.push(path);
            }
        }
        rest = &after[end.min(after.len())..];
    }
    // Inline paths such as `crate::session::lock(...)`.
    for (i, _) in text.match_indices("::") {
        let start = text[..i]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(0, |s| s + 1);
        let end = text[i..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(text.len(), |e| i + e);
        let whole = &text[start..end];
        if whole.starts_with("crate::")
            || whole.starts_with("super::")
            || whole.starts_with("self::")
        {
            paths.push(
                whole
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    paths
}

/// `a::{b::C, d}` → `[a, b, C]`, `[a, d]`.
fn expand(tree: &str) -> Vec<Vec<String>> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![
            tree.split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        ];
    };
    let prefix: Vec<String> = tree[..open]
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let inner = tree[open + 1..]
        .strip_suffix('}')
        .unwrap_or(&tree[open + 1..]);
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[from..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(expand)
        .map(|tail| prefix.iter().cloned().chain(tail).collect())
        .collect()
}

/// `pub use module::{Item, …}` in the crate root: item → module.
fn root_reexports(root: &str) -> HashMap<String, Module> {
    let mut map = HashMap::new();
    for line in root.split(';') {
        let Some(at) = line.find("pub use ") else {
            continue;
        };
        for path in expand(line[at + 8..].trim()) {
            if path.len() >= 2 && !path[0].starts_with("rho_") {
                let item = path[path.len() - 1].clone();
                map.insert(item, path[..path.len() - 1].join("::"));
            }
        }
    }
    map
}

/// The module `path` (written in `from`) imports from, if it is one of this crate's files.
fn resolve(
    from: &str,
    path: &[String],
    modules: &BTreeSet<Module>,
    reexports: &HashMap<String, Module>,
) -> Option<Module> {
    let mut base: Vec<String> = if from.is_empty() {
        Vec::new()
    } else {
        from.split("::").map(str::to_owned).collect()
    };
    let mut segments = path.iter().peekable();
    match segments.next().map(String::as_str) {
        Some("crate") => base.clear(),
        Some("self") => {}
        Some("super") => {
            base.pop();
            while segments.peek().is_some_and(|s| *s == "super") {
                segments.next();
                base.pop();
            }
        }
        _ => return None,
    }
    let rest: Vec<&String> = segments.collect();
    let mut best = base.join("::");
    let mut current = base.clone();
    for segment in &rest {
        current.push((*segment).clone());
        let candidate = current.join("::");
        if modules.contains(&candidate) {
            best = candidate;
        } else {
            break;
        }
    }
    if best.is_empty()
        && let Some(first) = rest.first()
    {
        return reexports.get(*first).cloned();
    }
    Some(best)
}

/// The strongly connected components with more than one module (Tarjan), each sorted.
pub fn find_cycles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: HashMap<&'g str, usize>,
        low: HashMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        next: usize,
        cycles: Vec<Vec<Module>>,
    }
    fn visit<'g>(state: &mut State<'g>, node: &'g str) {
        state.index.insert(node, state.next);
        state.low.insert(node, state.next);
        state.next += 1;
        state.stack.push(node);
        state.on_stack.insert(node);
        for target in state.graph.get(node).into_iter().flatten() {
            let target = target.as_str();
            if !state.graph.contains_key(target) {
                continue;
            }
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[target].min(state.low[node]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.index[target].min(state.low[node]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.cycles.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        cycles: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.cycles
}

#[test]
fn a_file_importing_back_is_a_cycle_and_a_layered_crate_is_not() {
    let modules: BTreeSet<Module> = ["", "session", "retry", "session::events"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    let reexports = root_reexports("pub use session::{AgentSession};");
    let edges = |from: &str, text: &str| -> BTreeSet<Module> {
        paths_in(&code_only(text))
            .iter()
            .filter_map(|p| resolve(from, p, &modules, &reexports))
            .filter(|t| t != from && !t.is_empty())
            .collect()
    };
    let mut graph = BTreeMap::new();
    graph.insert(
        "session".to_owned(),
        edges("session", "use crate::retry::Retry; use self::events::X;"),
    );
    graph.insert(
        "retry".to_owned(),
        edges("retry", "use crate::{session::events::Y, AgentSession};"),
    );
    graph.insert("session::events".to_owned(), BTreeSet::new());
    assert_eq!(
        find_cycles(&graph),
        [vec!["retry".to_owned(), "session".to_owned()]]
    );
    graph.insert(
        "retry".to_owned(),
        edges("retry", "use crate::session::events::Y; // crate::session"),
    );
    assert!(find_cycles(&graph).is_empty());
}
