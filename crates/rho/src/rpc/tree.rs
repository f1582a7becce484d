//! `get_entries` and `get_tree` (Pi 1.6): the session's entries as they were appended, and as
//! the tree they form. A session can be a chain of many thousand entries, so the tree is
//! written as JSON text with an explicit stack, never by recursion.

use std::collections::HashMap;
use std::fmt::Write as _;

use rho_session::{SessionEntry, SessionFile};
use serde_json::Value;

/// Entries after `since` (all without it), in append order, with the leaf:
/// `{entries, leafId}`. `Err` is Pi's text for an unknown `since`.
pub fn entries_json(file: &SessionFile, since: Option<&str>) -> Result<Value, String> {
    let entries = file.entries();
    let start = match since {
        None => 0,
        Some(id) => match entries.iter().position(|e| e.id == id) {
            Some(index) => index + 1,
            None => return Err(format!("Entry not found: {id}")),
        },
    };
    let entries = serde_json::to_value(&entries[start..]).map_err(|e| e.to_string())?;
    Ok(serde_json::json!({"entries": entries, "leafId": file.leaf_id()}))
}

/// `{tree:[{entry, children, label?, labelTimestamp?}], leafId}` as JSON text. Roots are the
/// entries without a parent, their own parent, or a parent that is not in the file; children
/// follow their timestamps (file order among equals).
pub fn tree_json(file: &SessionFile) -> Result<String, serde_json::Error> {
    let entries = file.entries();
    let index: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    let mut roots = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        match entry.parent_id.as_deref().and_then(|p| index.get(p)) {
            Some(&parent) if parent != i => children[parent].push(i),
            _ => roots.push(i),
        }
    }
    let by_time = |list: &mut Vec<usize>| {
        list.sort_by(|a, b| entries[*a].timestamp.cmp(&entries[*b].timestamp))
    };
    by_time(&mut roots);
    for list in &mut children {
        by_time(list);
    }
    let labels = file.labels();
    let mut out = String::from("{\"tree\":[");
    // Each frame: the children still to write of one open node.
    let mut stack: Vec<(Option<usize>, std::vec::IntoIter<usize>)> =
        vec![(None, roots.into_iter())];
    let mut first = true;
    while let Some((node, rest)) = stack.last_mut() {
        match rest.next() {
            Some(child) => {
                if !first {
                    out.push(',');
                }
                open_node(&mut out, &entries[child])?;
                first = true;
                let grandchildren = std::mem::take(&mut children[child]);
                stack.push((Some(child), grandchildren.into_iter()));
            }
            None => {
                let closed = *node;
                stack.pop();
                if let Some(closed) = closed {
                    close_node(&mut out, labels.get(&entries[closed].id))?;
                }
                first = false;
            }
        }
    }
    let _ = write!(
        out,
        "],\"leafId\":{}}}",
        serde_json::to_string(&file.leaf_id())?
    );
    Ok(out)
}

fn open_node(out: &mut String, entry: &SessionEntry) -> Result<(), serde_json::Error> {
    out.push_str("{\"entry\":");
    out.push_str(&serde_json::to_string(entry)?);
    out.push_str(",\"children\":[");
    Ok(())
}

fn close_node(out: &mut String, label: Option<&(String, String)>) -> Result<(), serde_json::Error> {
    out.push(']');
    if let Some((label, at)) = label {
        let _ = write!(
            out,
            ",\"label\":{},\"labelTimestamp\":{}",
            serde_json::to_string(label)?,
            serde_json::to_string(at)?
        );
    }
    out.push('}');
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use rho_ai::UserMessage;

    use super::*;

    fn file_with_branch() -> (SessionFile, [String; 3]) {
        let mut file = SessionFile::in_memory("/w");
        let a = file.append_message(UserMessage::text("a").into()).unwrap();
        let b = file.append_message(UserMessage::text("b").into()).unwrap();
        file.branch(&a).unwrap();
        let c = file.append_message(UserMessage::text("c").into()).unwrap();
        file.append_label_change(&b, Some("kept")).unwrap();
        (file, [a, b, c])
    }

    #[test]
    fn the_tree_nests_branches_under_their_parent_and_carries_labels() {
        let (file, [a, b, c]) = file_with_branch();
        let tree: Value = serde_json::from_str(&tree_json(&file).unwrap()).unwrap();
        let root = &tree["tree"][0];
        assert_eq!(root["entry"]["id"], a.as_str());
        let kids: Vec<&str> = root["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["entry"]["id"].as_str().unwrap())
            .collect();
        assert_eq!(&kids[..2], [b.as_str(), c.as_str()]);
        assert_eq!(root["children"][0]["label"], "kept");
        assert!(root["children"][0]["labelTimestamp"].is_string());
        assert!(root.get("label").is_none());
        assert_eq!(tree["leafId"], file.leaf_id().unwrap());
    }

    #[test]
    fn a_chain_of_a_hundred_thousand_entries_is_written_without_recursion() {
        let mut file = SessionFile::in_memory("/w");
        for i in 0..100_000 {
            file.append_message(UserMessage::text(i.to_string()).into())
                .unwrap();
        }
        let text = tree_json(&file).unwrap();
        assert!(text.starts_with("{\"tree\":[{\"entry\":"));
        assert_eq!(text.matches("\"children\":[").count(), 100_000);
    }

    #[test]
    fn entries_since_an_id_are_the_later_ones_and_an_unknown_id_is_pis_error() {
        let (file, [a, ..]) = file_with_branch();
        let all = entries_json(&file, None).unwrap();
        assert_eq!(all["entries"].as_array().unwrap().len(), 4);
        let later = entries_json(&file, Some(&a)).unwrap();
        assert_eq!(later["entries"].as_array().unwrap().len(), 3);
        assert_eq!(
            entries_json(&file, Some("nope")).unwrap_err(),
            "Entry not found: nope"
        );
    }
}
