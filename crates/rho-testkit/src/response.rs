//! Scripted responses: a status, headers and a body made of chunks, pauses and faults.

use std::time::Duration;

/// One step of a response body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// Bytes sent (and flushed) as one HTTP chunk. Empty byte chunks are skipped, because an
    /// empty HTTP chunk would end the body.
    Bytes(Vec<u8>),
    /// Wait this long before the next step (a stalled server).
    Pause(Duration),
    /// Close the connection at once, without finishing the body (a cut stream).
    Drop,
}

impl Chunk {
    /// A chunk of UTF-8 text.
    pub fn text(text: &str) -> Self {
        Chunk::Bytes(text.as_bytes().to_vec())
    }

    /// One SSE event carrying `data` (`data: <data>\n\n`).
    pub fn sse(data: &str) -> Self {
        Chunk::text(&sse_event(data))
    }
}

/// One scripted response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MockResponse {
    /// The HTTP status code.
    pub status: u16,
    /// Response headers, sent as given. `transfer-encoding` and `connection` are added by the
    /// server.
    pub headers: Vec<(String, String)>,
    /// The body, step by step.
    pub chunks: Vec<Chunk>,
}

impl MockResponse {
    /// A response with `status`, no headers and an empty body.
    pub fn new(status: u16) -> Self {
        MockResponse {
            status,
            headers: Vec::new(),
            chunks: Vec::new(),
        }
    }

    /// A `200 text/event-stream` response with one `data:` event per payload, each sent as its
    /// own chunk.
    pub fn sse(events: &[&str]) -> Self {
        MockResponse::new(200)
            .header("content-type", "text/event-stream")
            .chunks(events.iter().map(|data| Chunk::sse(data)))
    }

    /// An error response with an `application/json` body sent in one chunk.
    pub fn json_error(status: u16, body: &str) -> Self {
        MockResponse::new(status)
            .header("content-type", "application/json")
            .chunk(Chunk::text(body))
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Appends one body step.
    pub fn chunk(mut self, chunk: Chunk) -> Self {
        self.chunks.push(chunk);
        self
    }

    /// Appends several body steps.
    pub fn chunks(mut self, chunks: impl IntoIterator<Item = Chunk>) -> Self {
        self.chunks.extend(chunks);
        self
    }

    /// Appends a pause of `duration`.
    pub fn pause(self, duration: Duration) -> Self {
        self.chunk(Chunk::Pause(duration))
    }

    /// Appends an abrupt close: nothing after it is sent.
    pub fn then_drop(self) -> Self {
        self.chunk(Chunk::Drop)
    }
}

/// The text of one SSE event carrying `data`; multi-line data becomes several `data:` lines.
pub(crate) fn sse_event(data: &str) -> String {
    let mut event = String::new();
    for line in data.split('\n') {
        event.push_str("data: ");
        event.push_str(line);
        event.push('\n');
    }
    event.push('\n');
    event
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_builds_one_data_event_per_payload_with_the_event_stream_type() {
        assert_eq!(
            MockResponse::sse(&["{\"a\":1}", "two\nlines"]),
            MockResponse {
                status: 200,
                headers: vec![("content-type".into(), "text/event-stream".into())],
                chunks: vec![
                    Chunk::text("data: {\"a\":1}\n\n"),
                    Chunk::text("data: two\ndata: lines\n\n"),
                ],
            }
        );
    }

    #[test]
    fn json_error_sends_the_body_as_one_json_chunk() {
        assert_eq!(
            MockResponse::json_error(529, "{}")
                .pause(Duration::from_millis(5))
                .then_drop(),
            MockResponse {
                status: 529,
                headers: vec![("content-type".into(), "application/json".into())],
                chunks: vec![
                    Chunk::text("{}"),
                    Chunk::Pause(Duration::from_millis(5)),
                    Chunk::Drop
                ],
            }
        );
    }
}
