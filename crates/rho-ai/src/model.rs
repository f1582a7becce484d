//! Models, the context sent to a model, and tool specifications.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::Message;

/// Prices in USD per million tokens.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    /// Non-cached input.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Cache reads.
    pub cache_read: f64,
    /// Cache writes.
    pub cache_write: f64,
}

/// A model as Pi describes it (`models.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Model id sent to the provider.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Wire API, e.g. `anthropic-messages`.
    pub api: String,
    /// Provider name, e.g. `anthropic`.
    pub provider: String,
    /// Base URL of the API.
    pub base_url: String,
    /// Whether the model reasons.
    pub reasoning: bool,
    /// Input kinds: `text`, `image`.
    pub input: Vec<String>,
    /// Prices.
    pub cost: ModelCost,
    /// Context window in tokens.
    pub context_window: u64,
    /// Maximum output tokens.
    pub max_tokens: u64,
    /// Extra HTTP headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Value>,
    /// Provider compatibility switches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Value>,
}

impl Model {
    /// Fills `usage.cost` from this model's prices.
    pub fn apply_cost(&self, usage: &mut crate::Usage) {
        let per = |price: f64, tokens: u64| price / 1_000_000.0 * tokens as f64;
        // Anthropic bills one-hour cache writes at twice the input price (Pi 1.6).
        let long_write = usage.cache_write_1h.unwrap_or(0).min(usage.cache_write);
        let short_write = usage.cache_write - long_write;
        usage.cost.input = per(self.cost.input, usage.input);
        usage.cost.output = per(self.cost.output, usage.output);
        usage.cost.cache_read = per(self.cost.cache_read, usage.cache_read);
        usage.cost.cache_write =
            per(self.cost.cache_write, short_write) + per(self.cost.input * 2.0, long_write);
        usage.cost.total =
            usage.cost.input + usage.cost.output + usage.cost.cache_read + usage.cost.cache_write;
        usage.cost.total_from_provider = Some(false);
    }
}

/// A tool as the model sees it: name, description and JSON Schema of its arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Tool name.
    pub name: String,
    /// Description sent to the model.
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

/// What one model call receives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Context {
    /// The system prompt.
    pub system_prompt: Option<Arc<str>>,
    /// The conversation. Shared, so the loop can append to it between calls without copying.
    pub messages: Arc<Vec<Message>>,
    /// The tools offered.
    pub tools: Arc<[ToolSpec]>,
}

/// Reasoning effort.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    /// No reasoning.
    #[default]
    Off,
    /// Minimal.
    Minimal,
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
    /// Extra high.
    Xhigh,
    /// The most a model offers (Pi 1.6); supported only where a model's `thinkingLevelMap`
    /// gives it a value.
    Max,
}

impl ThinkingLevel {
    /// Every level, lowest first; clamping walks this order.
    pub const ALL: [ThinkingLevel; 7] = [
        ThinkingLevel::Off,
        ThinkingLevel::Minimal,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
        ThinkingLevel::Xhigh,
        ThinkingLevel::Max,
    ];

    /// The level's name as flags, settings, session files and `thinkingLevelMap` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingLevel::Off => "off",
            ThinkingLevel::Minimal => "minimal",
            ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            ThinkingLevel::High => "high",
            ThinkingLevel::Xhigh => "xhigh",
            ThinkingLevel::Max => "max",
        }
    }

    /// Parses a level name exactly as Pi spells it; anything else, including other
    /// capitalisations, is `None`.
    pub fn parse(name: &str) -> Option<ThinkingLevel> {
        Self::ALL.into_iter().find(|level| level.as_str() == name)
    }
}
