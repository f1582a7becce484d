//! The `hooks` of `settings.json`, in Claude Code's shape: per event, matcher groups of
//! command hooks. Invalid parts are named in warnings and skipped; the rest apply.

use std::collections::BTreeMap;
use std::time::Duration;

use regex::Regex;
use serde_json::Value;

use super::event::{HookEvent, claude_names};

/// How long a hook may run when it says nothing (Claude Code: 60 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// What a hook that fails (an exit code other than 0 and 2, a timeout, output that is not the
/// JSON it should be) means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnError {
    /// The failure is reported and changes nothing.
    #[default]
    Continue,
    /// The failure blocks, as exit code 2 would.
    Block,
}

/// One command hook.
#[derive(Clone, Debug, PartialEq)]
pub struct HookCommand {
    /// Run with `sh -c`.
    pub command: String,
    /// Killed (its process group) after this long.
    pub timeout: Duration,
    /// What a failure means.
    pub on_error: OnError,
}

/// Which calls a matcher group applies to.
#[derive(Clone, Debug)]
enum Matcher {
    /// No matcher, `""` or `"*"`.
    All,
    /// A regular expression that must match a whole name.
    Pattern(Regex),
}

impl Matcher {
    fn matches(&self, subjects: &[&str]) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Pattern(regex) => subjects.iter().any(|s| regex.is_match(s)),
        }
    }
}

#[derive(Clone, Debug)]
struct Group {
    matcher: Matcher,
    hooks: Vec<HookCommand>,
}

/// Every configured hook, by event, in configuration order.
#[derive(Clone, Debug, Default)]
pub struct HooksConfig {
    groups: BTreeMap<HookEvent, Vec<Group>>,
}

impl HooksConfig {
    /// Reads the `hooks` object of the merged settings; the warnings name what was skipped.
    pub fn parse(value: &Value) -> (HooksConfig, Vec<String>) {
        let mut config = HooksConfig::default();
        let mut warnings = Vec::new();
        let Some(events) = value.as_object() else {
            warnings.push("settings: \"hooks\" must be an object of events; ignored".to_owned());
            return (config, warnings);
        };
        for (name, groups) in events {
            let Some(event) = HookEvent::from_name(name) else {
                let known: Vec<&str> = HookEvent::ALL.iter().map(|e| e.name()).collect();
                warnings.push(format!(
                    "settings: hooks.{name} is not an event rho runs ({}); ignored",
                    known.join(", ")
                ));
                continue;
            };
            let Some(groups) = groups.as_array() else {
                warnings.push(format!(
                    "settings: hooks.{name} must be an array of matcher groups; ignored"
                ));
                continue;
            };
            for (index, group) in groups.iter().enumerate() {
                let at = format!("hooks.{name}[{index}]");
                match parse_group(group, &at, &mut warnings) {
                    Some(group) => config.groups.entry(event).or_default().push(group),
                    None => continue,
                }
            }
        }
        (config, warnings)
    }

    /// Whether no hook is configured.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Whether some hook runs on `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.groups.contains_key(&event)
    }

    /// The hooks of `event` whose matcher matches `subject` (a tool's name, matched also by
    /// Claude Code's names of it; a source or trigger for other events), in configuration
    /// order, each command once.
    pub fn matching(&self, event: HookEvent, subject: &str) -> Vec<HookCommand> {
        let mut subjects = vec![subject];
        if event.matches_tools() {
            subjects.extend_from_slice(claude_names(subject));
        }
        let mut found: Vec<HookCommand> = Vec::new();
        for group in self.groups.get(&event).into_iter().flatten() {
            if !group.matcher.matches(&subjects) {
                continue;
            }
            for hook in &group.hooks {
                if !found.iter().any(|h| h.command == hook.command) {
                    found.push(hook.clone());
                }
            }
        }
        found
    }
}

fn parse_group(group: &Value, at: &str, warnings: &mut Vec<String>) -> Option<Group> {
    let Some(group) = group.as_object() else {
        warnings.push(format!("settings: {at} must be an object; ignored"));
        return None;
    };
    let matcher = match group.get("matcher") {
        None | Some(Value::Null) => Matcher::All,
        Some(Value::String(text)) if text.is_empty() || text == "*" => Matcher::All,
        Some(Value::String(text)) => match Regex::new(&format!("^(?:{text})$")) {
            Ok(regex) => Matcher::Pattern(regex),
            Err(error) => {
                // The parser's message spans lines (the pattern, a caret, the error): its last.
                let message = error.to_string();
                let why = message.lines().map(str::trim).rfind(|l| !l.is_empty());
                warnings.push(format!(
                    "settings: {at}.matcher {text:?} is not a regular expression ({}); ignored",
                    why.unwrap_or("invalid")
                ));
                return None;
            }
        },
        Some(_) => {
            warnings.push(format!("settings: {at}.matcher must be a string; ignored"));
            return None;
        }
    };
    let Some(hooks) = group.get("hooks").and_then(Value::as_array) else {
        warnings.push(format!(
            "settings: {at}.hooks must be an array of hooks; ignored"
        ));
        return None;
    };
    let hooks: Vec<HookCommand> = hooks
        .iter()
        .enumerate()
        .filter_map(|(i, hook)| parse_hook(hook, &format!("{at}.hooks[{i}]"), warnings))
        .collect();
    (!hooks.is_empty()).then_some(Group { matcher, hooks })
}

