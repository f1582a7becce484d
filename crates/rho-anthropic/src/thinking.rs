//! Reasoning effort → Anthropic `thinking` (pi-reference §5.1 "Thinking"): adaptive thinking with
//! an effort for the models that support it, a token budget for the others, and the output cap
//! that goes with it.

use rho_ai::{Model, StreamOptions, ThinkingLevel};
use serde_json::{Value, json};

/// The output cap used when the caller sets none (Pi's `streamSimple` base).
pub const DEFAULT_MAX_TOKENS_CAP: u64 = 32_000;

/// Tokens a budget-thinking model keeps for the answer when the budget would eat the whole cap.
const ANSWER_RESERVE: u64 = 1024;

/// Model ids that take `thinking:{type:"adaptive"}` plus an effort instead of a budget.
const ADAPTIVE_MARKERS: [&str; 6] = [
    "opus-4-6",
    "opus-4.6",
    "opus-4-7",
    "opus-4.7",
    "sonnet-4-6",
    "sonnet-4.6",
];

/// The thinking-related part of one request.
#[derive(Clone, Debug, PartialEq)]
pub struct ThinkingPlan {
    /// `max_tokens` of the request (raised by a thinking budget).
    pub max_tokens: u64,
    /// The `thinking` field, if any.
    pub thinking: Option<Value>,
    /// The `output_config` field (adaptive models only).
    pub output_config: Option<Value>,
    /// Whether reasoning is on; `temperature` is only sent when it is not.
    pub enabled: bool,
}

/// Whether the model uses adaptive thinking (and no interleaved-thinking beta).
pub fn is_adaptive_model(model_id: &str) -> bool {
    ADAPTIVE_MARKERS
        .iter()
        .any(|marker| model_id.contains(marker))
}

/// The thinking budget of a level; `xhigh` and `max` are treated as `high`.
pub fn budget_tokens(level: ThinkingLevel) -> u64 {
    match level {
        ThinkingLevel::Off => 0,
        ThinkingLevel::Minimal => 1024,
        ThinkingLevel::Low => 2048,
        ThinkingLevel::Medium => 8192,
        ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => 16384,
    }
}

/// The adaptive-thinking effort of a level (`xhigh` and `max` ask for `high`).
pub fn effort(level: ThinkingLevel) -> &'static str {
    match level {
        ThinkingLevel::Off | ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => "high",
    }
}

/// Decides `max_tokens`, `thinking` and `output_config` for one call.
pub fn plan_thinking(model: &Model, options: &StreamOptions) -> ThinkingPlan {
    let base = options
        .max_tokens
        .unwrap_or_else(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP));
    let level = options
        .reasoning
        .filter(|level| *level != ThinkingLevel::Off);
    let off = |thinking| ThinkingPlan {
        max_tokens: base,
        thinking,
        output_config: None,
        enabled: false,
    };
    if !model.reasoning {
        return off(None);
    }
    let Some(level) = level else {
        return off(Some(json!({"type": "disabled"})));
    };
    if is_adaptive_model(&model.id) {
        return ThinkingPlan {
            max_tokens: base,
            thinking: Some(json!({"type": "adaptive", "display": "summarized"})),
            output_config: Some(json!({"effort": effort(level)})),
            enabled: true,
        };
    }
    let mut budget = budget_tokens(level);
    let max_tokens = base.saturating_add(budget).min(model.max_tokens);
    if max_tokens <= budget {
        budget = max_tokens.saturating_sub(ANSWER_RESERVE);
    }
    ThinkingPlan {
        max_tokens,
        thinking: Some(json!({
            "type": "enabled",
            "budget_tokens": budget,
            "display": "summarized",
        })),
        output_config: None,
        enabled: true,
    }
}
