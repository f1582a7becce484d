//! Pi 1.6's settings keys (`schemas/settings.schema.json`) that rho does not implement. Those
//! that would change what Pi does are named in a warning, so nobody believes a setting took
//! effect when it did not; those that only shape Pi's own terminal UI or bookkeeping are
//! accepted silently.

use serde_json::{Map, Value};

/// Pi settings whose behaviour rho lacks. `cacheWarming` (Pi's default `"idle"` sends paid
/// refresh requests while idle) is among them; rho behaves as `"off"`.
const UNSUPPORTED: [&str; 15] = [
    "cacheWarming",
    "codemode",
    "packages",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "httpProxy",
    "websocketConnectTimeoutMs",
    "transport",
    "branchSummary",
    "shellPath",
    "shellCommandPrefix",
    "images",
    "thinkingBudgets",
];

/// The unsupported Pi settings present in one file's object, in [`UNSUPPORTED`]'s order.
/// `cacheWarming: "off"` and `transport: "sse"` ask for what rho does anyway.
pub(super) fn unsupported_pi_keys(object: &Map<String, Value>) -> Vec<String> {
    UNSUPPORTED
        .iter()
        .filter(|key| match (**key, object.get(**key)) {
            (_, None) => false,
            ("cacheWarming", Some(value)) => value != "off",
            ("transport", Some(value)) => value != "sse",
            _ => true,
        })
        .map(|key| (*key).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_keys_that_would_change_behaviour_are_named() {
        let Value::Object(object) = json!({
            "theme": "dark", "cacheWarming": "idle", "transport": "sse",
            "packages": [], "lastChangelogVersion": "1.6.0"
        }) else {
            return;
        };
        assert_eq!(unsupported_pi_keys(&object), ["cacheWarming", "packages"]);
        let Value::Object(off) = json!({"cacheWarming": "off"}) else {
            return;
        };
        assert!(unsupported_pi_keys(&off).is_empty());
    }
}