fn parse_hook(hook: &Value, at: &str, warnings: &mut Vec<String>) -> Option<HookCommand> {
    let Some(hook) = hook.as_object() else {
        warnings.push(format!("settings: {at} must be an object; ignored"));
        return None;
    };
    match hook.get("type").and_then(Value::as_str) {
        Some("command") => {}
        Some(other) => {
            warnings.push(format!(
                "settings: {at} has type {other:?}; rho runs only \"command\" hooks; ignored"
            ));
            return None;
        }
        None => {
            warnings.push(format!(
                "settings: {at} needs \"type\": \"command\"; ignored"
            ));
            return None;
        }
    }
    let Some(command) = hook
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
    else {
        warnings.push(format!("settings: {at} needs a \"command\"; ignored"));
        return None;
    };
    let timeout = match hook.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        Some(value) => match value.as_f64() {
            Some(seconds) if seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0 => {
                Duration::from_secs_f64(seconds)
            }
            _ => {
                warnings.push(format!(
                    "settings: {at}.timeout must be seconds above 0 (at most a day); ignored"
                ));
                return None;
            }
        },
    };
    let on_error = match hook.get("onError").and_then(Value::as_str) {
        None => OnError::Continue,
        Some("continue") => OnError::Continue,
        Some("block") => OnError::Block,
        Some(other) => {
            warnings.push(format!(
                "settings: {at}.onError is {other:?}, not \"continue\" or \"block\"; ignored"
            ));
            return None;
        }
    };
    Some(HookCommand {
        command: command.to_owned(),
        timeout,
        on_error,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn commands(config: &HooksConfig, event: HookEvent, subject: &str) -> Vec<String> {
        config
            .matching(event, subject)
            .into_iter()
            .map(|h| h.command)
            .collect()
    }

    #[test]
    fn matchers_are_whole_name_patterns_over_rho_and_claude_names() {
        let (config, warnings) = HooksConfig::parse(&json!({
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "claude-bash"}]},
                {"matcher": "write|edit", "hooks": [{"type": "command", "command": "files"}]},
                {"matcher": "mcp__github__.*", "hooks": [{"type": "command", "command": "gh"}]},
                {"hooks": [{"type": "command", "command": "all"}, {"type": "command", "command": "files"}]}
            ]
        }));
        assert_eq!(warnings, Vec::<String>::new());
        assert_eq!(
            commands(&config, HookEvent::PreToolUse, "bash"),
            ["claude-bash", "all", "files"]
        );
        assert_eq!(
            commands(&config, HookEvent::PreToolUse, "edit"),
            ["files", "all"]
        );
        // A command named twice runs once, where it is first named; `Bash` does not match
        // `bashful`.
        assert_eq!(
            commands(&config, HookEvent::PreToolUse, "mcp__github__create_issue"),
            ["gh", "all", "files"]
        );
        assert_eq!(
            commands(&config, HookEvent::PreToolUse, "bashful"),
            ["all", "files"]
        );
        assert!(commands(&config, HookEvent::PostToolUse, "bash").is_empty());
        assert!(config.has(HookEvent::PreToolUse) && !config.has(HookEvent::Stop));
    }

    #[test]
    fn invalid_parts_are_named_and_skipped() {
        let (config, warnings) = HooksConfig::parse(&json!({
            "PreToolUse": [
                {"matcher": "(", "hooks": [{"type": "command", "command": "a"}]},
                {"hooks": [
                    {"type": "prompt", "prompt": "x"},
                    {"type": "command", "command": "b", "timeout": -1},
                    {"type": "command", "command": "c", "onError": "panic"},
                    {"type": "command", "command": "d", "timeout": 2.5, "onError": "block"}
                ]}
            ],
            "BeforeEverything": [],
            "Stop": {}
        }));
        assert_eq!(warnings.len(), 6, "{warnings:#?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("hooks.BeforeEverything is not an event"))
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("hooks.PreToolUse[0].matcher \"(\""))
        );
        assert_eq!(
            config.matching(HookEvent::PreToolUse, "read"),
            [HookCommand {
                command: "d".to_owned(),
                timeout: Duration::from_millis(2500),
                on_error: OnError::Block,
            }]
        );
    }
}
