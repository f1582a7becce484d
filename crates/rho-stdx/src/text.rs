//! Text helpers.

/// Whether `text` matches `pattern` whole, where `*` matches any run of characters (none too)
/// and every other character itself: Pi's tool-name patterns (`--tools`, `toolExposure`) and
/// rho's `tool` rules.
pub fn wildcard_match(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut remaining) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return remaining.is_empty();
    };
    for part in middle {
        match remaining.find(part) {
            Some(at) => remaining = &remaining[at + part.len()..],
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_star_matches_any_run_and_the_rest_matches_itself() {
        for (pattern, text, matches) in [
            ("e*", "echo", true),
            ("e*", "e", true),
            ("*", "", true),
            ("", "", true),
            ("", "x", false),
            ("get_*_by_id", "get_user_by_id", true),
            ("get_*_by_id", "get_user", false),
            ("a*b*c", "abc", true),
            ("a*b*c", "acb", false),
            ("echo", "echo", true),
            ("echo", "echoes", false),
            ("ab*ab", "ab", false),
            ("mcp__github__*", "mcp__github__create_issue", true),
        ] {
            assert_eq!(wildcard_match(pattern, text), matches, "{pattern} {text}");
        }
    }
}
