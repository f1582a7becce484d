//! Target `sse`: the SSE parser (`rho_http::SseParser`). The input, fed in pieces (first byte:
//! their size), must give the same events as fed whole: the parser may not depend on where the
//! network cut the body.

use rho_fuzz::input::{piece_size, pieces};
use rho_http::{SseEvent, SseParser};

/// The events of `chunks` fed in order, then the end of the body.
fn events<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.feed(chunk));
    }
    events.extend(parser.finish());
    events
}

/// Parses `data` whole and in pieces; panics if the two differ.
pub fn run(data: &[u8]) {
    let (size, body) = piece_size(data);
    let whole = events([body]);
    let cut = events(pieces(body, size));
    assert_eq!(whole, cut, "events depend on the chunking");
}

rho_fuzz::main!(run);
