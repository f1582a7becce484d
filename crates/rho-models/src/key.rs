//! API keys and the resolution of configured values (Pi 1.6's `resolveConfigValue`):
//! `!command`, or a template with `$NAME` / `${NAME}` references, literal otherwise.

use std::fmt;

use serde_json::{Map, Value};

use crate::command::run_config_command;
use crate::env::Environment;
use crate::error::KeyError;

/// A secret: an API key or a header value that may carry one.
///
/// `Debug` and `Display` print `***`, so a key inside any logged or formatted value stays hidden.
/// Read the real value with [`ApiKey::expose`] only where it goes on the wire.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        ApiKey(secret.into())
    }

    /// The secret itself, for the request that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Variables a value is resolved with before the process environment: the `env` object of an
/// `auth.json` entry (Pi 0.79.5).
#[derive(Clone, Copy, Debug, Default)]
pub struct EnvOverrides<'a>(Option<&'a Map<String, Value>>);

impl<'a> EnvOverrides<'a> {
    /// No overrides: the process environment alone.
    pub const NONE: EnvOverrides<'static> = EnvOverrides(None);

    /// The string values of an `env` object (others are ignored).
    pub fn from_object(object: Option<&'a Map<String, Value>>) -> Self {
        EnvOverrides(object)
    }

    /// Pi's `env[NAME] || process.env[NAME]`: an empty value counts as unset.
    fn var(&self, name: &str, env: &dyn Environment) -> Option<String> {
        self.0
            .and_then(|object| object.get(name))
            .and_then(Value::as_str)
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
            .or_else(|| env.non_empty_var(name))
    }
}

/// One piece of a template value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var(String),
}

/// A configured value, read once.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ConfigValue<'a> {
    /// `!command`: the command's trimmed output.
    Command(&'a str),
    /// Literal text with variable references.
    Template(Vec<Part>),
}

impl<'a> ConfigValue<'a> {
    fn parse(raw: &'a str) -> Self {
        match raw.strip_prefix('!') {
            Some(command) => ConfigValue::Command(command),
            None => ConfigValue::Template(parse_template(raw)),
        }
    }

    /// The variables the value names, each once, in order of appearance.
    fn var_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        if let ConfigValue::Template(parts) = self {
            for part in parts {
                if let Part::Var(name) = part
                    && !names.contains(&name.as_str())
                {
                    names.push(name);
                }
            }
        }
        names
    }
}

/// Pi's `parseConfigValueTemplate`: `$$` → `$`, `$!` → `!`, `${NAME}` and `$NAME` (longest
/// name) are references; `${…}` with a bad name, an unclosed `${` and a lone `$` are literal.
fn parse_template(text: &str) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    let literal = |parts: &mut Vec<Part>, value: &str| {
        if value.is_empty() {
            return;
        }
        match parts.last_mut() {
            Some(Part::Literal(previous)) => previous.push_str(value),
            _ => parts.push(Part::Literal(value.to_owned())),
        }
    };
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        literal(&mut parts, &rest[..dollar]);
        let after = &rest[dollar + 1..];
        if let Some(escaped @ ('$' | '!')) = after.chars().next() {
            literal(&mut parts, if escaped == '$' { "$" } else { "!" });
            rest = &after[1..];
            continue;
        }
        if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => {
                    let name = &braced[..end];
                    if is_var_name(name) {
                        parts.push(Part::Var(name.to_owned()));
                    } else {
                        literal(&mut parts, &rest[dollar..dollar + 3 + end]);
                    }
                    rest = &braced[end + 1..];
                }
                None => {
                    literal(&mut parts, "$");
                    rest = after;
                }
            }
            continue;
        }
        let name_len = var_name_prefix_len(after);
        if name_len > 0 {
            parts.push(Part::Var(after[..name_len].to_owned()));
            rest = &after[name_len..];
        } else {
            literal(&mut parts, "$");
            rest = after;
        }
    }
    literal(&mut parts, rest);
    parts
}

/// `[A-Za-z_][A-Za-z0-9_]*`, whole.
fn is_var_name(name: &str) -> bool {
    !name.is_empty() && var_name_prefix_len(name) == name.len()
}

/// The length of the longest `[A-Za-z_][A-Za-z0-9_]*` prefix.
fn var_name_prefix_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(first) if first.is_ascii_alphabetic() || *first == b'_' => bytes
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .unwrap_or(bytes.len()),
        _ => 0,
    }
}

/// Resolves a configured value the way Pi 1.6 does (`resolveConfigValue`):
/// `!command` → the command's trimmed standard output (`None` when it fails, times out or prints
/// nothing); otherwise the text with every `$NAME` / `${NAME}` replaced by the variable's value,
/// `None` when any of them is unset or empty. A plain string is itself: since Pi 0.79.4 a value
/// is no longer read as the name of a variable.
pub fn resolve_config_value(raw: &str, env: &dyn Environment) -> Option<ApiKey> {
    resolve_with(raw, env, EnvOverrides::NONE)
}

