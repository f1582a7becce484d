//! Target `frontmatter`: the YAML frontmatter of skill and prompt-template files.

use rho_host::prompt::frontmatter::{parse_frontmatter, strip_frontmatter};

/// Parses `data` as a skill file.
pub fn run(data: &[u8]) {
    let text = rho_fuzz::input::text(data);
    let parsed = parse_frontmatter(&text);
    assert_eq!(
        strip_frontmatter(&text),
        parsed.map(|document| document.body)
    );
}

rho_fuzz::main!(run);
