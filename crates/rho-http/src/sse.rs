//! An incremental Server-Sent Events parser: bytes in any chunking → events.
//!
//! Handles `event:` and `data:` fields, multi-line data (joined with `\n`), comments (`:`),
//! LF, CRLF and CR line endings, a UTF-8 character or a CRLF split across chunks, and a final
//! event without its blank line (see [`SseParser::finish`]).

/// One event: its name (`event:`) and its data (`data:` lines joined with `\n`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if any.
    pub event: Option<String>,
    /// The data.
    pub data: String,
}

/// Feeds bytes, yields complete events.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    /// A CR ended the last line; a LF right after it belongs to that line ending.
    after_cr: bool,
    event: Option<String>,
    data: Option<String>,
}

impl SseParser {
    /// A parser with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses `bytes`, returning every event completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut rest = bytes;
        if self.after_cr {
            self.after_cr = false;
            if let Some(tail) = rest.strip_prefix(b"\n") {
                rest = tail;
            }
        }
        // Whole lines are read in place; only a line split across chunks is buffered.
        while let Some(end) = memchr::memchr2(b'\n', b'\r', rest) {
            let (head, tail) = rest.split_at(end);
            if self.line.is_empty() {
                self.end_line(head, &mut events);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(head);
                self.end_line(&line, &mut events);
                line.clear();
                self.line = line;
            }
            rest = match tail {
                [b'\r', b'\n', after @ ..] => after,
                [b'\r'] => {
                    self.after_cr = true;
                    &[]
                }
                [_, after @ ..] => after,
                [] => &[],
            };
        }
        self.line.extend_from_slice(rest);
        events
    }

    /// The body ended: a pending line and event are completed as if a blank line followed.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.end_line(&line, &mut events);
        }
        self.dispatch(&mut events);
        events
    }

    fn end_line(&mut self, line: &[u8], events: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        // `from_utf8` checks a word at a time; the lossy decoder is for the rare broken line.
        let line = match std::str::from_utf8(line) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(line),
        };
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            // `id`, `retry` and unknown fields do not matter to model streams.
            _ => {}
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if let Some(data) = self.data.take() {
            events.push(SseEvent { event, data });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut events: Vec<SseEvent> = chunks.iter().flat_map(|c| parser.feed(c)).collect();
        events.extend(parser.finish());
        events
    }

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: event.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    #[test]
    fn named_events_comments_and_multi_line_data_parse() {
        let body = b": keep-alive\nevent: ping\ndata: {\"type\": \"ping\"}\n\ndata: a\ndata: b\n\ndata: [DONE]\n\n";
        assert_eq!(
            parse_all(&[body]),
            vec![
                ev(Some("ping"), "{\"type\": \"ping\"}"),
                ev(None, "a\nb"),
                ev(None, "[DONE]")
            ]
        );
    }

    #[test]
    fn crlf_split_across_chunks_and_a_missing_final_blank_line_still_parse() {
        let events = parse_all(&[b"data: one\r", b"\n\r\ndata: t", "wö".as_bytes(), b"\r\n"]);
        assert_eq!(events, vec![ev(None, "one"), ev(None, "twö")]);
    }

    #[test]
    fn a_utf8_character_split_across_chunks_survives() {
        let text = "data: héllo\n\n".as_bytes();
        let (a, b) = text.split_at(8);
        assert_eq!(parse_all(&[a, b]), vec![ev(None, "héllo")]);
    }

    #[test]
    fn a_field_without_colon_or_space_follows_the_spec() {
        assert_eq!(
            parse_all(&[b"data\n\ndata:x\n\n"]),
            vec![ev(None, ""), ev(None, "x")]
        );
    }
}
