//! Pi 1.6's settings keys (`schemas/settings.schema.json`, 61 keys) that rho does not
//! implement. Each one present in a settings file is named in one warning, so nobody believes a
//! setting took effect when it did not — except where silence tells the truth: state Pi writes
//! for itself, and a value that only turns off something rho does not have (as rho accepts a
//! flag like `--no-themes`).
//!
//! The keys rho reads are its [`Settings`](super::Settings) fields (`defaultProvider`,
//! `defaultModel`, `defaultThinkingLevel`, `steeringMode`, `followUpMode`, `queueMode`,
//! `enabledModels`, `retry`, `compaction`, `defaultProjectTrust`, `defaultTools`,
//! `modelThinkingLevels`, `httpIdleTimeoutMs`, `$schema`) and the interactive mode's `theme`
//! and `treeFilterMode`.

use serde_json::{Map, Value};

/// Pi settings whose behaviour rho lacks, in the schema's order. `cacheWarming` (Pi's default
/// `"idle"` sends paid refresh requests while idle) is among them; rho behaves as `"off"`.
const UNSUPPORTED: [&str; 43] = [
    "autocompleteMaxVisible",
    "branchSummary",
    "cacheWarming",
    "codemode",
    "collapseChangelog",
    "doubleEscapeAction",
    "editorPaddingX",
    "enableAnalytics",
    "enableInstallTelemetry",
    "enableSkillCommands",
    "extensions",
    "externalEditor",
    "fullscreenCopyOnSelect",
    "fullscreenExitOutput",
    "fullscreenScrollbar",
    "fullscreenWheelScrollLines",
    "hideThinkingBlock",
    "httpProxy",
    "images",
    "markdown",
    "npmCommand",
    "outputPad",
    "packages",
    "prompts",
    "quietStartup",
    "selfUpdateCommand",
    "sessionDir",
    "sessionShareDestination",
    "shellCommandPrefix",
    "shellPath",
    "showCacheMissNotices",
    "showHardwareCursor",
    "skills",
    "terminal",
    "themes",
    "thinkingBudgets",
    "transport",
    "tuiMode",
    "warnings",
    "websocketConnectTimeoutMs",
    "websockets",
    // Written by Pi for itself; never a user's choice.
    "lastChangelogVersion",
    "extensionChangelogVersions",
];

/// Keys inside settings rho reads that rho does not implement, as dotted paths.
const UNSUPPORTED_NESTED: [&str; 3] = [
    "compaction.modelOverrides",
    "retry.provider.maxRetries",
    "retry.provider.timeoutMs",
];

/// The value at a dotted `path` of `object`, if there is one.
fn at_path<'a>(object: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut value = object.get(parts.next()?)?;
    for part in parts {
        value = value.as_object()?.get(part)?;
    }
    Some(value)
}

/// Whether `value` of `key` asks for nothing rho does not already do: state Pi keeps for
/// itself, or a switch that turns off what rho lacks.
fn is_moot(key: &str, value: &Value) -> bool {
    match key {
        "lastChangelogVersion" | "extensionChangelogVersions" => true,
        "cacheWarming" => value == "off",
        "transport" => value == "sse",
        "websockets" => value == false,
        // rho has no changelog, analytics, telemetry or cache-miss notices to turn off.
        "collapseChangelog" => true,
        "enableAnalytics" | "enableInstallTelemetry" | "showCacheMissNotices" => value == false,
        // rho starts without Pi's banner of loaded resources.
        "quietStartup" => value == true,
        // rho offers `/skill:name` commands, as Pi's default `true` does.
        "enableSkillCommands" => value == true,
        // rho's providers never retry on their own (every retry is the session's, visible).
        "retry.provider.maxRetries" => value == 0u64,
        _ => false,
    }
}

