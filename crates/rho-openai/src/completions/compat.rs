//! Pi's `compat` switches for OpenAI-compatible servers (pi-reference §5.3, §8.9): what a server
//! accepts differs (roles, fields, reasoning knobs), so each request is shaped by these flags.
//!
//! Defaults are detected from the model's provider name and base URL; every key present in
//! `model.compat` overrides the detected value. Unknown keys and values of the wrong type are
//! ignored, so a hand-written `models.json` can never make a request fail to build.

use std::collections::BTreeMap;

use rho_ai::{Model, ThinkingLevel};
use serde_json::{Map, Value};

/// Which output-token field the server reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (OpenAI's current name).
    MaxCompletionTokens,
    /// `max_tokens` (the legacy name many servers still require).
    MaxTokens,
}

impl MaxTokensField {
    /// The request key.
    pub fn key(self) -> &'static str {
        match self {
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
            MaxTokensField::MaxTokens => "max_tokens",
        }
    }
}

/// How the server wants reasoning switched on and sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThinkingFormat {
    /// `reasoning_effort: "<level>"`.
    Openai,
    /// `reasoning: {effort}` (`"none"` when off).
    Openrouter,
    /// `thinking: {type: "enabled"|"disabled"}` plus `reasoning_effort`.
    Deepseek,
    /// Top-level `enable_thinking: bool` (Z.ai).
    Zai,
    /// Top-level `enable_thinking: bool` (Qwen).
    Qwen,
    /// `chat_template_kwargs: {enable_thinking, preserve_thinking: true}`.
    QwenChatTemplate,
}

impl ThinkingFormat {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "openai" => ThinkingFormat::Openai,
            "openrouter" => ThinkingFormat::Openrouter,
            "deepseek" => ThinkingFormat::Deepseek,
            "zai" => ThinkingFormat::Zai,
            "qwen" => ThinkingFormat::Qwen,
            "qwen-chat-template" => ThinkingFormat::QwenChatTemplate,
            _ => return None,
        })
    }
}

/// The resolved switches for one model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionsCompat {
    /// Send `store: false`.
    pub supports_store: bool,
    /// Send the system prompt as `developer` on reasoning models.
    pub supports_developer_role: bool,
    /// Send `reasoning_effort` (thinking format `openai`).
    pub supports_reasoning_effort: bool,
    /// Send `stream_options: {include_usage: true}`.
    pub supports_usage_in_streaming: bool,
    /// The output-token field.
    pub max_tokens_field: MaxTokensField,
    /// Send `strict: false` in tool definitions. Off unless `compat.supportsStrictMode` says so:
    /// Pi 1.6 holds that OpenAI compatibility alone does not imply strict-schema support.
    pub supports_strict_mode: bool,
    /// Tool results carry the tool `name`.
    pub requires_tool_result_name: bool,
    /// A user message may not follow tool results directly: a synthetic assistant bridges them.
    pub requires_assistant_after_tool_result: bool,
    /// Replayed thinking goes into the assistant text instead of a reasoning field.
    pub requires_thinking_as_text: bool,
    /// How reasoning is requested.
    pub thinking_format: ThinkingFormat,
    /// Provider values for thinking levels (`reasoningEffortMap`), by level name.
    pub reasoning_effort_map: BTreeMap<String, String>,
}

/// What the provider name and base URL say about the server.
struct Detected {
    zai: bool,
    deepseek: bool,
    xai: bool,
    mistral: bool,
    openrouter: bool,
    chutes: bool,
    non_standard: bool,
}

impl Detected {
    fn of(model: &Model) -> Self {
        let provider = model.provider.as_str();
        let url = model.base_url.to_ascii_lowercase();
        let is = |names: &[&str], hosts: &[&str]| {
            names.contains(&provider) || hosts.iter().any(|host| url.contains(host))
        };
        let zai = is(&["zai"], &["api.z.ai", "bigmodel.cn"]);
        let deepseek = is(&["deepseek"], &["deepseek.com"]);
        let xai = is(&["xai"], &["api.x.ai"]);
        let mistral = is(&["mistral"], &["mistral.ai"]);
        let chutes = is(&["chutes"], &["chutes.ai"]);
        let other_non_standard = is(
            &[
                "cerebras",
                "opencode",
                "moonshotai",
                "moonshot",
                "cloudflare-workers-ai",
            ],
            &[
                "cerebras.ai",
                "opencode.ai",
                "moonshot.ai",
                "moonshot.cn",
                "cloudflare.com",
            ],
        );
        Detected {
            zai,
            deepseek,
            xai,
            mistral,
            openrouter: is(&["openrouter"], &["openrouter.ai"]),
            chutes,
            non_standard: zai || deepseek || xai || mistral || chutes || other_non_standard,
        }
    }
}

