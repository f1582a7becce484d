//! The wire text of the messages of a conversation's previous request, reused by the next one.
//!
//! Every request carries the whole transcript, so writing it (escaping every string) is the cost
//! that grows with a session: at 1,000 turns it was most of rho's own time. Messages never
//! change once written and are shared (`Arc`), so a provider keeps, per message of its last
//! request, the serialized pieces ("units") the message became, and on the next request reuses
//! them for every message that is the same shared one at the same position, converted in the
//! same state, under the same key (the model, whose compat switches decide the shape). Only new
//! or changed messages are written; the body is then mostly copies of text already written.
//!
//! A unit is a [`RawValue`]: the exact bytes serde_json writes for the typed value it came
//! from, so a body built from cached units is byte for byte the body built without them.

use rho_ai::Message;
use serde_json::value::RawValue;

/// Serialized units per message of the last request, valid for one key.
#[derive(Debug)]
pub struct WireCache<K> {
    key: Option<K>,
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    /// The message the units were written from; holding it keeps its address from being reused
    /// by another message, so the address identifies it.
    source: Message,
    /// The conversion state the units were written in (provider-defined; 0 when none matters).
    state: u64,
    units: Vec<Box<RawValue>>,
}

impl<K> Default for WireCache<K> {
    fn default() -> Self {
        WireCache {
            key: None,
            entries: Vec::new(),
        }
    }
}

impl<K: PartialEq + Clone> WireCache<K> {
    /// Starts a request under `key`: units written under another key are dropped.
    pub fn start(&mut self, key: &K) {
        if self.key.as_ref() != Some(key) {
            self.entries.clear();
            self.key = Some(key.clone());
        }
    }

    /// The units of `message`, the `position`-th message of this request, converted in `state`:
    /// the cached ones when the entry at `position` is for this same shared message and state,
    /// otherwise the ones `write` returns, which are stored.
    pub fn units<E>(
        &mut self,
        position: usize,
        message: &Message,
        state: u64,
        write: impl FnOnce() -> Result<Vec<Box<RawValue>>, E>,
    ) -> Result<&[Box<RawValue>], E> {
        let hit = self
            .entries
            .get(position)
            .is_some_and(|entry| entry.state == state && Message::ptr_eq(&entry.source, message));
        if !hit {
            let entry = Entry {
                source: message.clone(),
                state,
                units: write()?,
            };
            if position < self.entries.len() {
                self.entries[position] = entry;
            } else {
                // Positions are visited in order, so `position` is the next one.
                self.entries.push(entry);
            }
        }
        Ok(self
            .entries
            .get(position)
            .map_or(&[][..], |entry| entry.units.as_slice()))
    }

    /// Ends the writing of a request of `len` messages: entries past it are dropped.
    pub fn finish(&mut self, len: usize) {
        self.entries.truncate(len);
    }

    /// The units stored for the `position`-th message (empty when there are none).
    pub fn get(&self, position: usize) -> &[Box<RawValue>] {
        self.entries
            .get(position)
            .map_or(&[][..], |entry| entry.units.as_slice())
    }
}

/// `value` serialized as one unit.
pub fn unit<T: serde::Serialize + ?Sized>(value: &T) -> Result<Box<RawValue>, serde_json::Error> {
    serde_json::value::to_raw_value(value)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use rho_ai::UserMessage;

    use super::*;

    fn user(text: &str) -> Message {
        Message::User(Arc::new(UserMessage::text(text)))
    }

    /// Fills the cache for `messages` (state 0 except where given), counting the writes.
    fn refresh(
        cache: &mut WireCache<&str>,
        key: &'static str,
        messages: &[Message],
        states: &[u64],
    ) -> (usize, Vec<String>) {
        cache.start(&key);
        let mut writes = 0;
        for (position, message) in messages.iter().enumerate() {
            let state = states.get(position).copied().unwrap_or(0);
            cache
                .units(position, message, state, || {
                    writes += 1;
                    let Message::User(user) = message else {
                        return Ok::<_, serde_json::Error>(Vec::new());
                    };
                    Ok(vec![unit(&user.text_content())?])
                })
                .unwrap();
        }
        cache.finish(messages.len());
        let texts = (0..messages.len())
            .flat_map(|p| cache.get(p).iter().map(|u| u.get().to_owned()))
            .collect();
        (writes, texts)
    }

    #[test]
    fn only_new_changed_or_restated_messages_are_written_again() {
        let mut cache = WireCache::default();
        let (a, b, c) = (user("a"), user("b"), user("c"));
        let equal_copy_of_b = Message::User(Arc::new(UserMessage::text("b")));
        let runs = [
            refresh(&mut cache, "m", &[a.clone(), b.clone()], &[]),
            refresh(&mut cache, "m", &[a.clone(), b.clone(), c.clone()], &[]),
            // An equal message that is not the same shared one is written again.
            refresh(
                &mut cache,
                "m",
                &[a.clone(), equal_copy_of_b, c.clone()],
                &[],
            ),
            // So is one converted in another state, and everything under another key.
            refresh(
                &mut cache,
                "m",
                &[a.clone(), b.clone(), c.clone()],
                &[0, 0, 7],
            ),
            refresh(&mut cache, "other", &[a.clone(), b.clone()], &[]),
            refresh(&mut cache, "other", std::slice::from_ref(&a), &[]),
        ];
        let text = |items: &[&str]| items.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>();
        assert_eq!(
            runs,
            [
                (2, text(&["a", "b"])),
                (1, text(&["a", "b", "c"])),
                (1, text(&["a", "b", "c"])),
                (2, text(&["a", "b", "c"])),
                (2, text(&["a", "b"])),
                (0, text(&["a"])),
            ]
        );
    }
}
