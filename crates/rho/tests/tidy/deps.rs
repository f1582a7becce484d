//! The crate table of ARCHITECTURE.md against the manifests.

/// The table: its rows in order (bottom of the stack first) and what every crate may use.
#[derive(Debug, Default)]
pub struct Table {
    /// `(crate, may depend on)`, in table order.
    pub rows: Vec<(String, String)>,
    /// What the "Every crate may use" sentence allows everywhere.
    pub everywhere: String,
}

/// A crate and its normal dependencies.
#[derive(Debug)]
pub struct Manifest {
    pub name: String,
    pub dependencies: Vec<String>,
}

/// Reads the table under "## Crates and what may depend on what".
pub fn parse_table(markdown: &str) -> Table {
    let mut table = Table::default();
    let mut inside = false;
    for line in markdown.lines() {
        if line.starts_with("## ") {
            inside = line.contains("what may depend on what");
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(rest) = line.strip_prefix("Every crate may use") {
            table.everywhere = rest.to_owned();
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| `name` | job | may depend on |` splits into ["", name, job, deps, ""].
        if cells.len() < 5 {
            continue;
        }
        let name = cells[1].trim_matches('`');
        if name.starts_with("rho") && cells[1].starts_with('`') {
            table
                .rows
                .push((name.to_owned(), cells[cells.len() - 2].to_owned()));
        }
    }
    table
}

/// The package name and `[dependencies]` keys of a `Cargo.toml`.
pub fn read_manifest(text: &str) -> Manifest {
    let value: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("bad Cargo.toml: {e}"));
    let name = value
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(toml::Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let dependencies = value
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .map(|deps| deps.keys().cloned().collect())
        .unwrap_or_default();
    Manifest { name, dependencies }
}

/// Whether `cell` names `dependency`: as a whole word, in backticks or not.
fn names(cell: &str, dependency: &str) -> bool {
    cell.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '*'))
        .any(|word| {
            word == dependency
                || (word.ends_with('*') && dependency.starts_with(word.trim_end_matches('*')))
        })
}

/// Every disagreement between `table` and `crates`.
pub fn check(table: &Table, crates: &[Manifest]) -> Vec<String> {
    let mut problems = Vec::new();
    let position = |name: &str| table.rows.iter().position(|(row, _)| row == name);
    for krate in crates {
        let Some(at) = position(&krate.name) else {
            problems.push(format!("{} has no row in the table", krate.name));
            continue;
        };
        let allowed = &table.rows[at].1;
        for dependency in &krate.dependencies {
            if let Some(below) = position(dependency) {
                let all_above = allowed.contains("all of the above");
                if below > at {
                    problems.push(format!(
                        "{} depends on {dependency}, which is below it in the table",
                        krate.name
                    ));
                } else if !all_above
                    && !names(allowed, dependency)
                    && !names(&table.everywhere, dependency)
                {
                    problems.push(format!(
                        "{} depends on {dependency}, which its row does not allow",
                        krate.name
                    ));
                }
            } else if dependency.starts_with("rho") {
                problems.push(format!(
                    "{} depends on {dependency}, which has no row",
                    krate.name
                ));
            } else if !names(allowed, dependency) && !names(&table.everywhere, dependency) {
                problems.push(format!(
                    "{} depends on the crate {dependency}, which its row does not name",
                    krate.name
                ));
            }
        }
    }
    problems
}

#[test]
fn a_dependency_the_table_does_not_allow_is_reported() {
    let table = parse_table(
        "## Crates and what may depend on what\n\n| crate | job | may depend on |\n|---|---|---|\n\
         | `rho-ai` | m | serde |\n| `rho-agent` | l | `rho-ai`, jsonschema |\n\nEvery crate may use tokio.\n",
    );
    let crates = [
        Manifest {
            name: "rho-ai".into(),
            dependencies: vec!["rho-agent".into(), "serde".into(), "tokio".into()],
        },
        Manifest {
            name: "rho-agent".into(),
            dependencies: vec!["rho-ai".into(), "regex".into()],
        },
    ];
    assert_eq!(
        check(&table, &crates),
        [
            "rho-ai depends on rho-agent, which is below it in the table",
            "rho-agent depends on the crate regex, which its row does not name",
        ]
    );
}
