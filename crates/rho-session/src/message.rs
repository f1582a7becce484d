//! A `message` entry's message, decoded on first use.
//!
//! Decoding a message into rho-ai's types costs several times more than reading its line, and a
//! long session's context usually needs only the messages after its last compaction. So an open
//! reads each line's envelope only and keeps the message as its bytes in the file's buffer (one
//! shared allocation); [`EntryMessage::get`] decodes it once, on first use, and keeps the result.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use rho_ai::{AgentMessage, CustomMessage, SystemMessage};
use rho_ai::{AssistantMessage, Message, ToolResultMessage, UserMessage};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The bytes a session was read from, shared by every message read from them.
pub(crate) type Buffer = Arc<Vec<u8>>;

/// The message of a `message` entry: either built in this process, or read from the file and
/// decoded when first asked for.
#[derive(Clone)]
pub struct EntryMessage {
    /// Where the message's JSON sits, for messages read from a file.
    source: Option<(Buffer, Range<usize>)>,
    decoded: OnceLock<Result<AgentMessage, MessageError>>,
}

/// Why a `message` entry's message cannot be decoded. The entry stays in the tree (and in the
/// file, unchanged); the context leaves the message out and reports it as a [`SkippedMessage`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// The message's strings are not valid UTF-8 (JSON text must be).
    #[error("message is not valid UTF-8")]
    NotUtf8,
    /// Not a JSON object with one string `role`.
    #[error("message has no string \"role\"")]
    NoRole,
    /// The message does not fit the shape its role names (for `user`, `assistant` and
    /// `toolResult`, rho-ai's message types; for other roles, an object).
    #[error("malformed {role} message: {reason}")]
    Malformed {
        /// The message's role.
        role: String,
        /// What the decoder found wrong.
        reason: String,
    },
}

/// A message on a context's path that could not be decoded and was left out of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedMessage {
    /// The `message` entry's id.
    pub entry_id: String,
    /// Its 1-based line in the file, when it was read from one.
    pub line: Option<usize>,
    /// Why it could not be decoded.
    pub error: MessageError,
}

impl fmt::Display for SkippedMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skipped the message of entry {}", self.entry_id)?;
        if let Some(line) = self.line {
            write!(f, " on line {line}")?;
        }
        write!(f, ": {}", self.error)
    }
}

impl EntryMessage {
    /// A message built in this process (already decoded).
    pub fn new(message: AgentMessage) -> Self {
        EntryMessage {
            source: None,
            decoded: OnceLock::from(Ok(message)),
        }
    }

    /// A message read from `buffer[range]`, decoded on first use.
    pub(crate) fn from_raw(buffer: Buffer, range: Range<usize>) -> Self {
        EntryMessage {
            source: Some((buffer, range)),
            decoded: OnceLock::new(),
        }
    }

    /// The message, decoded now if it was not yet. Thread-safe: concurrent callers decode it
    /// once.
    pub fn get(&self) -> Result<&AgentMessage, &MessageError> {
        self.decoded
            .get_or_init(
                || match std::str::from_utf8(self.raw_bytes().unwrap_or_default()) {
                    Ok(text) => decode_message(text),
                    Err(_) => Err(MessageError::NotUtf8),
                },
            )
            .as_ref()
    }

    /// Whether the message has been decoded (a message built in this process always has).
    pub fn is_decoded(&self) -> bool {
        self.decoded.get().is_some()
    }

    /// The message's JSON exactly as the file holds it; `None` for a message built in this
    /// process.
    pub fn raw(&self) -> Option<&str> {
        self.raw_bytes().and_then(|b| std::str::from_utf8(b).ok())
    }

    fn raw_bytes(&self) -> Option<&[u8]> {
        self.source
            .as_ref()
            .and_then(|(buffer, range)| buffer.get(range.clone()))
    }

    /// The 1-based line of the file the message was read from.
    pub(crate) fn line(&self) -> Option<usize> {
        let (buffer, range) = self.source.as_ref()?;
        let before = buffer.get(..range.start)?;
        Some(before.iter().filter(|&&b| b == b'\n').count() + 1)
    }

