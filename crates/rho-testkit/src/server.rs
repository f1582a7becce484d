//! The loopback server: accepts connections, records requests, plays the script.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use rho_stdx::sync::lock;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

use crate::response::{Chunk, MockResponse};

/// Request heads larger than this are refused (the connection is closed): a client under test
/// never sends one, and the bound keeps a broken client from growing memory.
const MAX_HEAD: usize = 64 * 1024;

/// One request the server received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedRequest {
    /// `POST`, `GET`, …
    pub method: String,
    /// The request target as sent: path and query.
    pub path: String,
    /// Headers in arrival order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body (read by `content-length`).
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON (object keys keep their order).
    pub fn body_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_slice(&self.body)
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// What the connections share: the rest of the script and the record of requests.
#[derive(Debug)]
struct State {
    script: VecDeque<MockResponse>,
    fallback: MockResponse,
    requests: Vec<RecordedRequest>,
}

/// A scripted HTTP/1.1 server on `127.0.0.1`. The n-th request (in the order requests finished
/// arriving) gets the n-th scripted response; once the script is exhausted every request gets the
/// fallback. Dropping the server stops it.
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    accept: JoinHandle<()>,
}

impl MockServer {
    /// Starts a server playing `script`; when it is exhausted, requests get a `500` whose body
    /// says so. Panics if no loopback port can be bound (the test cannot run at all then).
    pub async fn start(script: Vec<MockResponse>) -> MockServer {
        let fallback = MockResponse::json_error(
            500,
            r#"{"error":{"type":"mock_script_exhausted","message":"the mock server's script has no more responses"}}"#,
        );
        MockServer::start_with_fallback(script, fallback).await
    }

    /// Starts a server playing `script`, then answering `fallback` to every further request.
    /// Panics if no loopback port can be bound.
    pub async fn start_with_fallback(
        script: Vec<MockResponse>,
        fallback: MockResponse,
    ) -> MockServer {
        match MockServer::try_start(script, fallback).await {
            Ok(server) => server,
            Err(error) => panic!("mock server: cannot bind 127.0.0.1: {error}"),
        }
    }

    /// Like [`start_with_fallback`](Self::start_with_fallback), returning the bind error.
    pub async fn try_start(
        script: Vec<MockResponse>,
        fallback: MockResponse,
    ) -> std::io::Result<MockServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            fallback,
            requests: Vec::new(),
        }));
        let accept = tokio::spawn(accept_loop(listener, Arc::clone(&state)));
        Ok(MockServer {
            addr,
            state,
            accept,
        })
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// How many scripted responses have not been served yet.
    pub fn remaining(&self) -> usize {
        lock(&self.state).script.len()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        // Aborting the accept task drops its JoinSet, which aborts every connection task too.
        self.accept.abort();
    }
}

async fn accept_loop(listener: TcpListener, state: Arc<Mutex<State>>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                // An accept error (for example too many open files) affects one connection only.
                if let Ok((stream, _)) = accepted {
                    connections.spawn(serve(stream, Arc::clone(&state)));
                }
            }
            // Reap finished connections so the set does not grow over a long test.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// Serves one connection: one request, one response, close.
async fn serve(mut stream: TcpStream, state: Arc<Mutex<State>>) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    let response = {
        let mut state = lock(&state);
        state.requests.push(request);
        match state.script.pop_front() {
            Some(response) => response,
            None => state.fallback.clone(),
        }
    };
    // A write error means the client went away; there is nobody left to answer.
    let _ = write_response(&mut stream, &response).await;
}

/// Reads the request head and its `content-length` body; `None` if the client sent no complete
/// request.
async fn read_request(stream: &mut TcpStream) -> Option<RecordedRequest> {
    let mut buffer = Vec::new();
    let head_end = loop {
        if let Some(end) = find(&buffer, b"\r\n\r\n") {
            break end;
        }
        if buffer.len() > MAX_HEAD || read_more(stream, &mut buffer).await? == 0 {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buffer.split_off(head_end + 4);
    while body.len() < length {
        if read_more(stream, &mut body).await? == 0 {
            return None;
        }
    }
    body.truncate(length);
    Some(RecordedRequest {
        method,
        path,
        headers,
        body,
    })
}

async fn read_more(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<usize> {
    let mut chunk = [0u8; 8192];
    let n = stream.read(&mut chunk).await.ok()?;
    buffer.extend_from_slice(&chunk[..n]);
    Some(n)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

async fn write_response(stream: &mut TcpStream, response: &MockResponse) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    // Chunked framing makes a `Chunk::Drop` a detectable cut: without it the body would end at
    // connection close and a cut would look like a normal end.
    head.push_str("transfer-encoding: chunked\r\nconnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.flush().await?;
    for chunk in &response.chunks {
        match chunk {
            Chunk::Bytes(bytes) if bytes.is_empty() => {}
            Chunk::Bytes(bytes) => {
                stream
                    .write_all(format!("{:x}\r\n", bytes.len()).as_bytes())
                    .await?;
                stream.write_all(bytes).await?;
                stream.write_all(b"\r\n").await?;
                stream.flush().await?;
            }
            Chunk::Pause(duration) => tokio::time::sleep(*duration).await,
            Chunk::Drop => return Ok(()),
        }
    }
    stream.write_all(b"0\r\n\r\n").await?;
    stream.flush().await?;
    stream.shutdown().await
}

/// The status's reason phrase (`Status` for one without); clients ignore the phrase anyway.
fn reason(status: u16) -> &'static str {
    http::StatusCode::from_u16(status)
        .ok()
        .and_then(|status| status.canonical_reason())
        .unwrap_or("Status")
}
