//! Decoding one entry line in one pass.
//!
//! A session of 100,000 entries must open in well under 300 ms, so a line is read once: the
//! base fields go straight into their slots, the `message` is only located (a borrowed raw
//! slice whose place in the file's buffer the [`EntryMessage`] keeps, decoded when first
//! needed), and only the few fields of the rare non-message entries become `Value`s.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, de::DeserializeSeed};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::entry::{EntryKind, SessionEntry};
use crate::message::{Buffer, EntryMessage};

/// Why a line is not a usable entry.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LineError {
    /// Not JSON, or not a JSON object.
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// No string `type`.
    #[error("entry has no \"type\"")]
    MissingType,
    /// No string `id`.
    #[error("entry has no \"id\"")]
    MissingId,
    /// A second `session` header.
    #[error("unexpected session header")]
    ExtraHeader,
}

/// Decodes the entry line `buffer[line]` (not the header); a message stays undecoded.
pub(crate) fn decode_entry(buffer: &Buffer, line: Range<usize>) -> Result<SessionEntry, LineError> {
    let bytes = buffer.get(line).unwrap_or_default();
    let raw: RawEntry<'_> = serde_json::from_slice(bytes)?;
    let entry_type = raw.entry_type.ok_or(LineError::MissingType)?;
    if entry_type == "session" {
        return Err(LineError::ExtraHeader);
    }
    let id = raw.id.ok_or(LineError::MissingId)?;
    let mut rest = raw.rest;
    let message = raw.message.map(|m| locate(buffer, m));
    let kind = build_kind(&entry_type, message, &mut rest)?;
    Ok(SessionEntry {
        id,
        parent_id: raw.parent_id,
        timestamp: raw.timestamp.unwrap_or_default(),
        kind,
        extra: rest,
    })
}

/// The fields of one line, before the entry type decides what the rest mean.
struct RawEntry<'a> {
    entry_type: Option<String>,
    id: Option<String>,
    parent_id: Option<String>,
    timestamp: Option<String>,
    message: Option<&'a RawValue>,
    rest: Map<String, Value>,
}

enum Key<'a> {
    Type,
    Id,
    ParentId,
    Timestamp,
    Message,
    Other(Cow<'a, str>),
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(known_key(v).unwrap_or(Key::Other(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(known_key(v).unwrap_or_else(|| Key::Other(Cow::Owned(v.to_owned()))))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

fn known_key<'a>(key: &str) -> Option<Key<'a>> {
    Some(match key {
        "type" => Key::Type,
        "id" => Key::Id,
        "parentId" => Key::ParentId,
        "timestamp" => Key::Timestamp,
        "message" => Key::Message,
        _ => return None,
    })
}

/// A string field, or `None` when it holds anything else (kept lenient: such an entry is
/// still part of the tree).
struct LenientString;

impl<'de> DeserializeSeed<'de> for LenientString {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::String(s) => Some(s),
            _ => None,
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawEntry<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = RawEntry<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a session entry object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEntry<'de>, A::Error> {
                let mut raw = RawEntry {
                    entry_type: None,
                    id: None,
                    parent_id: None,
                    timestamp: None,
                    message: None,
                    rest: Map::new(),
                };
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    match key {
                        Key::Type => raw.entry_type = map.next_value_seed(LenientString)?,
                        Key::Id => raw.id = map.next_value_seed(LenientString)?,
                        Key::ParentId => raw.parent_id = map.next_value_seed(LenientString)?,
                        Key::Timestamp => raw.timestamp = map.next_value_seed(LenientString)?,
                        Key::Message => raw.message = Some(map.next_value()?),
                        Key::Other(name) => {
                            raw.rest.insert(name.into_owned(), map.next_value()?);
                        }
                    }
                }
                Ok(raw)
            }
        }
        deserializer.deserialize_map(EntryVisitor)
    }
}

/// Takes typed fields out of the leftover map, leaving anything of an unexpected type in place
/// (it is then written back untouched).
struct Fields<'m>(&'m mut Map<String, Value>);

