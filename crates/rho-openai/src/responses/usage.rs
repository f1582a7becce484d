//! Responses usage → rho [`Usage`] (pi-reference §5.2 "Usage"), priced with the service tier.

use rho_ai::{Model, Usage};
use serde_json::Value;

/// Usage as Pi reads it: `input_tokens` includes the cached ones, so they are split out into
/// `cache_read`; the server's `total_tokens` is kept as is. Missing fields count as 0.
pub fn normalize_usage(raw: &Value) -> Usage {
    let tokens = |path: &str| {
        raw.pointer(path)
            .and_then(|v| v.as_u64().or_else(|| v.as_f64().map(|f| f.max(0.0) as u64)))
            .unwrap_or(0)
    };
    let cache_read = tokens("/input_tokens_details/cached_tokens");
    Usage {
        input: tokens("/input_tokens").saturating_sub(cache_read),
        output: tokens("/output_tokens"),
        cache_read,
        cache_write: 0,
        total_tokens: tokens("/total_tokens"),
        ..Usage::default()
    }
}

/// Prices `usage` for `model`, scaled by the tier the response was served in: `flex` costs half,
/// `priority` double (2.5× for `gpt-5.5`).
pub fn apply_cost(model: &Model, usage: &mut Usage, service_tier: Option<&str>) {
    model.apply_cost(usage);
    let multiplier = match service_tier {
        Some("flex") => 0.5,
        Some("priority") if model.id == "gpt-5.5" => 2.5,
        Some("priority") => 2.0,
        _ => return,
    };
    let cost = &mut usage.cost;
    cost.input *= multiplier;
    cost.output *= multiplier;
    cost.cache_read *= multiplier;
    cost.cache_write *= multiplier;
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write;
}
