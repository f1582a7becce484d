//! Public fields of a struct, read from its source.

/// The names of the `pub`/`pub(…)` fields of `struct name { … }` in `source`; `None` when the
/// struct is not there (a renamed type must be renamed in the check too).
pub fn public_fields(source: &str, name: &str) -> Option<Vec<String>> {
    let start = source.lines().position(|line| {
        let line = line.trim_start();
        let line = line
            .strip_prefix("pub(crate) ")
            .or_else(|| line.strip_prefix("pub "))
            .unwrap_or(line);
        line.strip_prefix("struct ").is_some_and(|rest| {
            rest.starts_with(name) && rest[name.len()..].trim_start().starts_with(['{', '<'])
        })
    })?;
    let mut public = Vec::new();
    for line in source.lines().skip(start + 1) {
        let line = line.trim();
        if line.starts_with('}') {
            break;
        }
        if let Some(rest) = line.strip_prefix("pub") {
            let rest = rest.trim_start();
            let rest = match rest.strip_prefix('(') {
                Some(inner) => inner
                    .split_once(')')
                    .map_or("", |(_, after)| after)
                    .trim_start(),
                None => rest,
            };
            if let Some((field, _)) = rest.split_once(':') {
                public.push(field.trim().to_owned());
            }
        }
    }
    Some(public)
}

#[test]
fn public_fields_are_found_and_private_ones_are_not() {
    let source = "pub struct App {\n    /// doc\n    pub transcript: Vec<u8>,\n    status: u8,\n    pub(crate) editor: u8,\n}\nstruct Other { pub x: u8 }\n";
    assert_eq!(
        public_fields(source, "App"),
        Some(vec!["transcript".to_owned(), "editor".to_owned()])
    );
    assert_eq!(public_fields(source, "Missing"), None);
}