impl Fields<'_> {
    fn is_str(&self, key: &str) -> bool {
        matches!(self.0.get(key), Some(Value::String(_)))
    }
    fn take_str(&mut self, key: &str) -> Option<String> {
        match self.0.get(key) {
            Some(Value::String(_)) => match self.0.shift_remove(key) {
                Some(Value::String(s)) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }
    fn take_bool(&mut self, key: &str) -> Option<bool> {
        let b = self.0.get(key)?.as_bool()?;
        self.0.shift_remove(key);
        Some(b)
    }
    fn take_u64(&mut self, key: &str) -> Option<u64> {
        let v = self.0.get(key)?;
        let n = v
            .as_u64()
            .or_else(|| v.as_f64().map(|f| f.max(0.0) as u64))?;
        self.0.shift_remove(key);
        Some(n)
    }
    fn take_value(&mut self, key: &str) -> Option<Value> {
        self.0.shift_remove(key)
    }
}

/// Where a message sits: a range of the shared buffer, or, should the parser ever hand back a
/// copy instead of a slice of its input, a buffer of its own.
enum Located<'a> {
    Shared(&'a Buffer, Range<usize>),
    Copy(&'a RawValue),
}

fn locate<'a>(buffer: &'a Buffer, raw: &'a RawValue) -> Located<'a> {
    let text = raw.get();
    let start = text.as_ptr().addr().wrapping_sub(buffer.as_ptr().addr());
    let range = start..start.wrapping_add(text.len());
    match buffer.get(range.clone()) {
        Some(slice) if slice.as_ptr() == text.as_ptr() => Located::Shared(buffer, range),
        _ => Located::Copy(raw),
    }
}

impl Located<'_> {
    fn into_message(self) -> EntryMessage {
        match self {
            Located::Shared(buffer, range) => EntryMessage::from_raw(buffer.clone(), range),
            Located::Copy(raw) => {
                let bytes = raw.get().as_bytes().to_vec();
                let len = bytes.len();
                EntryMessage::from_raw(Buffer::new(bytes), 0..len)
            }
        }
    }

    fn text(&self) -> &str {
        match self {
            Located::Shared(buffer, range) => buffer
                .get(range.clone())
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or_default(),
            Located::Copy(raw) => raw.get(),
        }
    }
}

fn build_kind(
    entry_type: &str,
    mut message: Option<Located<'_>>,
    rest: &mut Map<String, Value>,
) -> Result<EntryKind, serde_json::Error> {
    let mut f = Fields(rest);
    let kind = match entry_type {
        "message" => message.take().map(|m| EntryKind::Message(m.into_message())),
        "model_change" if f.is_str("provider") && f.is_str("modelId") => {
            Some(EntryKind::ModelChange {
                provider: f.take_str("provider").unwrap_or_default(),
                model_id: f.take_str("modelId").unwrap_or_default(),
            })
        }
        "thinking_level_change" if f.is_str("thinkingLevel") => {
            Some(EntryKind::ThinkingLevelChange {
                thinking_level: f.take_str("thinkingLevel").unwrap_or_default(),
            })
        }
        "compaction" if f.is_str("summary") && f.is_str("firstKeptEntryId") => {
            Some(EntryKind::Compaction {
                summary: f.take_str("summary").unwrap_or_default(),
                first_kept_entry_id: f.take_str("firstKeptEntryId").unwrap_or_default(),
                tokens_before: f.take_u64("tokensBefore").unwrap_or(0),
                details: f.take_value("details"),
                usage: f.take_value("usage").filter(Value::is_object),
                from_hook: f.take_bool("fromHook"),
                system_message: f.take_value("systemMessage").filter(Value::is_object),
            })
        }
        "branch_summary" if f.is_str("summary") && f.is_str("fromId") => {
            Some(EntryKind::BranchSummary {
                from_id: f.take_str("fromId").unwrap_or_default(),
                summary: f.take_str("summary").unwrap_or_default(),
                details: f.take_value("details"),
                usage: f.take_value("usage").filter(Value::is_object),
                from_hook: f.take_bool("fromHook"),
            })
        }
        "label" if f.is_str("targetId") => Some(EntryKind::Label {
            target_id: f.take_str("targetId").unwrap_or_default(),
            label: f.take_str("label"),
        }),
        "context_edit" if f.is_str("targetId") => Some(EntryKind::ContextEdit {
            target_id: f.take_str("targetId").unwrap_or_default(),
            replacement: f.take_value("replacement").filter(|v| !v.is_null()),
        }),
        "session_info" => Some(EntryKind::SessionInfo {
            name: f.take_str("name"),
        }),
        "custom" if f.is_str("customType") => Some(EntryKind::Custom {
            custom_type: f.take_str("customType").unwrap_or_default(),
            data: f.take_value("data"),
        }),
        "custom_message" if f.is_str("customType") && f.0.contains_key("content") => {
            Some(EntryKind::CustomMessage {
                custom_type: f.take_str("customType").unwrap_or_default(),
                content: f.take_value("content").unwrap_or(Value::Null),
                display: f.take_bool("display").unwrap_or(false),
                details: f.take_value("details"),
            })
        }
        _ => None,
    };
    match kind {
        Some(kind) => Ok(kind),
        None => {
            // Keep an undecodable `message` too, so writing the entry back loses nothing.
            if let Some(raw) = message {
                rest.insert("message".to_owned(), serde_json::from_str(raw.text())?);
            }
            Ok(EntryKind::Unknown {
                entry_type: entry_type.to_owned(),
            })
        }
    }
}
