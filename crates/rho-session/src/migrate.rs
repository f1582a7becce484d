//! Older session formats brought to version 3, as Pi's `migrateToCurrentVersion` does.
//!
//! v1 → v2: entries get ids chained by `parentId`, and a compaction's `firstKeptEntryIndex`
//! (an index into the file's lines, header included) becomes `firstKeptEntryId`.
//! v2 → v3: the message role `hookMessage` is renamed `custom`.

use std::collections::HashMap;

use serde_json::Value;

use crate::entry::{CURRENT_SESSION_VERSION, SessionHeader};
use crate::time::new_entry_id;

pub(crate) fn migrate(header: &mut SessionHeader, entries: &mut [Value], version: u64) {
    if version < 2 {
        v1_to_v2(entries);
    }
    if version < 3 {
        v2_to_v3(entries);
    }
    header.version = Some(CURRENT_SESSION_VERSION);
}

fn v1_to_v2(entries: &mut [Value]) {
    let mut taken: HashMap<String, ()> = HashMap::new();
    let mut prev: Option<String> = None;
    for i in 0..entries.len() {
        let id = new_entry_id(&taken);
        taken.insert(id.clone(), ());
        // Pi indexes its array with the header at 0, so index n is entries[n - 1] here.
        let kept_id = match entries[i]
            .get("firstKeptEntryIndex")
            .and_then(Value::as_u64)
        {
            Some(n)
                if n >= 1
                    && entries[i].get("type").and_then(Value::as_str) == Some("compaction") =>
            {
                let target = (n - 1) as usize;
                // A target later in the file has no id yet, as in Pi: the field stays unset.
                if target < i {
                    entries[target]
                        .get("id")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                } else if target == i {
                    Some(id.clone())
                } else {
                    None
                }
            }
            _ => None,
        };
        let Some(obj) = entries[i].as_object_mut() else {
            continue;
        };
        obj.insert("id".to_owned(), Value::String(id.clone()));
        obj.insert(
            "parentId".to_owned(),
            prev.map_or(Value::Null, Value::String),
        );
        if obj.get("type").and_then(Value::as_str) == Some("compaction")
            && obj.get("firstKeptEntryIndex").is_some_and(Value::is_number)
        {
            if let Some(kept) = kept_id {
                obj.insert("firstKeptEntryId".to_owned(), Value::String(kept));
            }
            obj.shift_remove("firstKeptEntryIndex");
        }
        prev = Some(id);
    }
}

fn v2_to_v3(entries: &mut [Value]) {
    for entry in entries {
        if entry.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        let Some(message) = entry.get_mut("message").and_then(Value::as_object_mut) else {
            continue;
        };
        if message.get("role").and_then(Value::as_str) == Some("hookMessage") {
            message.insert("role".to_owned(), Value::from("custom"));
        }
    }
}
