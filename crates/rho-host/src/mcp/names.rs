//! The model's names of MCP tools, stable for the session (Pi 1.6's `registerTools`): a tool
//! keeps its name across reconnections; a name another tool holds, or that two tools of one
//! server would share once sanitized, gets the hash suffix — all of the sharing tools, so which
//! one keeps the plain name never depends on the order of a list.

use std::collections::HashMap;

use rho_mcp::naming::tool_name;

/// The names given so far: model name → `server\0tool`.
#[derive(Default)]
pub(super) struct Names {
    owners: HashMap<String, String>,
    /// The names each server's last listing got.
    by_server: HashMap<String, Vec<String>>,
}

/// One server's listing, named.
pub(super) struct Assigned {
    /// The model's name of each listed tool, in order.
    pub names: Vec<String>,
    /// Names the server had and no longer lists.
    pub withdrawn: Vec<String>,
}

impl Names {
    /// Names `server`'s `tools` (original MCP names, in listing order).
    pub(super) fn assign(&mut self, server: &str, tools: &[String]) -> Assigned {
        let mut unique: Vec<&String> = Vec::new();
        for tool in tools {
            if !unique.contains(&tool) {
                unique.push(tool);
            }
        }
        let plain: Vec<String> = unique
            .iter()
            .map(|t| tool_name(server, t, |_| false))
            .collect();
        let mut current: Vec<String> = Vec::new();
        let mut names = Vec::with_capacity(tools.len());
        for tool in tools {
            let owner = format!("{server}\0{tool}");
            let name = tool_name(server, tool, |candidate| {
                let held_by_other = self
                    .owners
                    .get(candidate)
                    .is_some_and(|existing| *existing != owner);
                let shared = plain.iter().filter(|p| *p == candidate).count() > 1;
                held_by_other || current.iter().any(|c| c == candidate) || shared
            });
            self.owners.insert(name.clone(), owner);
            current.push(name.clone());
            names.push(name);
        }
        let previous = self
            .by_server
            .insert(server.to_owned(), names.clone())
            .unwrap_or_default();
        let withdrawn = previous
            .into_iter()
            .filter(|n| !names.contains(n))
            .collect();
        Assigned { names, withdrawn }
    }

    /// The names `server`'s last listing got, in its order.
    pub(super) fn current(&self, server: &str) -> Vec<String> {
        self.by_server.get(server).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn names_collide_into_hashes_and_stay_stable_across_listings() {
        let mut names = Names::default();
        let first = names.assign("demo", &list(&["read-file", "read_file", "echo"]));
        assert_eq!(
            first.names,
            [
                "mcp__demo__read_file_9298e1df",
                "mcp__demo__read_file_0521a660",
                "mcp__demo__echo"
            ]
        );
        let again = names.assign("demo", &list(&["echo", "added"]));
        assert_eq!(again.names, ["mcp__demo__echo", "mcp__demo__added"]);
        assert_eq!(
            again.withdrawn,
            [
                "mcp__demo__read_file_9298e1df",
                "mcp__demo__read_file_0521a660"
            ]
        );
        // Another server whose tool sanitizes to a held name gets the hash.
        let other = names.assign("demo", &list(&["echo"]));
        assert_eq!(other.names, ["mcp__demo__echo"]);
    }
}
