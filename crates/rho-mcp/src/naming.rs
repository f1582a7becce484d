//! Names: an MCP tool is `mcp__<server>__<tool>` with every character but `[A-Za-z0-9_]`
//! replaced by `_` (per UTF-16 unit, as Pi's JavaScript does), at most 64 characters; a name
//! that is too long or taken gets a hash of the original names as its suffix.

use sha2::{Digest, Sha256};

/// Provider tool names are at most 64 characters of `[A-Za-z0-9_-]`.
const MAX_TOOL_NAME_LENGTH: usize = 64;

/// The model-facing name of `server`'s tool `tool`; `is_taken` says whether a candidate is
/// already used by another tool.
pub fn tool_name(server: &str, tool: &str, is_taken: impl Fn(&str) -> bool) -> String {
    let name = sanitize(&format!("mcp__{server}__{tool}"));
    if name.len() <= MAX_TOOL_NAME_LENGTH && !is_taken(&name) {
        return name;
    }
    let mut hasher = Sha256::new();
    hasher.update(server.as_bytes());
    hasher.update([0u8]);
    hasher.update(tool.as_bytes());
    let hash: String = hasher
        .finalize()
        .iter()
        .take(4)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let keep = MAX_TOOL_NAME_LENGTH - hash.len() - 1;
    format!("{}_{hash}", &name[..name.len().min(keep)])
}

/// Every character but `[A-Za-z0-9_]` as `_`, one per UTF-16 unit (a character outside the
/// basic plane becomes two).
fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    out
}

/// A server's namespace, `mcp__<server with - as _>`: in the system prompt's server list, in
/// the credential store's keys, and to tell apart names that would collide.
pub fn namespace(server: &str) -> String {
    format!("mcp__{}", server.replace('-', "_"))
}

/// The first line of the configured description, else of the server's instructions.
pub fn server_summary(description: Option<&str>, instructions: Option<&str>) -> String {
    let text = description
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .or_else(|| instructions.map(str::trim))
        .unwrap_or("");
    text.split('\n').next().unwrap_or("").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitized_and_long_or_taken_ones_hashed_as_pi_does() {
        assert_eq!(tool_name("demo", "echo", |_| false), "mcp__demo__echo");
        assert_eq!(
            tool_name("dev-radius", "read.file", |_| false),
            "mcp__dev_radius__read_file"
        );
        assert_eq!(tool_name("s", "a😀", |_| false), "mcp__s__a__");
        // Observed with Pi 1.6: `read-file` and `read_file` of one server.
        assert_eq!(
            tool_name("demo", "read-file", |_| true),
            "mcp__demo__read_file_9298e1df"
        );
        assert_eq!(
            tool_name("demo", "read_file", |_| true),
            "mcp__demo__read_file_0521a660"
        );
        let long = tool_name("server", &"x".repeat(80), |_| false);
        assert_eq!(long.len(), 64);
        assert_eq!(
            &long[..55],
            &format!("mcp__server__{}", "x".repeat(43))[..55]
        );
    }

    #[test]
    fn summaries_take_the_first_line_of_the_description_or_the_instructions() {
        assert_eq!(
            server_summary(Some("  Zeta tools\nmore"), None),
            "Zeta tools"
        );
        assert_eq!(
            server_summary(Some("  "), Some("Line one.\nTwo")),
            "Line one."
        );
        assert_eq!(server_summary(None, None), "");
        assert_eq!(namespace("dev-radius"), "mcp__dev_radius");
    }
}