/// The unsupported Pi settings present in one file's object: [`UNSUPPORTED`]'s, then
/// [`UNSUPPORTED_NESTED`]'s, in their order.
pub(super) fn unsupported_pi_keys(object: &Map<String, Value>) -> Vec<String> {
    UNSUPPORTED
        .iter()
        .chain(UNSUPPORTED_NESTED.iter())
        .filter(|key| at_path(object, key).is_some_and(|value| !is_moot(key, value)))
        .map(|key| (*key).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn named(value: Value) -> Vec<String> {
        match value {
            Value::Object(object) => unsupported_pi_keys(&object),
            _ => Vec::new(),
        }
    }

    #[test]
    fn every_key_that_would_change_behaviour_is_named() {
        assert_eq!(
            named(json!({
                "theme": "dark", "cacheWarming": "idle", "transport": "sse",
                "packages": [], "lastChangelogVersion": "1.6.0", "hideThinkingBlock": true,
                "sessionDir": "/s", "enableSkillCommands": false, "defaultModel": "m"
            })),
            [
                "cacheWarming",
                "enableSkillCommands",
                "hideThinkingBlock",
                "packages",
                "sessionDir"
            ]
        );
    }

    #[test]
    fn unsupported_keys_inside_supported_settings_are_named_by_their_path() {
        assert_eq!(
            named(json!({
                "retry": {"enabled": true, "provider": {"timeoutMs": 5000, "maxRetries": 2}},
                "compaction": {"enabled": true, "modelOverrides": {}}
            })),
            [
                "compaction.modelOverrides",
                "retry.provider.maxRetries",
                "retry.provider.timeoutMs"
            ]
        );
        assert!(named(json!({"retry": {"provider": {"maxRetries": 0}}})).is_empty());
    }

    #[test]
    fn pi_bookkeeping_and_switches_that_turn_off_what_rho_lacks_are_silent() {
        assert!(
            named(json!({
                "cacheWarming": "off", "transport": "sse", "websockets": false,
                "lastChangelogVersion": "1.6.0", "extensionChangelogVersions": {},
                "collapseChangelog": true, "enableAnalytics": false,
                "enableInstallTelemetry": false, "showCacheMissNotices": false,
                "enableSkillCommands": true, "quietStartup": true
            }))
            .is_empty()
        );
    }

    /// The list and what rho reads cover Pi 1.6's schema: a key added to neither shows here.
    #[test]
    fn every_key_of_pis_schema_is_read_or_listed() {
        const READ: [&str; 18] = [
            "$schema",
            "compaction",
            "defaultModel",
            "defaultProjectTrust",
            "defaultProvider",
            "defaultThinkingLevel",
            "defaultTools",
            "enabledModels",
            "followUpMode",
            "httpIdleTimeoutMs",
            "modelThinkingLevels",
            "queueMode",
            "retry",
            "steeringMode",
            "theme",
            "treeFilterMode",
            // Pi's own ids: no behaviour to have or lack.
            "deviceId",
            "trackingId",
        ];
        let mut known: Vec<&str> = READ.iter().chain(UNSUPPORTED.iter()).copied().collect();
        known.sort_unstable();
        let mut schema = PI_SCHEMA_KEYS.to_vec();
        schema.sort_unstable();
        assert_eq!(known, schema);
    }

    /// The `properties` of Pi 1.6.0's `schemas/settings.schema.json`.
    const PI_SCHEMA_KEYS: [&str; 61] = [
        "$schema",
        "autocompleteMaxVisible",
        "branchSummary",
        "cacheWarming",
        "codemode",
        "collapseChangelog",
        "compaction",
        "defaultModel",
        "defaultProjectTrust",
        "defaultProvider",
        "defaultThinkingLevel",
        "defaultTools",
        "deviceId",
        "doubleEscapeAction",
        "editorPaddingX",
        "enableAnalytics",
        "enableInstallTelemetry",
        "enableSkillCommands",
        "enabledModels",
        "extensionChangelogVersions",
        "extensions",
        "externalEditor",
        "followUpMode",
        "fullscreenCopyOnSelect",
        "fullscreenExitOutput",
        "fullscreenScrollbar",
        "fullscreenWheelScrollLines",
        "hideThinkingBlock",
        "httpIdleTimeoutMs",
        "httpProxy",
        "images",
        "lastChangelogVersion",
        "markdown",
        "modelThinkingLevels",
        "npmCommand",
        "outputPad",
        "packages",
        "prompts",
        "queueMode",
        "quietStartup",
        "retry",
        "selfUpdateCommand",
        "sessionDir",
        "sessionShareDestination",
        "shellCommandPrefix",
        "shellPath",
        "showCacheMissNotices",
        "showHardwareCursor",
        "skills",
        "steeringMode",
        "terminal",
        "theme",
        "themes",
        "thinkingBudgets",
        "trackingId",
        "transport",
        "treeFilterMode",
        "tuiMode",
        "warnings",
        "websocketConnectTimeoutMs",
        "websockets",
    ];
}
