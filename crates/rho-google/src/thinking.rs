//! Reasoning effort → Gemini `thinkingConfig` (pi-reference §5.4 "Thinking"): a thinking level
//! for Gemini 3 Pro/Flash and Gemma 4, a token budget for the others, and the lowest setting the
//! model allows when reasoning is not requested.

use rho_ai::{Model, StreamOptions, ThinkingLevel};
use serde_json::{Value, json};

/// Whether `id` (lower-cased) contains `gemini-3`, an optional `.<digits>`, then `-<family>`
/// (Pi's `/gemini-3(?:\.\d+)?-<family>/`).
fn is_gemini3(model_id: &str, family: &str) -> bool {
    let id = model_id.to_ascii_lowercase();
    let suffix = format!("-{family}");
    id.match_indices("gemini-3").any(|(at, found)| {
        let rest = &id[at + found.len()..];
        if rest.starts_with(&suffix) {
            return true;
        }
        let Some(after_dot) = rest.strip_prefix('.') else {
            return false;
        };
        let digits = after_dot.len()
            - after_dot
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        digits > 0 && after_dot[digits..].starts_with(&suffix)
    })
}

/// Gemini 3 Pro (any minor version).
pub fn is_gemini3_pro(model_id: &str) -> bool {
    is_gemini3(model_id, "pro")
}

/// Gemini 3 Flash (any minor version, Flash-Lite included).
pub fn is_gemini3_flash(model_id: &str) -> bool {
    is_gemini3(model_id, "flash")
}

/// Gemma 4 (`gemma4` or `gemma-4`).
pub fn is_gemma4(model_id: &str) -> bool {
    let id = model_id.to_ascii_lowercase();
    id.contains("gemma4") || id.contains("gemma-4")
}

/// The `thinkingLevel` of an effort on a model that takes levels. `xhigh` and `max` count as
/// `high`.
pub fn thinking_level(model_id: &str, level: ThinkingLevel) -> &'static str {
    let low_or_high = |low: &'static str| match level {
        ThinkingLevel::Off | ThinkingLevel::Minimal | ThinkingLevel::Low => low,
        ThinkingLevel::Medium | ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => {
            "HIGH"
        }
    };
    if is_gemini3_pro(model_id) {
        return low_or_high("LOW");
    }
    if is_gemma4(model_id) {
        return low_or_high("MINIMAL");
    }
    match level {
        ThinkingLevel::Off | ThinkingLevel::Minimal => "MINIMAL",
        ThinkingLevel::Low => "LOW",
        ThinkingLevel::Medium => "MEDIUM",
        ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => "HIGH",
    }
}

/// The `thinkingBudget` of an effort: fixed tables for Gemini 2.5 Pro / Flash / Flash-Lite,
/// `-1` (dynamic) for every other model. `xhigh` and `max` count as `high`.
pub fn thinking_budget(model_id: &str, level: ThinkingLevel) -> i64 {
    let table: [i64; 4] = if model_id.contains("2.5-pro") {
        [128, 2048, 8192, 32768]
    } else if model_id.contains("2.5-flash-lite") {
        [512, 2048, 8192, 24576]
    } else if model_id.contains("2.5-flash") {
        [128, 2048, 8192, 24576]
    } else {
        return -1;
    };
    match level {
        ThinkingLevel::Off | ThinkingLevel::Minimal => table[0],
        ThinkingLevel::Low => table[1],
        ThinkingLevel::Medium => table[2],
        ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => table[3],
    }
}

/// The `generationConfig.thinkingConfig` of one call, or `None` for a model that does not reason.
///
/// Reasoning requested: `{includeThoughts:true, thinkingLevel}` or `{includeThoughts:true,
/// thinkingBudget}`. Not requested: Gemini 3 Pro cannot turn thinking off (`LOW`), Gemini 3 Flash
/// and Gemma 4 go to `MINIMAL`, Gemini 2.x to `thinkingBudget: 0` — all without thoughts shown.
pub fn thinking_config(model: &Model, options: &StreamOptions) -> Option<Value> {
    if !model.reasoning {
        return None;
    }
    let id = model.id.as_str();
    let takes_level = is_gemini3_pro(id) || is_gemini3_flash(id) || is_gemma4(id);
    let requested = options
        .reasoning
        .filter(|level| *level != ThinkingLevel::Off);
    Some(match requested {
        Some(level) if takes_level => {
            json!({"includeThoughts": true, "thinkingLevel": thinking_level(id, level)})
        }
        Some(level) => {
            json!({"includeThoughts": true, "thinkingBudget": thinking_budget(id, level)})
        }
        None if is_gemini3_pro(id) => json!({"thinkingLevel": "LOW"}),
        None if takes_level => json!({"thinkingLevel": "MINIMAL"}),
        None => json!({"thinkingBudget": 0}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemini_3_families_are_recognised_with_or_without_a_minor_version() {
        assert!(is_gemini3_pro("gemini-3-pro-preview"));
        assert!(is_gemini3_pro("gemini-3.1-pro-preview"));
        assert!(!is_gemini3_pro("gemini-3.-pro"));
        assert!(!is_gemini3_pro("gemini-2.5-pro"));
        assert!(is_gemini3_flash("Gemini-3-Flash-Preview"));
        assert!(is_gemini3_flash("gemini-3.1-flash-lite"));
        assert!(is_gemma4("gemma-4-27b-it"));
        assert!(!is_gemma4("gemma-3-27b-it"));
    }

    #[test]
    fn levels_and_budgets_follow_pis_tables() {
        assert_eq!(
            thinking_level("gemini-3-pro", ThinkingLevel::Minimal),
            "LOW"
        );
        assert_eq!(
            thinking_level("gemini-3-pro", ThinkingLevel::Medium),
            "HIGH"
        );
        assert_eq!(thinking_level("gemma-4", ThinkingLevel::Low), "MINIMAL");
        assert_eq!(
            thinking_level("gemini-3-flash", ThinkingLevel::Medium),
            "MEDIUM"
        );
        assert_eq!(
            thinking_budget("gemini-2.5-pro", ThinkingLevel::High),
            32768
        );
        assert_eq!(
            thinking_budget("gemini-2.5-flash-lite", ThinkingLevel::Minimal),
            512
        );
        assert_eq!(
            thinking_budget("gemini-2.5-flash", ThinkingLevel::High),
            24576
        );
        assert_eq!(thinking_budget("gemini-2.0-flash", ThinkingLevel::Low), -1);
    }
}
