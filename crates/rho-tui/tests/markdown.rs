//! Assistant text rendered as Markdown: every element at 80 columns, a stream cut mid-code-block,
//! styles that follow the markup, and wrapping by display width.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ratatui::style::{Color, Modifier};
use ratatui::text::Line;
use rho_tui::view::markdown::render;

/// The rows as text, one per line, with trailing blanks cut (as a reader sees them).
pub fn rows(lines: &[Line]) -> String {
    let rows: Vec<String> = lines
        .iter()
        .map(|l| l.to_string().trim_end().to_owned())
        .collect();
    rows.join("\n")
}

/// The style of the first span whose text contains `needle`.
fn style_of(lines: &[Line], needle: &str) -> ratatui::style::Style {
    lines
        .iter()
        .flat_map(|l| l.spans.iter())
        .find(|s| s.content.contains(needle))
        .map(|s| s.style)
        .unwrap_or_else(|| panic!("no span contains {needle:?}"))
}

pub const EVERY_ELEMENT: &str = r#"# Fixing the parser

The bug is in `parse_line`: it reads **one byte too many** when the input ends in a *multi-byte* character, which ~~never~~ rarely happens in tests but often in real files.

## Steps

1. Reproduce it
2. Fix the bounds check
   - in `lexer.rs`
   - and in `reader.rs`
3. Add a test

- [x] found the cause
- [ ] wrote the fix

```rust
fn first_char(s: &str) -> Option<char> {
    s.chars().next()
}
```

> Measure before you optimise; the slow part is rarely where you think it is, and a long quote wraps.

### Links and tables

See [the docs](https://docs.rs/pulldown-cmark) and <https://example.com>.

| crate | why |
|---|---|
| syntect | highlighting |
| pulldown-cmark | parsing |

---
Done."#;

#[test]
fn a_reply_with_every_markdown_element_renders_at_80_columns() {
    insta::assert_snapshot!(rows(&render(EVERY_ELEMENT, 80)));
}

#[test]
fn a_reply_cut_off_mid_code_block_shows_the_open_block_without_its_closing_fence() {
    let partial = "Here is the fix:\n\n```python\ndef area(r):\n    return 3.14159 * r";
    let lines = render(partial, 80);
    assert_eq!(
        rows(&lines),
        "Here is the fix:\n\n```python\n  def area(r):\n      return 3.14159 * r"
    );
    insta::assert_snapshot!(rows(&lines));
    let keyword = style_of(&lines, "def");
    assert!(
        matches!(keyword.fg, Some(Color::Rgb(..))),
        "code in a known language is highlighted: {keyword:?}"
    );
}

#[test]
fn headings_emphasis_inline_code_and_links_are_styled() {
    let lines = render(EVERY_ELEMENT, 80);
    let heading = style_of(&lines, "Fixing the parser");
    assert!(
        heading
            .add_modifier
            .contains(Modifier::BOLD | Modifier::UNDERLINED)
    );
    assert!(
        style_of(&lines, "one byte")
            .add_modifier
            .contains(Modifier::BOLD)
    );
    assert!(
        style_of(&lines, "multi-byte")
            .add_modifier
            .contains(Modifier::ITALIC)
    );
    assert!(
        style_of(&lines, "never")
            .add_modifier
            .contains(Modifier::CROSSED_OUT)
    );
    assert_eq!(style_of(&lines, "parse_line").fg, Some(Color::Yellow));
    assert!(
        style_of(&lines, "the docs")
            .add_modifier
            .contains(Modifier::UNDERLINED)
    );
    assert_eq!(
        style_of(&lines, "(https://docs.rs/pulldown-cmark)").fg,
        Some(Color::DarkGray)
    );
}

#[test]
fn wide_characters_wrap_by_display_width_not_by_chars() {
    // Each ideograph is two columns wide: four of them fill eight columns.
    let lines = render("漢字漢字 漢字 かな", 8);
    assert_eq!(rows(&lines), "漢字漢字\n漢字\nかな");
}

#[test]
fn a_long_word_is_split_and_list_items_wrap_under_their_text() {
    let lines = render("- abcdefghijklmnop qr\n- short", 10);
    assert_eq!(rows(&lines), "- abcdefgh\n  ijklmnop\n  qr\n- short");
}

#[test]
fn an_empty_or_whitespace_document_renders_nothing() {
    assert_eq!(render("", 80), Vec::<Line>::new());
    assert_eq!(render("\n\n", 80), Vec::<Line>::new());
}

#[test]
fn broken_and_odd_input_renders_at_any_width_without_panicking() {
    let inputs = [
        "**unclosed *emphasis `code",
        "> - > 1. ```rust\n> - > 1. fn x() {\t}\r\n",
        "| a | b |\n|---|\n| 1 | 2 | 3 |",
        "[link](<> \"t\") ![img](x.png) <b>html</b>\n\n<div>\nblock\n</div>",
        "- a\n\n  b\n\n      indented code\n- c\n\n1) one\n2) two",
        "👩‍👩‍👧 e\u{301} \u{200b} 漢字 \t tab",
        "```\n",
        "~~~~unknown-lang extra words\nx\n~~~~",
        "#",
        "a  \nhard break\\\nagain[^1]\n\n[^1]: note",
    ];
    // Narrow widths only must not panic (deep prefixes may be wider than the pane, and the
    // terminal clips them); at 80 columns every row fits.
    for input in inputs {
        for width in [0, 1, 2, 3, 7] {
            render(input, width);
        }
        for line in render(input, 80) {
            assert!(
                line.width() <= 80,
                "{input:?}: {line:?} is {} wide",
                line.width()
            );
        }
    }
}
