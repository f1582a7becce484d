//! Ids the Responses API insists on: tool-call ids `call_id|item_id` written by other models
//! (pi-reference §5.0), message item ids of at most 64 characters, and the text signature that
//! carries a message item's id and phase across turns (§1.1).

use rho_ai::Model;
use serde_json::{Map, Value};

/// Providers whose Responses endpoint checks `function_call` item ids (`fc_…`), so a replayed id
/// keeps its item part; every other provider gets one sanitized id.
const ITEM_ID_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

/// The longest id OpenAI accepts for an item.
const MAX_ID: usize = 64;

/// Pi's `shortHash`: a fast deterministic 64-bit hash of the UTF-16 code units of `text`,
/// printed as two base-36 numbers. Used to shorten ids that are too long.
pub fn short_hash(text: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in text.encode_utf16() {
        let unit = u32::from(unit);
        h1 = (h1 ^ unit).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ unit).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    format!("{}{}", base36(h2), base36(h1))
}

fn base36(mut value: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(value % 36) as usize]);
        value /= 36;
        if value == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

/// One id part made acceptable: characters outside `[a-zA-Z0-9_-]` become `_`, at most 64 kept,
/// trailing `_` removed.
fn id_part(part: &str) -> String {
    let sanitized: String = part
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_ID)
        .collect();
    sanitized.trim_end_matches('_').to_owned()
}

/// The `call_id` and item id of an internal tool-call id `call_id|item_id` (JavaScript's
/// `split("|")` destructured: a third part is ignored).
pub fn split_tool_call_id(id: &str) -> (&str, Option<&str>) {
    let mut parts = id.split('|');
    let call = parts.next().unwrap_or("");
    (call, parts.next())
}

/// Responses' rule for a tool-call id written by another model (pi-reference §5.0).
/// `foreign_source` is whether the call came from a different provider or API (not just a
/// different model of this one): its item id is then replaced by a hash, since OpenAI only
/// accepts item ids it issued itself.
pub fn normalize_tool_call_id(id: &str, model: &Model, foreign_source: bool) -> String {
    if !ITEM_ID_PROVIDERS.contains(&model.provider.as_str()) || !id.contains('|') {
        return id_part(id);
    }
    let (call, item) = split_tool_call_id(id);
    let item = item.unwrap_or("");
    let mut item_id = if foreign_source {
        format!("fc_{}", short_hash(item))
            .chars()
            .take(MAX_ID)
            .collect()
    } else {
        id_part(item)
    };
    if !item_id.starts_with("fc_") {
        item_id = id_part(&format!("fc_{item_id}"));
    }
    format!("{}|{item_id}", id_part(call))
}

/// The text signature of a message item: `{"v":1,"id":…,"phase"?:…}`.
pub fn encode_text_signature(id: &str, phase: Option<&str>) -> String {
    let mut payload = Map::new();
    payload.insert("v".into(), Value::from(1));
    payload.insert("id".into(), Value::String(id.to_owned()));
    if let Some(phase) = phase.filter(|p| !p.is_empty()) {
        payload.insert("phase".into(), Value::String(phase.to_owned()));
    }
    Value::Object(payload).to_string()
}

/// The message id and phase a text signature carries. A v1 JSON signature gives both (phase only
/// when it is `commentary` or `final_answer`); anything else is a legacy plain id.
pub fn parse_text_signature(signature: &str) -> (String, Option<String>) {
    if signature.starts_with('{')
        && let Ok(Value::Object(parsed)) = serde_json::from_str::<Value>(signature)
        && parsed.get("v").and_then(Value::as_i64) == Some(1)
        && let Some(id) = parsed.get("id").and_then(Value::as_str)
    {
        let phase = parsed
            .get("phase")
            .and_then(Value::as_str)
            .filter(|p| matches!(*p, "commentary" | "final_answer"))
            .map(str::to_owned);
        return (id.to_owned(), phase);
    }
    (signature.to_owned(), None)
}

/// The id a replayed message item gets: its signature's id, `msg_<index>` when there is none,
/// `msg_<shortHash>` when it is longer than OpenAI allows.
pub fn message_item_id(signature_id: Option<&str>, index: usize) -> String {
    match signature_id.filter(|id| !id.is_empty()) {
        None => format!("msg_{index}"),
        Some(id) if id.chars().count() > MAX_ID => format!("msg_{}", short_hash(id)),
        Some(id) => id.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_hash_matches_pi_for_ascii_empty_and_astral_text() {
        let hashes: Vec<String> = [
            "",
            "fc_abc",
            "msg_0fabc13af1ee0049006a691dfebdc881a1ae18d027c313d8ce",
            "héllo😀",
        ]
        .iter()
        .map(|s| short_hash(s))
        .collect();
        assert_eq!(
            hashes,
            [
                "k4n83c7h0j2b",
                "1qaoofs1vxahbg",
                "lel57qap3iys",
                "1olj6nu1frhbfw"
            ]
        );
    }

    #[test]
    fn text_signatures_round_trip_and_legacy_ones_are_plain_ids() {
        let signature = encode_text_signature("msg_1", Some("commentary"));
        assert_eq!(signature, r#"{"v":1,"id":"msg_1","phase":"commentary"}"#);
        assert_eq!(
            [
                parse_text_signature(&signature),
                parse_text_signature(r#"{"v":1,"id":"msg_2","phase":"other"}"#),
                parse_text_signature("msg_legacy"),
                parse_text_signature("{not json"),
            ],
            [
                ("msg_1".to_owned(), Some("commentary".to_owned())),
                ("msg_2".to_owned(), None),
                ("msg_legacy".to_owned(), None),
                ("{not json".to_owned(), None),
            ]
        );
    }
}
