#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The mock server over a raw TCP client, so these tests check its wire bytes exactly.

use std::time::Duration;

use rho_testkit::{Chunk, MockResponse, MockServer, RecordedRequest};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends `request` and returns everything the server wrote until it closed the connection.
async fn exchange(server: &MockServer, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    String::from_utf8(response).unwrap()
}

const POST: &[u8] = b"POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nX-Api-Key: k\r\nContent-Length: 7\r\n\r\n{\"a\":1}";

#[tokio::test]
async fn a_request_is_recorded_with_lowercased_headers_and_its_body() {
    let server = MockServer::start(vec![MockResponse::sse(&["hi"])]).await;
    exchange(&server, POST).await;
    let requests = server.requests();
    assert_eq!(
        requests,
        vec![RecordedRequest {
            method: "POST".into(),
            path: "/v1/messages?beta=true".into(),
            headers: vec![
                ("host".into(), "x".into()),
                ("x-api-key".into(), "k".into()),
                ("content-length".into(), "7".into()),
            ],
            body: b"{\"a\":1}".to_vec(),
        }]
    );
    assert_eq!(requests[0].header("X-API-KEY"), Some("k"));
    assert_eq!(
        requests[0].body_json().unwrap(),
        serde_json::json!({"a": 1})
    );
}

#[tokio::test]
async fn responses_are_played_in_order_as_chunked_bodies_then_the_fallback() {
    let server = MockServer::start_with_fallback(
        vec![
            MockResponse::sse(&["one"]),
            MockResponse::json_error(429, "{}").header("retry-after", "2"),
        ],
        MockResponse::new(204),
    )
    .await;
    let first = exchange(&server, POST).await;
    let second = exchange(&server, POST).await;
    let third = exchange(&server, POST).await;
    assert_eq!(
        first,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\nb\r\ndata: one\n\n\r\n0\r\n\r\n"
    );
    assert_eq!(
        second,
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 2\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
    );
    assert_eq!(
        third,
        "HTTP/1.1 204 No Content\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n0\r\n\r\n"
    );
    assert_eq!(server.requests().len(), 3);
    assert_eq!(server.remaining(), 0);
}

#[tokio::test]
async fn a_drop_closes_the_connection_without_ending_the_chunked_body() {
    let response = MockResponse::new(200)
        .chunk(Chunk::text("partial"))
        .pause(Duration::from_millis(1))
        .then_drop()
        .chunk(Chunk::text("never sent"));
    let server = MockServer::start(vec![response]).await;
    assert_eq!(
        exchange(&server, POST).await,
        "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n7\r\npartial\r\n"
    );
}

#[tokio::test]
async fn the_default_fallback_is_a_500_naming_the_exhausted_script() {
    let server = MockServer::start(Vec::new()).await;
    let response = exchange(&server, POST).await;
    assert!(
        response.starts_with("HTTP/1.1 500 Internal Server Error\r\n"),
        "{response}"
    );
    assert!(response.contains("mock_script_exhausted"), "{response}");
}

#[tokio::test]
async fn a_body_arriving_in_several_packets_is_read_whole() {
    let server = MockServer::start(vec![MockResponse::new(200)]).await;
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();
    stream
        .write_all(b"POST / HTTP/1.1\r\ncontent-length: 6\r\n\r\nabc")
        .await
        .unwrap();
    stream.flush().await.unwrap();
    stream.write_all(b"def").await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    assert_eq!(server.requests()[0].body_text(), "abcdef");
}

#[tokio::test]
async fn base_url_names_the_loopback_port() {
    let server = MockServer::start(Vec::new()).await;
    assert_eq!(
        server.base_url(),
        format!("http://127.0.0.1:{}", server.addr().port())
    );
}
