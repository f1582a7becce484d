//! The Chat Completions request (pi-reference §5.3 "Request"): endpoint, headers and JSON body.

use rho_ai::transform::transform_messages;
use rho_ai::{Context, Message, Model, StreamOptions, ToolSpec};
use rho_http::WireCache;
use rho_http::wire_cache::unit;
use serde_json::Value;

use super::compat::{CompletionsCompat, MaxTokensField, ThinkingFormat};
use super::convert::{convert_messages, message_unit, normalize_tool_call_id};
use super::wire::{
    ChatTemplateKwargs, CompletionsRequest, Effort, IncludeUsage, Outgoing, ThinkingSwitch,
    WireTool,
};
use crate::body::JsNumber;

/// Pi's cap on the default output budget when the caller sets none (pi-reference §2.1).
const DEFAULT_MAX_TOKENS_CAP: u64 = 32_000;

/// `POST {base_url}/chat/completions`, without a doubled slash.
pub fn completions_url(model: &Model) -> String {
    format!("{}/chat/completions", model.base_url.trim_end_matches('/'))
}

/// The request headers: `authorization: Bearer <key>` when there is a key, then `model.headers`
/// (string values only; a same-named one replaces the default). The HTTP client adds
/// `content-type`.
pub fn request_headers(model: &Model, api_key: Option<&str>) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    if let Some(key) = api_key.filter(|k| !k.is_empty()) {
        headers.push(("authorization".to_owned(), format!("Bearer {key}")));
    }
    if let Some(Value::Object(extra)) = &model.headers {
        for (name, value) in extra {
            let Some(value) = value.as_str() else {
                continue;
            };
            headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
            headers.push((name.clone(), value.to_owned()));
        }
    }
    headers
}

fn has_tool_history(messages: &[Message]) -> bool {
    messages.iter().any(|message| match message {
        Message::ToolResult(_) => true,
        Message::Assistant(assistant) => assistant.tool_calls().next().is_some(),
        Message::User(_) => false,
    })
}

fn convert_tools<'a>(tools: &'a [ToolSpec], compat: &CompletionsCompat) -> Vec<WireTool<'a>> {
    let strict = compat.supports_strict_mode.then_some(false);
    tools
        .iter()
        .map(|tool| WireTool::function(&tool.name, &tool.description, &tool.parameters, strict))
        .collect()
}

/// Builds the streaming request body for `model` with the compat switches of
/// [`CompletionsCompat::for_model`], as a JSON value (for inspection; the provider sends
/// [`CompletionsWriter::body`]).
pub fn to_completions_request(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    CompletionsWriter::default()
        .with_request(model, context, options, |request| {
            serde_json::to_value(request).unwrap_or_default()
        })
        .unwrap_or_default()
}

/// The request body as the bytes sent, written from scratch (what
/// [`CompletionsWriter::body`] sends on a conversation's first request).
pub fn completions_request_body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> Result<Vec<u8>, serde_json::Error> {
    CompletionsWriter::default().body(model, context, options)
}

/// Writes the request bodies of one conversation: the typed body of [`super::wire`], borrowed
/// from the context and serialized straight into bytes, with each message written once and its
/// text reused by the later requests that carry it again (see [`WireCache`]).
#[derive(Debug, Default)]
pub struct CompletionsWriter {
    cache: WireCache<Model>,
    /// The size of the last body: the next one is at least as big, so its buffer is allocated
    /// once instead of grown (and copied) a dozen times.
    last_len: usize,
}

impl CompletionsWriter {
    /// The body of the next request of the conversation.
    pub fn body(
        &mut self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
    ) -> Result<Vec<u8>, serde_json::Error> {
        let capacity = self.last_len + self.last_len / 8 + 4096;
        let body = self.with_request(model, context, options, |request| {
            let mut bytes = Vec::with_capacity(capacity);
            serde_json::to_writer(&mut bytes, request).map(|()| bytes)
        })??;
        self.last_len = body.len();
        Ok(body)
    }

    /// Builds the typed body (borrowing the transformed transcript, which lives only for this
    /// call, and the cached units) and hands it to `write`.
    fn with_request<R>(
        &mut self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
        write: impl FnOnce(&CompletionsRequest<'_>) -> R,
    ) -> Result<R, serde_json::Error> {
        let compat = CompletionsCompat::for_model(model);
        let normalize = |id: &str| normalize_tool_call_id(id, model);
        let messages = transform_messages(&context.messages, model, &normalize);
        self.cache.start(model);
        for (position, message) in messages.iter().enumerate() {
            self.cache.units(position, message, 0, || {
                message_unit(model, &compat, message)
                    .map(|wire| unit(&wire))
                    .into_iter()
                    .collect()
            })?;
        }
        self.cache.finish(messages.len());
        let cache = &self.cache;
        let written = |position: usize| cache.get(position).first().map(|u| Outgoing::Written(u));

        let default_max =
            (model.max_tokens > 0).then(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP));
        let max_tokens = options.max_tokens.or(default_max).filter(|m| *m > 0);
        let tools = if !context.tools.is_empty() {
            Some(convert_tools(&context.tools, &compat))
        } else if has_tool_history(&messages) {
            // Proxies in front of Anthropic reject tool history without a `tools` parameter.
            Some(Vec::new())
        } else {
            None
        };
        let prompt_cache_key = options
            .session_id
            .as_deref()
            .filter(|s| !s.is_empty() && model.base_url.contains("api.openai.com"));
        let system_prompt = context.system_prompt.as_deref();
        let mut request = CompletionsRequest {
            model: &model.id,
            messages: convert_messages(model, system_prompt, &messages, &compat, &written),
            stream: true,
            stream_options: compat.supports_usage_in_streaming.then_some(IncludeUsage {
                include_usage: true,
            }),
            store: compat.supports_store.then_some(false),
            max_completion_tokens: max_tokens
                .filter(|_| compat.max_tokens_field == MaxTokensField::MaxCompletionTokens),
            max_tokens: max_tokens.filter(|_| compat.max_tokens_field == MaxTokensField::MaxTokens),
            temperature: options.temperature.and_then(JsNumber::finite),
            tools,
            enable_thinking: None,
            chat_template_kwargs: None,
            reasoning: None,
            thinking: None,
            reasoning_effort: None,
            prompt_cache_key,
        };
        set_reasoning(&mut request, model, &compat, options);
        Ok(write(&request))
    }
}

/// The reasoning switches of the model's thinking format. Only reasoning models get any.
fn set_reasoning(
    request: &mut CompletionsRequest<'_>,
    model: &Model,
    compat: &CompletionsCompat,
    options: &StreamOptions,
) {
    if !model.reasoning {
        return;
    }
    let effort = compat.effort(options.reasoning);
    match compat.thinking_format {
        ThinkingFormat::Zai | ThinkingFormat::Qwen => {
            request.enable_thinking = Some(effort.is_some());
        }
        ThinkingFormat::QwenChatTemplate => {
            request.chat_template_kwargs = Some(ChatTemplateKwargs {
                enable_thinking: effort.is_some(),
                preserve_thinking: true,
            });
        }
        ThinkingFormat::Openrouter => {
            let effort = effort.unwrap_or_else(|| "none".to_owned());
            request.reasoning = Some(Effort { effort });
        }
        ThinkingFormat::Deepseek => {
            let kind = if effort.is_some() {
                "enabled"
            } else {
                "disabled"
            };
            request.thinking = Some(ThinkingSwitch { kind });
            request.reasoning_effort = effort;
        }
        ThinkingFormat::Openai => {
            request.reasoning_effort = effort.filter(|_| compat.supports_reasoning_effort);
        }
    }
}
