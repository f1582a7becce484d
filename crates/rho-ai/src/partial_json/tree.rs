//! Where the scanner's values live in the arguments it edits in place: the open containers as a
//! path from the root, each step the last entry or a key.

use serde_json::Value;

/// How a value is reached from its container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    /// The container's last entry (an array's last element, an object's newest key).
    Last,
    /// An object's entry under this key: a repeated key keeps its first key's place.
    Key(String),
}

/// What an open container is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `{`…`}`.
    Object,
    /// `[`…`]`.
    Array,
}

/// One open container.
#[derive(Clone, Debug)]
pub(super) struct Frame {
    /// Object or array.
    pub(super) kind: Kind,
    /// Where it sits in its parent (unused for the root).
    pub(super) at: Slot,
}

/// The innermost open container: `root` followed down `frames`, whose first is the root.
pub(super) fn container<'v>(root: &'v mut Value, frames: &[Frame]) -> Option<&'v mut Value> {
    let mut node = root;
    for frame in frames.iter().skip(1) {
        node = child(node, &frame.at)?;
    }
    Some(node)
}

/// The entry of `node` at `at`.
pub(super) fn child<'v>(node: &'v mut Value, at: &Slot) -> Option<&'v mut Value> {
    match (node, at) {
        (Value::Object(map), Slot::Last) => map.values_mut().next_back(),
        (Value::Object(map), Slot::Key(key)) => map.get_mut(key),
        (Value::Array(items), _) => items.last_mut(),
        _ => None,
    }
}

/// Puts `value` into `container`: under `key` in an object (a repeated key's value is replaced
/// in its place, as a JSON parser does), at the end of an array. Returns where it went.
pub(super) fn insert(container: &mut Value, key: String, value: Value) -> Option<Slot> {
    match container {
        Value::Object(map) => match map.get_mut(&key) {
            Some(old) => {
                *old = value;
                Some(Slot::Key(key))
            }
            None => {
                map.insert(key, value);
                Some(Slot::Last)
            }
        },
        Value::Array(items) => {
            items.push(value);
            Some(Slot::Last)
        }
        _ => None,
    }
}
