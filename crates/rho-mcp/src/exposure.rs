//! How a server's tools reach the model (Pi 1.6): `direct` (declared like a built-in tool),
//! `deferred` (declared once `tool_search` loads it), `codemode` (Pi's default: called from
//! codemode scripts; until rho has codemode it acts as `deferred`), `hidden` (never).

use crate::config::ServerConfig;

/// A tool's exposure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Exposure {
    /// From codemode scripts (Pi's default).
    #[default]
    Codemode,
    /// Declared once `tool_search` loads it.
    Deferred,
    /// Declared to the model as soon as the server connects.
    Direct,
    /// Never reachable.
    Hidden,
}

impl Exposure {
    /// The names a configuration may use, in Pi's order.
    pub const NAMES: [&'static str; 4] = ["codemode", "deferred", "direct", "hidden"];

    /// A configured name (`codemode-deferred` is an old name of `codemode`).
    pub fn parse(name: &str) -> Option<Exposure> {
        match name {
            "codemode" | "codemode-deferred" => Some(Exposure::Codemode),
            "deferred" => Some(Exposure::Deferred),
            "direct" => Some(Exposure::Direct),
            "hidden" => Some(Exposure::Hidden),
            _ => None,
        }
    }

    /// The configuration name.
    pub fn as_str(self) -> &'static str {
        match self {
            Exposure::Codemode => "codemode",
            Exposure::Deferred => "deferred",
            Exposure::Direct => "direct",
            Exposure::Hidden => "hidden",
        }
    }

    /// Whether `tool_search` can load a tool of this exposure (Pi registers `codemode` tools as
    /// `deferred`).
    pub fn is_deferred(self) -> bool {
        matches!(self, Exposure::Codemode | Exposure::Deferred)
    }
}

/// The exposure of the server's tool `tool` (its original MCP name): an exact `toolExposure`
/// key, else the first `*` pattern key that matches, else the server's `exposure`.
pub fn tool_exposure(config: &ServerConfig, tool: &str) -> Exposure {
    let overrides = config.tool_exposure();
    if let Some((_, exposure)) = overrides.iter().find(|(key, _)| key == tool) {
        return *exposure;
    }
    overrides
        .iter()
        .find(|(pattern, _)| pattern.contains('*') && rho_stdx::text::wildcard_match(pattern, tool))
        .map_or_else(|| config.exposure(), |(_, exposure)| *exposure)
}

/// The exposures a server's configuration names: its own and its `toolExposure` values.
pub fn configured_exposures(config: &ServerConfig) -> Vec<Exposure> {
    let mut all = vec![config.exposure()];
    for (_, exposure) in config.tool_exposure() {
        if !all.contains(&exposure) {
            all.push(exposure);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;
    use crate::config::validate;

    #[test]
    fn an_exact_key_wins_then_the_first_pattern_then_the_server() {
        let config = validate(
            "s",
            json!({"command": "x", "exposure": "hidden", "toolExposure": {"e*": "deferred", "echo": "direct", "*": "codemode"}}),
        )
        .unwrap();
        assert_eq!(tool_exposure(&config, "echo"), Exposure::Direct);
        assert_eq!(tool_exposure(&config, "erase"), Exposure::Deferred);
        assert_eq!(tool_exposure(&config, "list"), Exposure::Codemode);
        let plain = validate("s", json!({"command": "x"})).unwrap();
        assert_eq!(tool_exposure(&plain, "any"), Exposure::Codemode);
    }
}
