//! The order of the `/resume` list, as Pi's session selector arranges it: the named-only filter
//! (Ctrl+N), then one of Pi's three sorts (Ctrl+S cycles them). `Threaded` nests every fork under
//! the session it was forked from (the header's `parentSession`), newest first at each level,
//! while nothing is typed; with a query it ranks by the search as `Relevance` does. `Recent`
//! keeps the newest first and only filters.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::path::Path;

use super::SessionRow;

/// How the list is sorted (Pi's `sortMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortMode {
    /// Forks under their parent session, newest first at each level; by relevance while
    /// searching. Pi's default.
    #[default]
    Threaded,
    /// Newest first; a query only filters.
    Recent,
    /// Best match first (ties: newest first); newest first with no query.
    Relevance,
}

impl SortMode {
    /// The next mode Ctrl+S gives: threaded → recent → relevance → threaded.
    pub fn next(self) -> SortMode {
        match self {
            SortMode::Threaded => SortMode::Recent,
            SortMode::Recent => SortMode::Relevance,
            SortMode::Relevance => SortMode::Threaded,
        }
    }

    /// The header's `Sort:` value.
    pub fn label(self) -> &'static str {
        match self {
            SortMode::Threaded => "Threaded",
            SortMode::Recent => "Recent",
            SortMode::Relevance => "Fuzzy",
        }
    }

    /// Whether matches of a query go best first (`false`: they keep the list's order).
    pub fn ranks_matches(self) -> bool {
        self != SortMode::Recent
    }
}

/// Which sessions are listed (Pi's `nameFilter`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NameFilter {
    /// Every session.
    #[default]
    All,
    /// Only sessions that have a name.
    Named,
}

impl NameFilter {
    /// The other filter (Ctrl+N).
    pub fn toggled(self) -> NameFilter {
        match self {
            NameFilter::All => NameFilter::Named,
            NameFilter::Named => NameFilter::All,
        }
    }

    /// The header's `Name:` value.
    pub fn label(self) -> &'static str {
        match self {
            NameFilter::All => "All",
            NameFilter::Named => "Named",
        }
    }

    fn admits(self, row: &SessionRow) -> bool {
        match self {
            NameFilter::All => true,
            NameFilter::Named => row.name.as_deref().is_some_and(|n| !n.trim().is_empty()),
        }
    }
}

/// One listed session: its index in the rows given to [`arrange`] and the tree drawing before
/// its text (`""` unless threaded: `   ├─ `, `│  └─ `, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arranged {
    /// The row's index.
    pub row: usize,
    /// The tree lines drawn before it.
    pub prefix: String,
}

/// The rows `names` admits, in the order `sort` lists them before a query narrows them
/// (`searching`: a query is typed, which flattens the threaded tree).
pub fn arrange(
    rows: &[SessionRow],
    sort: SortMode,
    names: NameFilter,
    searching: bool,
) -> Vec<Arranged> {
    let mut admitted: Vec<usize> = (0..rows.len())
        .filter(|&i| names.admits(&rows[i]))
        .collect();
    // Stable: sessions of the same time keep the order they were listed in.
    admitted.sort_by_key(|&i| Reverse(rows[i].modified));
    if sort == SortMode::Threaded && !searching {
        return threaded(rows, &admitted);
    }
    admitted
        .into_iter()
        .map(|row| Arranged {
            row,
            prefix: String::new(),
        })
        .collect()
}

/// `admitted` (newest first) as Pi's session tree: a session whose parent is listed goes under
/// it, the rest are roots; depth first.
fn threaded(rows: &[SessionRow], admitted: &[usize]) -> Vec<Arranged> {
    let by_path: HashMap<&Path, usize> = admitted
        .iter()
        .map(|&i| (rows[i].path.as_path(), i))
        .collect();
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for &i in admitted {
        let parent = rows[i]
            .parent
            .as_deref()
            .and_then(|p| by_path.get(p))
            .filter(|&&p| p != i);
        match parent {
            Some(&p) => children.entry(p).or_default().push(i),
            None => roots.push(i),
        }
    }
    let mut out = Vec::with_capacity(admitted.len());
    let mut seen = vec![false; rows.len()];
    let count = roots.len();
    for (n, &root) in roots.iter().enumerate() {
        walk(root, &[], n + 1 == count, &children, &mut seen, &mut out);
    }
    // Sessions whose parents form a cycle have no root: list them at the top level.
    for &i in admitted {
        if !seen[i] {
            walk(i, &[], true, &children, &mut seen, &mut out);
        }
    }
    out
}

/// Lists `node` and, under it, its children. `ancestors` says, for each level above, whether
/// a line continues down past this row (a root's never does, as Pi draws it).
fn walk(
    node: usize,
    ancestors: &[bool],
    last: bool,
    children: &HashMap<usize, Vec<usize>>,
    seen: &mut [bool],
    out: &mut Vec<Arranged>,
) {
    if std::mem::replace(&mut seen[node], true) {
        return;
    }
    let depth = ancestors.len();
    let prefix = if depth == 0 {
        String::new()
    } else {
        let mut prefix: String = ancestors
            .iter()
            .map(|&continues| if continues { "│  " } else { "   " })
            .collect();
        prefix.push_str(if last { "└─ " } else { "├─ " });
        prefix
    };
    out.push(Arranged { row: node, prefix });
    let Some(kids) = children.get(&node) else {
        return;
    };
    let mut below = ancestors.to_vec();
    below.push(depth > 0 && !last);
    for (n, &kid) in kids.iter().enumerate() {
        walk(kid, &below, n + 1 == kids.len(), children, seen, out);
    }
}
