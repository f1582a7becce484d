//! The scenario format of `shared/peers/mock_llm.py`, read as a faux script:
//! `{"turns": [[block, …], …], "fallback"?: [block, …]}`; turn *k* answers the *k*-th model call.

use serde_json::{Map, Value};

use super::{faux_message, faux_text, faux_thinking, faux_tool_call};
use crate::content::ContentBlock;
use crate::message::AssistantMessage;
use crate::partial_json::parse_streaming_json;

/// Why a script could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// Not JSON at all.
    #[error("faux script is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// JSON of the wrong shape.
    #[error("faux script: {0}")]
    Shape(String),
}

/// A parsed faux script.
#[derive(Clone, Debug, PartialEq)]
pub struct FauxScript {
    /// One assistant message per model call, in order.
    pub turns: Vec<AssistantMessage>,
    /// The answer once the turns are used up.
    pub fallback: Option<AssistantMessage>,
    /// The scenario's own prompt, if it has one.
    pub prompt: Option<String>,
}

impl FauxScript {
    /// Parses a script from JSON text.
    pub fn parse(text: &str) -> Result<Self, ScriptError> {
        let root: Value = serde_json::from_str(text)?;
        let root = root
            .as_object()
            .ok_or_else(|| shape("the top level must be an object with \"turns\""))?;
        let turns = root
            .get("turns")
            .and_then(Value::as_array)
            .ok_or_else(|| shape("\"turns\" must be an array of turns"))?;
        let turns = turns
            .iter()
            .enumerate()
            .map(|(k, turn)| parse_turn(turn, k))
            .collect::<Result<Vec<_>, _>>()?;
        let fallback = match root.get("fallback") {
            None | Some(Value::Null) => None,
            Some(turn) => Some(parse_turn(turn, turns.len())?),
        };
        let prompt = root
            .get("prompt")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(FauxScript {
            turns,
            fallback,
            prompt,
        })
    }
}

fn shape(message: impl Into<String>) -> ScriptError {
    ScriptError::Shape(message.into())
}

fn parse_turn(turn: &Value, k: usize) -> Result<AssistantMessage, ScriptError> {
    let blocks = match turn {
        Value::Array(blocks) => blocks,
        Value::Object(o) => o
            .get("blocks")
            .and_then(Value::as_array)
            .ok_or_else(|| shape(format!("turn {k}: an object turn needs a \"blocks\" array")))?,
        _ => return Err(shape(format!("turn {k}: must be an array of blocks"))),
    };
    let content = blocks
        .iter()
        .enumerate()
        .map(|(i, block)| parse_block(block, k, i))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(faux_message(content))
}

fn parse_block(block: &Value, k: usize, i: usize) -> Result<ContentBlock, ScriptError> {
    let where_ = format!("turn {k}, block {i}");
    let object = block
        .as_object()
        .ok_or_else(|| shape(format!("{where_}: must be an object")))?;
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    let string = |field: &str| {
        object
            .get(field)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| shape(format!("{where_}: \"{kind}\" needs a string \"{field}\"")))
    };
    let id = || {
        object
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| format!("call_{k}_{i}"), str::to_owned)
    };
    match kind {
        "text" => Ok(faux_text(string("text")?)),
        "thinking" => Ok(faux_thinking(string("text")?)),
        "tool_call" => {
            // Arguments are always an object, as a provider's parser makes them (pi-reference
            // §1.1, §2.3): a raw JSON string is read as streamed text, anything else becomes `{}`.
            let arguments = match object.get("arguments") {
                Some(Value::Object(arguments)) => arguments.clone(),
                Some(Value::String(raw)) => parse_streaming_json(raw),
                _ => Map::new(),
            };
            let arguments = Value::Object(arguments);
            Ok(faux_tool_call(id(), string("name")?, arguments))
        }
        "custom_tool_call" => {
            let mut arguments = Map::new();
            arguments.insert("input".into(), Value::String(string("input")?));
            Ok(faux_tool_call(
                id(),
                string("name")?,
                Value::Object(arguments),
            ))
        }
        "http_error" | "disconnect" | "garbage" | "stall" => Err(shape(format!(
            "{where_}: fault directive \"{kind}\" needs a real HTTP provider; the faux model cannot inject it"
        ))),
        other => Err(shape(format!(
            "{where_}: unknown block type \"{other}\" (expected text, thinking, tool_call or custom_tool_call)"
        ))),
    }
}
