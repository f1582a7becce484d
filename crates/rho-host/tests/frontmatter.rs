//! `parse_frontmatter` on hostile input: it answers every text with a document or an error,
//! never a panic.

use proptest::prelude::*;
use rho_host::prompt::frontmatter::{FrontmatterError, parse_frontmatter};

/// The input that panicked: a block scalar line indented by one space and a no-break space
/// (two bytes), so cutting the block's two-byte indentation split a character.
const MULTIBYTE_INDENT: &str = "---\nname: x\ndescription: |\n  text\n \u{a0}x\n---\nbody\n";

#[test]
fn block_scalar_line_indented_with_a_multibyte_character_is_an_error_not_a_panic() {
    assert_eq!(
        parse_frontmatter(MULTIBYTE_INDENT),
        Err(FrontmatterError {
            line: 4,
            reason: "block scalar lines must not be less indented than their first line".into(),
        })
    );
}

#[test]
fn block_scalar_keeps_multibyte_characters_after_its_indentation() {
    let doc =
        parse_frontmatter("---\na: |\n  \u{a0}é\n   日本\n\n  😀\nb: >-\n  \u{3000}x\n  y\n---\n")
            .map(|doc| doc.frontmatter);
    let fm = doc.as_ref().map_err(ToString::to_string);
    assert_eq!(
        fm.map(|fm| (fm.string("a"), fm.string("b"))),
        Ok((Some("\u{a0}é\n 日本\n\n😀\n"), Some("\u{3000}x y")))
    );
}

#[test]
fn less_indented_block_scalar_line_is_rejected_as_pi_rejects_it() {
    let error = parse_frontmatter("---\nd: |\n    first\n  second\n---\n").map(|_| ());
    assert_eq!(
        error,
        Err(FrontmatterError {
            line: 3,
            reason: "block scalar lines must not be less indented than their first line".into(),
        })
    );
    // Lines of spaces only are blank lines of the block, however short.
    let doc = parse_frontmatter("---\nd: |\n    a\n  \n    b\n---\n").map(|d| d.frontmatter);
    assert_eq!(
        doc.as_ref().ok().and_then(|fm| fm.string("d")),
        Some("a\n\nb\n")
    );
}

/// Frontmatter-shaped text: lines built from the characters the parser acts on, mixed with
/// multi-byte ones (no-break and ideographic spaces, accents, emoji) and CR line ends.
fn frontmatter_like() -> impl Strategy<Value = String> {
    let line = "[ \t|>:#\"'\\\\\\-+~\\[\\]{}a-cé\u{a0}\u{3000}😀\r]{0,14}";
    (prop::collection::vec(line, 0..10), any::<bool>(), ".{0,8}").prop_map(
        |(lines, closed, body)| {
            let mut text = String::from("---\n");
            for line in lines {
                text.push_str(&line);
                text.push('\n');
            }
            if closed {
                text.push_str("---\n");
            }
            text.push_str(&body);
            text
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn parse_frontmatter_never_panics(text in prop_oneof![frontmatter_like(), any::<String>()]) {
        let _ = parse_frontmatter(&text);
    }
}
