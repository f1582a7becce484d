//! The raw JSON of some results, as the server wrote them. rmcp reads every result into its
//! types, which fixes their key order and drops fields it does not know; Pi shows the model a
//! resource listing as the server's JSON (`{server, …item}` in the server's order). So the
//! lines a stdio server writes pass through a tap that keeps the `result` of each listing
//! (`resources`, `resourceTemplates`) by request id, for the listing tool to take. Over HTTP
//! the typed result is all there is.
//!
//! The tap also counts `notifications/tools/list_changed` as it reads them, in the order the
//! server wrote them: a call whose server changed its tools meanwhile lists them again before
//! it returns, so the next turn sees the new tools.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

/// How many listings are kept waiting to be taken.
const KEPT: usize = 16;

/// The longest line looked at (longer ones pass through unkept).
const MAX_LINE: usize = 8 * 1024 * 1024;

/// Listing results by request id, and how many tool-list changes the server announced.
#[derive(Default)]
pub struct RawResults {
    kept: Mutex<VecDeque<(i64, Value)>>,
    tools_changed: AtomicU64,
}

impl RawResults {
    /// How many `notifications/tools/list_changed` were read so far.
    pub fn tools_changed(&self) -> u64 {
        self.tools_changed.load(Ordering::SeqCst)
    }

    /// Takes the result kept for request `id`.
    pub fn take(&self, id: i64) -> Option<Value> {
        let mut kept = rho_stdx::sync::lock(&self.kept);
        let index = kept.iter().position(|(kept_id, _)| *kept_id == id)?;
        kept.remove(index).map(|(_, value)| value)
    }

    fn keep_line(&self, line: &[u8]) {
        if contains(line, b"notifications/tools/list_changed")
            && serde_json::from_slice::<Value>(line).is_ok_and(|message| {
                message.get("method").and_then(Value::as_str)
                    == Some("notifications/tools/list_changed")
            })
        {
            self.tools_changed.fetch_add(1, Ordering::SeqCst);
            return;
        }
        // Cheap checks first: most lines are other results and notifications.
        let is_listing =
            contains(line, b"\"resources\"") || contains(line, b"\"resourceTemplates\"");
        if !is_listing {
            return;
        }
        let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let (Some(id), Some(result)) = (
            message.get("id").and_then(Value::as_i64),
            message.remove("result"),
        ) else {
            return;
        };
        let mut kept = rho_stdx::sync::lock(&self.kept);
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back((id, result));
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

/// A reader that hands every line it passes to [`RawResults`].
pub struct Tap<R> {
    inner: R,
    line: Vec<u8>,
    overlong: bool,
    results: Arc<RawResults>,
}

impl<R> Tap<R> {
    /// Taps `inner` into `results`.
    pub fn new(inner: R, results: Arc<RawResults>) -> Tap<R> {
        Tap {
            inner,
            line: Vec::new(),
            overlong: false,
            results,
        }
    }

    fn scan(&mut self, bytes: &[u8]) {
        for piece in bytes.split_inclusive(|b| *b == b'\n') {
            let complete = piece.last() == Some(&b'\n');
            if !self.overlong {
                if self.line.len() + piece.len() > MAX_LINE {
                    self.overlong = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(piece);
                }
            }
            if complete {
                if !self.overlong {
                    self.results.keep_line(&self.line);
                }
                self.line.clear();
                self.overlong = false;
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Tap<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            this.scan(&buf.filled()[before..]);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_are_kept_by_id_in_the_servers_order_and_other_lines_are_not() {
        let results = Arc::new(RawResults::default());
        let mut tap = Tap::new(tokio::io::empty(), results.clone());
        tap.scan(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"resources\":[{\"name\":\"n\",\"uri\":\"u\"}]}}\n{\"id\":5,\"res");
        tap.scan(b"ult\":{\"tools\":[]}}\n");
        let kept = results.take(4);
        assert_eq!(
            serde_json::to_string(&kept).unwrap_or_default(),
            r#"{"resources":[{"name":"n","uri":"u"}]}"#
        );
        assert!(results.take(4).is_none());
        assert!(results.take(5).is_none());
        assert_eq!(results.tools_changed(), 0);
        tap.scan(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n");
        assert_eq!(results.tools_changed(), 1);
    }
}
