//! Turning fuzz bytes into a parser's input: text, and the pieces a stream arrives in.

/// The piece size a stream target uses: the input's first byte (`0`: the whole rest in one
/// piece), and the rest of the input.
pub fn piece_size(data: &[u8]) -> (usize, &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return (1, data);
    };
    let size = match first {
        0 => rest.len(),
        size => usize::from(size % 64),
    };
    (size.max(1), rest)
}

/// `bytes` in pieces of `size` (at least one byte each).
pub fn pieces(bytes: &[u8], size: usize) -> Vec<&[u8]> {
    bytes.chunks(size.max(1)).collect()
}

/// `text` in pieces of about `size` bytes, each ending on a character boundary.
pub fn text_pieces(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    while from < text.len() {
        let mut to = (from + size.max(1)).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        out.push(&text[from..to]);
        from = to;
    }
    out
}

/// The bytes as text: invalid UTF-8 becomes U+FFFD, so every input reaches the parser.
pub fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}
