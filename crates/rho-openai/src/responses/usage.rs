//! Responses usage → rho [`Usage`] (pi-reference §5.2 "Usage"), priced with the service tier.

use rho_ai::{Model, Usage};
use serde_json::Value;

/// Usage as Pi 1.6 reads it: `input_tokens` includes the cached ones and the cache writes, so
/// they are split out into `cache_read` and `cache_write`; `reasoning` is the reasoning part of
/// `output_tokens`; the server's `total_tokens` is kept as is. Missing fields count as 0.
pub fn normalize_usage(raw: &Value) -> Usage {
    let tokens = |path: &str| {
        raw.pointer(path)
            .and_then(|v| v.as_u64().or_else(|| v.as_f64().map(|f| f.max(0.0) as u64)))
            .unwrap_or(0)
    };
    let cache_read = tokens("/input_tokens_details/cached_tokens");
    let cache_write = tokens("/input_tokens_details/cache_write_tokens");
    Usage {
        input: tokens("/input_tokens")
            .saturating_sub(cache_read)
            .saturating_sub(cache_write),
        output: tokens("/output_tokens"),
        cache_read,
        cache_write,
        reasoning: Some(tokens("/output_tokens_details/reasoning_tokens")),
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
