//! Which tools a session starts with, as Pi 1.6 picks them (`dist/core/settings-manager.js`,
//! `dist/core/sdk.js`): the `defaultTools` setting, `--tools` (an allowlist of names and `*`
//! patterns, or a list of only `+name`/`-name` entries that edits the defaults) and
//! `--exclude-tools` (a denylist of names and patterns, applied last).

use crate::toolset::DEFAULT_TOOLS;

/// Whether a tool list entry is a `+name` or `-name` modifier.
pub fn is_tool_modifier(entry: &str) -> bool {
    entry.starts_with('+') || entry.starts_with('-')
}

/// Pi's `getToolListError`: a list is either plain names and patterns, or only `+name`/`-name`
/// entries with exact names. The problem, in Pi's words, or `None` when the list is valid.
pub fn tool_list_error(entries: &[String]) -> Option<String> {
    let modifiers: Vec<&String> = entries.iter().filter(|e| is_tool_modifier(e)).collect();
    if modifiers.is_empty() {
        return None;
    }
    if modifiers.len() < entries.len() {
        return Some("tool names cannot be mixed with +name or -name entries".to_owned());
    }
    modifiers
        .iter()
        .find(|entry| entry.contains('*'))
        .map(|pattern| {
            format!("+name and -name entries take exact tool names, not patterns: {pattern}")
        })
}

/// Pi's `applyToolModifiers`: in order, `+name` appends a tool that is not there yet and
/// `-name` removes one; other entries are ignored.
pub fn apply_tool_modifiers(base: &[String], entries: &[String]) -> Vec<String> {
    let mut tools = base.to_vec();
    for entry in entries {
        let Some(name) = entry.get(1..) else { continue };
        let index = tools.iter().position(|tool| tool == name);
        match (entry.as_bytes().first(), index) {
            (Some(b'+'), None) if !name.is_empty() => tools.push(name.to_owned()),
            (Some(b'-'), Some(index)) => {
                tools.remove(index);
            }
            _ => {}
        }
    }
    tools
}

/// Pi's `resolveDefaultTools`: the plain names of a (merged) `defaultTools` list replace Pi's
/// default set, then its `+name`/`-name` entries apply in order.
pub fn resolve_default_tools(entries: &[String]) -> Vec<String> {
    let plain: Vec<String> = entries
        .iter()
        .filter(|entry| !is_tool_modifier(entry))
        .cloned()
        .collect();
    let base = if plain.is_empty() && !entries.is_empty() {
        DEFAULT_TOOLS.map(str::to_owned).to_vec()
    } else {
        plain
    };
    apply_tool_modifiers(&base, entries)
}

/// Pi's `createToolNameMatcher`: an entry with `*` is a pattern, any other an exact name.
pub fn matches_tool(entries: &[String], name: &str) -> bool {
    entries.iter().any(|entry| {
        if entry.contains('*') {
            rho_stdx::text::wildcard_match(entry, name)
        } else {
            entry == name
        }
    })
}

/// What chooses the tools of a session.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToolChoice<'a> {
    /// The resolved `defaultTools` setting (`None`: Pi's default set).
    pub defaults: Option<&'a [String]>,
    /// `--tools`, split, trimmed and without empty entries.
    pub tools: Option<&'a [String]>,
    /// `--no-tools` or `--no-builtin-tools`: no default tools.
    pub no_tools: bool,
    /// `--exclude-tools`.
    pub exclude: Option<&'a [String]>,
}

