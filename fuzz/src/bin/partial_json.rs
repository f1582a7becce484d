//! Target `partial_json`: streamed tool arguments (`rho_ai::partial_json`). The input, as text
//! streamed in pieces (first byte: their size), must give after every piece exactly the object
//! the reference parser (Pi's cascade, re-run on the whole text) gives.

use rho_ai::partial_json::{StreamingJson, parse_streaming_json, reference};
use rho_fuzz::input::{piece_size, text, text_pieces};
use serde_json::Value;

/// Streams `data` through the incremental parser, checking every step against the reference.
pub fn run(data: &[u8]) {
    let (size, body) = piece_size(data);
    let text = text(body);
    let mut parser = StreamingJson::new();
    let mut arguments = Value::Null;
    let mut so_far = 0;
    for piece in text_pieces(&text, size) {
        parser.push(piece);
        parser.update(&mut arguments);
        so_far += piece.len();
        let expected = Value::Object(reference::parse_streaming_json(&text[..so_far]));
        assert_eq!(arguments, expected, "after {:?}", &text[..so_far]);
    }
    assert_eq!(
        parse_streaming_json(&text),
        reference::parse_streaming_json(&text)
    );
}

rho_fuzz::main!(run);