/// [`resolve_config_value`] with variables looked up in `overrides` first.
pub fn resolve_with(
    raw: &str,
    env: &dyn Environment,
    overrides: EnvOverrides<'_>,
) -> Option<ApiKey> {
    match ConfigValue::parse(raw) {
        ConfigValue::Command(command) => run_config_command(command).map(ApiKey::new),
        ConfigValue::Template(parts) => {
            let mut resolved = String::new();
            for part in parts {
                match part {
                    Part::Literal(text) => resolved.push_str(&text),
                    Part::Var(name) => resolved.push_str(&overrides.var(&name, env)?),
                }
            }
            Some(ApiKey::new(resolved))
        }
    }
}

/// Whether the value can be resolved without running anything: a command counts as configured,
/// a template when every variable it names is set (Pi's `isConfigValueConfigured`).
pub fn is_config_value_configured(
    raw: &str,
    env: &dyn Environment,
    overrides: EnvOverrides<'_>,
) -> bool {
    ConfigValue::parse(raw)
        .var_names()
        .iter()
        .all(|name| overrides.var(name, env).is_some())
}

/// Pi's `resolveConfigValueOrThrow`: the value, or an error naming the failed command or the
/// missing variables; `description` says what was resolved (`API key for provider "x"`).
pub fn resolve_or_fail(
    raw: &str,
    description: &str,
    env: &dyn Environment,
    overrides: EnvOverrides<'_>,
) -> Result<ApiKey, KeyError> {
    if let Some(value) = resolve_with(raw, env, overrides) {
        return Ok(value);
    }
    let value = ConfigValue::parse(raw);
    match &value {
        ConfigValue::Command(command) => Err(KeyError::CommandFailed {
            description: description.to_owned(),
            command: (*command).to_owned(),
        }),
        ConfigValue::Template(_) => Err(KeyError::VariablesUnset {
            description: description.to_owned(),
            names: value
                .var_names()
                .into_iter()
                .filter(|name| overrides.var(name, env).is_none())
                .map(str::to_owned)
                .collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;
    use crate::env::MapEnvironment;

    fn env() -> MapEnvironment {
        MapEnvironment::new()
            .with_var("KEY", "sk-1")
            .with_var("TEAM", "blue")
            .with_var("EMPTY", "")
    }

    fn resolved(raw: &str) -> Option<String> {
        resolve_config_value(raw, &env()).map(|key| key.expose().to_owned())
    }

    #[test]
    fn templates_interpolate_variables_and_keep_the_rest_literal() {
        let cases: [(&str, Option<&str>); 16] = [
            ("KEY", Some("KEY")),
            ("$KEY", Some("sk-1")),
            ("${KEY}", Some("sk-1")),
            ("Bearer $KEY!", Some("Bearer sk-1!")),
            ("${KEY}x-$TEAM", Some("sk-1x-blue")),
            ("$KEYS", None),
            ("$UNSET", None),
            ("$EMPTY", None),
            ("a$$b", Some("a$b")),
            ("$!cmd", Some("!cmd")),
            ("${not a name}", Some("${not a name}")),
            ("${KEY", Some("${KEY")),
            ("cost $5", Some("cost $5")),
            ("trailing $", Some("trailing $")),
            ("", Some("")),
            ("héllo $TEAM", Some("héllo blue")),
        ];
        for (raw, expected) in cases {
            assert_eq!(resolved(raw).as_deref(), expected, "{raw:?}");
        }
    }

    #[test]
    fn auth_entry_variables_come_before_the_process_environment() {
        let object = json!({"KEY": "from-entry", "EMPTY": "", "N": 3});
        let overrides = EnvOverrides::from_object(object.as_object());
        let value =
            |raw: &str| resolve_with(raw, &env(), overrides).map(|key| key.expose().to_owned());
        assert_eq!(value("$KEY").as_deref(), Some("from-entry"));
        assert_eq!(value("$TEAM").as_deref(), Some("blue"));
        assert_eq!(value("$EMPTY"), None);
        assert_eq!(value("$N"), None);
    }

    #[test]
    fn configured_means_every_variable_is_set_or_a_command() {
        let env = env();
        let configured = |raw| is_config_value_configured(raw, &env, EnvOverrides::NONE);
        assert!(configured("literal"));
        assert!(configured("$KEY-$TEAM"));
        assert!(!configured("$KEY-$UNSET"));
        assert!(configured("!exit 1"));
    }

    #[test]
    fn unresolved_values_name_what_is_missing() {
        let error = resolve_or_fail(
            "$A-${B}-$KEY-$A",
            "API key for provider \"x\"",
            &env(),
            EnvOverrides::NONE,
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "Failed to resolve API key for provider \"x\" from environment variables: A, B"
        );
        let error = resolve_or_fail("$A", "header \"h\"", &env(), EnvOverrides::NONE).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Failed to resolve header \"h\" from environment variable: A"
        );
    }
}