impl ToolChoice<'_> {
    /// The active tool names among `available`: the defaults, or the `--tools` allowlist with its
    /// patterns expanded in `available`'s order, or the defaults edited by `--tools`' `±`
    /// entries; then without the excluded ones. Unknown names are dropped (Pi ignores them).
    pub fn select(&self, available: &[&str]) -> Vec<String> {
        let defaults: Vec<String> = if self.no_tools {
            Vec::new()
        } else {
            match self.defaults {
                Some(defaults) => defaults.to_vec(),
                None => DEFAULT_TOOLS.map(str::to_owned).to_vec(),
            }
        };
        let wanted = match self.tools {
            Some(tools) if tools.iter().any(|entry| is_tool_modifier(entry)) => {
                apply_tool_modifiers(&defaults, tools)
            }
            Some(tools) => tools.to_vec(),
            None => defaults,
        };
        let mut chosen: Vec<String> = Vec::new();
        for entry in &wanted {
            let matching: Vec<&str> = if entry.contains('*') {
                available
                    .iter()
                    .copied()
                    .filter(|name| rho_stdx::text::wildcard_match(entry, name))
                    .collect()
            } else {
                available
                    .iter()
                    .copied()
                    .filter(|name| name == entry)
                    .collect()
            };
            for name in matching {
                if !chosen.iter().any(|chosen| chosen == name) {
                    chosen.push(name.to_owned());
                }
            }
        }
        if let Some(exclude) = self.exclude {
            chosen.retain(|name| !matches_tool(exclude, name));
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolset::BUILTIN_TOOLS;

    fn list(entries: &[&str]) -> Vec<String> {
        entries.iter().map(|entry| (*entry).to_owned()).collect()
    }

    fn select(choice: ToolChoice<'_>) -> Vec<String> {
        choice.select(&BUILTIN_TOOLS)
    }

    #[test]
    fn modifiers_edit_the_defaults_and_plain_lists_replace_them() {
        let plus = list(&["+grep", "-write"]);
        let tools = ToolChoice {
            tools: Some(&plus),
            ..ToolChoice::default()
        };
        assert_eq!(select(tools), ["read", "bash", "edit", "grep"]);
        let plain = list(&["read", "gr*", "nope"]);
        let tools = ToolChoice {
            tools: Some(&plain),
            ..ToolChoice::default()
        };
        assert_eq!(select(tools), ["read", "grep"]);
        let exclude = list(&["write", "e*"]);
        let excluded = ToolChoice {
            exclude: Some(&exclude),
            ..ToolChoice::default()
        };
        assert_eq!(select(excluded), ["read", "bash"]);
        let all = list(&["*"]);
        let everything = ToolChoice {
            tools: Some(&all),
            no_tools: true,
            ..ToolChoice::default()
        };
        assert_eq!(select(everything), BUILTIN_TOOLS);
        let nothing = ToolChoice {
            no_tools: true,
            ..ToolChoice::default()
        };
        assert!(select(nothing).is_empty());
        let defaults = list(&["read", "ls"]);
        let plus_bash = list(&["+bash"]);
        let from_settings = ToolChoice {
            defaults: Some(&defaults),
            tools: Some(&plus_bash),
            ..ToolChoice::default()
        };
        assert_eq!(select(from_settings), ["read", "ls", "bash"]);
    }

    #[test]
    fn list_errors_use_pis_words() {
        assert_eq!(
            tool_list_error(&list(&["read", "+grep"])).as_deref(),
            Some("tool names cannot be mixed with +name or -name entries")
        );
        assert_eq!(
            tool_list_error(&list(&["+gr*"])).as_deref(),
            Some("+name and -name entries take exact tool names, not patterns: +gr*")
        );
        assert_eq!(tool_list_error(&list(&["read", "gr*"])), None);
        assert_eq!(tool_list_error(&list(&["+grep", "-read"])), None);
    }

    #[test]
    fn default_tools_setting_resolves_like_pis() {
        assert_eq!(
            resolve_default_tools(&list(&["+ls", "-bash"])),
            ["read", "edit", "write", "ls"]
        );
        assert_eq!(
            resolve_default_tools(&list(&["read", "+grep"])),
            ["read", "grep"]
        );
        assert!(resolve_default_tools(&[]).is_empty());
    }
}
