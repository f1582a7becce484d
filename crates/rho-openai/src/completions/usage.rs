//! Chat Completions usage → rho [`Usage`] (pi-reference §5.3 "Usage").

use rho_ai::Usage;
use serde_json::Value;

/// Usage normalized as Pi does: cached tokens (`prompt_tokens_details.cached_tokens`, DeepSeek's
/// `prompt_cache_hit_tokens`) and cache writes are split out of `prompt_tokens`, and the total
/// is recomputed from the four parts (servers disagree on whether theirs counts reasoning).
/// Missing or null fields count as 0. Cost is left at zero for the caller to price.
pub fn normalize_usage(raw: &Value) -> Usage {
    let tokens = |path: &str| {
        raw.pointer(path)
            .and_then(|v| v.as_u64().or_else(|| v.as_f64().map(|f| f.max(0.0) as u64)))
    };
    let prompt = tokens("/prompt_tokens").unwrap_or(0);
    let reported = tokens("/prompt_tokens_details/cached_tokens")
        .or_else(|| tokens("/prompt_cache_hit_tokens"))
        .unwrap_or(0);
    let cache_write = tokens("/prompt_tokens_details/cache_write_tokens").unwrap_or(0);
    let cache_read = if cache_write > 0 {
        reported.saturating_sub(cache_write)
    } else {
        reported
    };
    let input = prompt
        .saturating_sub(cache_read)
        .saturating_sub(cache_write);
    let output = tokens("/completion_tokens").unwrap_or(0);
    Usage {
        input,
        output,
        cache_read,
        cache_write,
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
                total_tokens: 100,
                ..Usage::default()
            }
        );
    }
}
