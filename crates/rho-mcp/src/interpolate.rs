//! Config values resolved as Pi 1.6 resolves them (`resolveConfigValue`): a value that starts
//! with `!` is a shell command whose trimmed output is the value; otherwise `${NAME}` and `$NAME`
//! are environment variables (`$$` is `$`, `$!` is `!`). A missing or empty variable, a command
//! that fails, prints nothing or runs past 10 s: the value cannot be resolved, with Pi's message.
//! A command runs as a model key's does (`rho_models::command`: its own process group, killed
//! at the time limit and when rho is told to stop).
//! Applies to stdio `env` values, HTTP `headers` and `oauth.clientSecret`; nothing else.

/// Where variables come from: the server's own `env` first (for its `env` values), then rho's.
pub trait Variables {
    /// The value of `name`, if set and not empty.
    fn get(&self, name: &str) -> Option<String>;
}

/// rho's own environment.
pub struct ProcessVariables;

impl Variables for ProcessVariables {
    fn get(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }
}

/// Resolves `value`; `what` names it in the error (`MCP server "x" env "K"`). Blocking: a
/// `!command` runs here.
pub fn resolve(value: &str, what: &str, vars: &dyn Variables) -> Result<String, String> {
    if let Some(command) = value.strip_prefix('!') {
        return rho_models::command::run_config_command(command)
            .ok_or_else(|| format!("Failed to resolve {what} from shell command: {command}"));
    }
    let mut out = String::with_capacity(value.len());
    let mut missing: Vec<String> = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(tail) = after.strip_prefix('!') {
            out.push('!');
            rest = tail;
        } else if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) if is_name(&braced[..end]) => {
                    let name = &braced[..end];
                    match vars.get(name) {
                        Some(v) => out.push_str(&v),
                        None => missing.push(name.to_owned()),
                    }
                    rest = &braced[end + 1..];
                }
                Some(end) => {
                    out.push_str(&rest[at..at + 2 + end + 1]);
                    rest = &braced[end + 1..];
                }
                None => {
                    out.push('$');
                    rest = after;
                }
            }
        } else {
            let len = name_prefix(after);
            if len == 0 {
                out.push('$');
                rest = after;
            } else {
                let name = &after[..len];
                match vars.get(name) {
                    Some(v) => out.push_str(&v),
                    None => missing.push(name.to_owned()),
                }
                rest = &after[len..];
            }
        }
    }
    out.push_str(rest);
    if missing.is_empty() {
        return Ok(out);
    }
    let mut unique: Vec<String> = Vec::new();
    for name in missing {
        if !unique.contains(&name) {
            unique.push(name);
        }
    }
    Err(if unique.len() == 1 {
        format!(
            "Failed to resolve {what} from environment variable: {}",
            unique[0]
        )
    } else {
        format!(
            "Failed to resolve {what} from environment variables: {}",
            unique.join(", ")
        )
    })
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
fn is_name(text: &str) -> bool {
    name_prefix(text) == text.len() && !text.is_empty()
}

/// The length of the longest variable name at the start of `text`.
fn name_prefix(text: &str) -> usize {
    let mut chars = text.char_indices();
    match chars.next() {
        Some((_, c)) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return 0,
    }
    chars
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(text.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    struct Vars(HashMap<&'static str, &'static str>);

    impl Variables for Vars {
        fn get(&self, name: &str) -> Option<String> {
            self.0
                .get(name)
                .filter(|v| !v.is_empty())
                .map(|v| (*v).to_owned())
        }
    }

    fn vars() -> Vars {
        Vars(HashMap::from([
            ("TOKEN", "t0k"),
            ("EMPTY", ""),
            ("A_1", "a"),
        ]))
    }

    #[test]
    fn variables_and_escapes_resolve_as_in_pi() {
        let what = "MCP server \"x\" header \"Authorization\"";
        for (value, expected) in [
            ("Bearer ${TOKEN}", "Bearer t0k"),
            ("$TOKEN-$A_1", "t0k-a"),
            ("$$ and $! and $", "$ and ! and $"),
            ("${bad name} x", "${bad name} x"),
            ("${open", "${open"),
            ("plain", "plain"),
        ] {
            assert_eq!(
                resolve(value, what, &vars()),
                Ok(expected.to_owned()),
                "{value}"
            );
        }
        assert_eq!(
            resolve("${EMPTY}", what, &vars()),
            Err(format!(
                "Failed to resolve {what} from environment variable: EMPTY"
            ))
        );
        assert_eq!(
            resolve("$NOPE $ALSO $NOPE", what, &vars()),
            Err(format!(
                "Failed to resolve {what} from environment variables: NOPE, ALSO"
            ))
        );
    }

    #[test]
    fn a_command_value_is_its_trimmed_output_or_an_error() {
        let what = "MCP server \"x\" env \"K\"";
        assert_eq!(
            resolve("!printf ' v1 \\n'", what, &vars()),
            Ok("v1".to_owned())
        );
        for command in ["!false", "!true", "!exit 3"] {
            assert_eq!(
                resolve(command, what, &vars()),
                Err(format!(
                    "Failed to resolve {what} from shell command: {}",
                    &command[1..]
                ))
            );
        }
    }
}