impl CompletionsCompat {
    /// Pi's defaults for `model` (by provider name and base URL), without `model.compat`.
    pub fn detect(model: &Model) -> Self {
        let d = Detected::of(model);
        let thinking_format = if d.zai {
            ThinkingFormat::Zai
        } else if d.deepseek {
            ThinkingFormat::Deepseek
        } else if d.openrouter {
            ThinkingFormat::Openrouter
        } else {
            ThinkingFormat::Openai
        };
        CompletionsCompat {
            supports_store: !d.non_standard,
            supports_developer_role: !d.non_standard,
            supports_reasoning_effort: !d.xai && !d.zai,
            supports_usage_in_streaming: true,
            max_tokens_field: if d.chutes || d.mistral {
                MaxTokensField::MaxTokens
            } else {
                MaxTokensField::MaxCompletionTokens
            },
            supports_strict_mode: false,
            requires_tool_result_name: d.mistral,
            requires_assistant_after_tool_result: false,
            requires_thinking_as_text: d.mistral,
            thinking_format,
            reasoning_effort_map: BTreeMap::new(),
        }
    }

    /// The switches for `model`: detected defaults, overridden by every valid key of `model.compat`.
    pub fn for_model(model: &Model) -> Self {
        let mut compat = Self::detect(model);
        if let Some(Value::Object(overrides)) = &model.compat {
            compat.apply(overrides);
        }
        compat
    }

    fn apply(&mut self, o: &Map<String, Value>) {
        let flag = |key: &str, slot: &mut bool| {
            if let Some(Value::Bool(value)) = o.get(key) {
                *slot = *value;
            }
        };
        flag("supportsStore", &mut self.supports_store);
        flag("supportsDeveloperRole", &mut self.supports_developer_role);
        flag(
            "supportsReasoningEffort",
            &mut self.supports_reasoning_effort,
        );
        flag(
            "supportsUsageInStreaming",
            &mut self.supports_usage_in_streaming,
        );
        flag("supportsStrictMode", &mut self.supports_strict_mode);
        flag(
            "requiresToolResultName",
            &mut self.requires_tool_result_name,
        );
        flag(
            "requiresAssistantAfterToolResult",
            &mut self.requires_assistant_after_tool_result,
        );
        flag(
            "requiresThinkingAsText",
            &mut self.requires_thinking_as_text,
        );
        match o.get("maxTokensField").and_then(Value::as_str) {
            Some("max_tokens") => self.max_tokens_field = MaxTokensField::MaxTokens,
            Some("max_completion_tokens") => {
                self.max_tokens_field = MaxTokensField::MaxCompletionTokens;
            }
            _ => {}
        }
        if let Some(format) = o
            .get("thinkingFormat")
            .and_then(Value::as_str)
            .and_then(ThinkingFormat::parse)
        {
            self.thinking_format = format;
        }
        if let Some(Value::Object(map)) = o.get("reasoningEffortMap") {
            for (level, value) in map {
                if let Some(value) = value.as_str() {
                    self.reasoning_effort_map
                        .insert(level.clone(), value.to_owned());
                }
            }
        }
    }