    /// The role without decoding, when it is cheap to know: decoded already, or written first
    /// (as Pi and rho write every message). `None`: unknown until decoded.
    pub(crate) fn role_hint(&self) -> Option<&str> {
        match self.decoded.get() {
            Some(Ok(m)) => Some(m.role()),
            Some(Err(_)) => None,
            None => self.raw_bytes().and_then(leading_role),
        }
    }
}

impl From<AgentMessage> for EntryMessage {
    fn from(message: AgentMessage) -> Self {
        EntryMessage::new(message)
    }
}

/// Two messages are equal when they decode to equal messages; two undecodable ones when their
/// JSON is the same.
impl PartialEq for EntryMessage {
    fn eq(&self, other: &Self) -> bool {
        match (self.get(), other.get()) {
            (Ok(a), Ok(b)) => a == b,
            (Err(a), Err(b)) => a == b && self.raw() == other.raw(),
            _ => false,
        }
    }
}

impl fmt::Debug for EntryMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.decoded.get(), self.raw()) {
            (Some(Ok(m)), _) => f.debug_tuple("EntryMessage").field(m).finish(),
            (_, Some(raw)) => f.debug_struct("EntryMessage").field("raw", &raw).finish(),
            (decoded, None) => f
                .debug_struct("EntryMessage")
                .field("decoded", &decoded)
                .finish(),
        }
    }
}

/// A message read from a file is written back byte for byte (fields rho-ai's types do not know
/// included); one built here is encoded.
impl Serialize for EntryMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        if let Some(raw) = self.raw() {
            let raw: &RawValue = serde_json::from_str(raw).map_err(S::Error::custom)?;
            return raw.serialize(serializer);
        }
        match self.get() {
            Ok(message) => message.serialize(serializer),
            Err(e) => Err(S::Error::custom(e)),
        }
    }
}

/// The role when it is the first key and needs no unescaping, as in every message Pi and rho
/// write: saves a second scan of the message.
fn leading_role(text: &[u8]) -> Option<&str> {
    let rest = text.strip_prefix(b"{\"role\":\"")?;
    let end = memchr::memchr(b'"', rest)?;
    let role = &rest[..end];
    if role.contains(&b'\\') {
        return None;
    }
    std::str::from_utf8(role).ok()
}

#[derive(Deserialize)]
struct RoleProbe<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
}

/// Decodes a message by its role. Unlike `AgentMessage`'s own deserializer, a `user`,
/// `assistant` or `toolResult` message that does not fit its type is an error rather than a
/// custom-role message: in a session file it is damage, and a custom `user` message would
/// silently vanish from what the model sees.
///
/// Takes `&str`: its strings then need no UTF-8 check each, which makes decoding a long
/// session's messages measurably faster than from bytes.
pub(crate) fn decode_message(text: &str) -> Result<AgentMessage, MessageError> {
    let role = match leading_role(text.as_bytes()) {
        Some(role) => Cow::Borrowed(role),
        None => {
            serde_json::from_str::<RoleProbe<'_>>(text)
                .map_err(|_| MessageError::NoRole)?
                .role
        }
    };
    let malformed = |e: serde_json::Error| MessageError::Malformed {
        role: role.clone().into_owned(),
        reason: e.to_string(),
    };
    Ok(match role.as_ref() {
        "user" => AgentMessage::Llm(Message::User(Arc::new(
            serde_json::from_str::<UserMessage>(text).map_err(malformed)?,
        ))),
        "assistant" => AgentMessage::Llm(Message::Assistant(Arc::new(
            serde_json::from_str::<AssistantMessage>(text).map_err(malformed)?,
        ))),
        "toolResult" => AgentMessage::Llm(Message::ToolResult(Arc::new(
            serde_json::from_str::<ToolResultMessage>(text).map_err(malformed)?,
        ))),
        "system" => AgentMessage::System(Arc::new(
            serde_json::from_str::<SystemMessage>(text).map_err(malformed)?,
        )),
        _ => AgentMessage::Custom(Arc::new(
            serde_json::from_str::<CustomMessage>(text).map_err(malformed)?,
        )),
    })
}
