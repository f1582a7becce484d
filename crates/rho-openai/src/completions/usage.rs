//! Chat Completions usage → rho [`Usage`] (pi-reference §5.3 "Usage").

use rho_ai::Usage;
use serde_json::Value;

/// Usage normalized as Pi 1.6 does: cache reads (`prompt_tokens_details.cached_tokens`,
/// DeepSeek's `prompt_cache_hit_tokens`, Kimi's top-level `cached_tokens`) and cache writes
/// (`prompt_tokens_details.cache_write_tokens`) are split out of `prompt_tokens`; `reasoning`
/// is the reasoning part of `completion_tokens` (0 when not reported); the total is recomputed
/// from the four parts (servers disagree on whether theirs counts reasoning). Missing or null
/// fields count as 0. Cost is left at zero for the caller to price.
pub fn normalize_usage(raw: &Value) -> Usage {
    let tokens = |path: &str| {
        raw.pointer(path)
            .and_then(|v| v.as_u64().or_else(|| v.as_f64().map(|f| f.max(0.0) as u64)))
    };
    let prompt = tokens("/prompt_tokens").unwrap_or(0);
    let cache_read = tokens("/prompt_tokens_details/cached_tokens")
        .or_else(|| tokens("/prompt_cache_hit_tokens"))
        .or_else(|| tokens("/cached_tokens"))
        .unwrap_or(0);
    let cache_write = tokens("/prompt_tokens_details/cache_write_tokens").unwrap_or(0);
    let input = prompt
        .saturating_sub(cache_read)
        .saturating_sub(cache_write);
    let output = tokens("/completion_tokens").unwrap_or(0);
    let reasoning = tokens("/completion_tokens_details/reasoning_tokens")
        .filter(|&n| n > 0)
        .or_else(|| tokens("/reasoning_tokens"))
        .unwrap_or(0);
    Usage {
        input,
        output,
        cache_read,
        cache_write,
        reasoning: Some(reasoning),
        total_tokens: input + output + cache_read + cache_write,
        ..Usage::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deepseek_cache_hit_tokens_count_as_cache_reads_and_nulls_as_zero() {
        let usage = normalize_usage(&json!({
            "prompt_tokens": 100, "completion_tokens": null, "prompt_cache_hit_tokens": 64
        }));
        assert_eq!(
            usage,
            Usage {
                input: 36,
                output: 0,
                cache_read: 64,
                cache_write: 0,
                reasoning: Some(0),
                total_tokens: 100,
                ..Usage::default()
            }
        );
    }
}