    /// The provider's effort string for `level`, or `None` when reasoning is off. `xhigh` falls
    /// back to `high` unless the effort map names it, because few servers accept it; `max`
    /// (Pi 1.6), unless the map names it, is treated as `xhigh`.
    pub fn effort(&self, level: Option<ThinkingLevel>) -> Option<String> {
        let name = match level? {
            ThinkingLevel::Off => return None,
            level => level.as_str(),
        };
        if let Some(mapped) = self.reasoning_effort_map.get(name) {
            return Some(mapped.clone());
        }
        if name == "max" {
            return self.effort(Some(ThinkingLevel::Xhigh));
        }
        Some(if name == "xhigh" { "high" } else { name }.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(provider: &str, base_url: &str, compat: Option<Value>) -> Model {
        Model {
            id: "m".into(),
            name: "m".into(),
            api: "openai-completions".into(),
            provider: provider.into(),
            base_url: base_url.into(),
            reasoning: true,
            input: vec!["text".into()],
            cost: Default::default(),
            context_window: 128_000,
            max_tokens: 16_384,
            headers: None,
            compat,
        }
    }

    #[test]
    fn openai_gets_the_standard_switches() {
        let compat =
            CompletionsCompat::for_model(&model("openai", "https://api.openai.com/v1", None));
        assert_eq!(
            compat,
            CompletionsCompat {
                supports_store: true,
                supports_developer_role: true,
                supports_reasoning_effort: true,
                supports_usage_in_streaming: true,
                max_tokens_field: MaxTokensField::MaxCompletionTokens,
                supports_strict_mode: false,
                requires_tool_result_name: false,
                requires_assistant_after_tool_result: false,
                requires_thinking_as_text: false,
                thinking_format: ThinkingFormat::Openai,
                reasoning_effort_map: BTreeMap::new(),
            }
        );
    }

    #[test]
    fn deepseek_by_base_url_is_non_standard_with_deepseek_thinking() {
        let compat =
            CompletionsCompat::for_model(&model("custom", "https://api.deepseek.com", None));
        assert_eq!(
            (
                compat.supports_store,
                compat.supports_developer_role,
                compat.thinking_format
            ),
            (false, false, ThinkingFormat::Deepseek)
        );
    }

    #[test]
    fn xai_and_zai_do_not_get_reasoning_effort() {
        let xai = CompletionsCompat::for_model(&model("xai", "https://api.x.ai/v1", None));
        let zai = CompletionsCompat::for_model(&model("zai", "https://api.z.ai/api/paas/v4", None));
        assert_eq!(
            (
                xai.supports_reasoning_effort,
                zai.supports_reasoning_effort,
                zai.thinking_format
            ),
            (false, false, ThinkingFormat::Zai)
        );
    }

    #[test]
    fn openrouter_and_chutes_are_detected_by_url() {
        let or = CompletionsCompat::for_model(&model("x", "https://openrouter.ai/api/v1", None));
        let chutes = CompletionsCompat::for_model(&model("y", "https://llm.chutes.ai/v1", None));
        assert_eq!(
            (
                or.thinking_format,
                or.supports_store,
                chutes.max_tokens_field
            ),
            (ThinkingFormat::Openrouter, true, MaxTokensField::MaxTokens)
        );
    }

    #[test]
    fn explicit_compat_wins_and_bad_or_unknown_keys_are_ignored() {
        let compat = CompletionsCompat::for_model(&model(
            "deepseek",
            "https://api.deepseek.com",
            Some(json!({
                "supportsStore": true,
                "supportsDeveloperRole": "yes",
                "maxTokensField": "max_tokens",
                "thinkingFormat": "qwen-chat-template",
                "somethingNew": 1,
                "reasoningEffortMap": {"high": "max", "low": 3}
            })),
        ));
        assert_eq!(
            (
                compat.supports_store,
                compat.supports_developer_role,
                compat.max_tokens_field,
                compat.thinking_format,
                compat.reasoning_effort_map,
            ),
            (
                true,
                false,
                MaxTokensField::MaxTokens,
                ThinkingFormat::QwenChatTemplate,
                BTreeMap::from([("high".to_owned(), "max".to_owned())]),
            )
        );
    }

    #[test]
    fn effort_maps_levels_and_clamps_xhigh_unless_mapped() {
        let mut compat =
            CompletionsCompat::detect(&model("openai", "https://api.openai.com", None));
        let levels = [
            None,
            Some(ThinkingLevel::Off),
            Some(ThinkingLevel::Minimal),
            Some(ThinkingLevel::Xhigh),
            Some(ThinkingLevel::Max),
        ];
        let efforts: Vec<_> = levels.iter().map(|l| compat.effort(*l)).collect();
        assert_eq!(
            efforts,
            vec![
                None,
                None,
                Some("minimal".into()),
                Some("high".into()),
                Some("high".into())
            ]
        );
        compat
            .reasoning_effort_map
            .insert("xhigh".into(), "xhigh".into());
        assert_eq!(
            compat.effort(Some(ThinkingLevel::Xhigh)),
            Some("xhigh".into())
        );
        // `max` goes as `xhigh` unless the map names it.
        assert_eq!(
            compat.effort(Some(ThinkingLevel::Max)),
            Some("xhigh".into())
        );
        compat
            .reasoning_effort_map
            .insert("max".into(), "max".into());
        assert_eq!(compat.effort(Some(ThinkingLevel::Max)), Some("max".into()));
    }
}
