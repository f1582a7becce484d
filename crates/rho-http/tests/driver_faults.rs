#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `run_sse_stream` against the loopback mock server: every failure a provider meets ends in
//! exactly one terminal event of the right kind, keeping the content streamed so far.

use crate::support;

use std::time::{Duration, Instant};

use rho_ai::{AssistantMessageEvent, ErrorInfo, ErrorKind, StopReason, channel};
use rho_http::MAX_ERROR_BODY;
use rho_testkit::{Chunk, MockResponse, MockServer};
use support::{SECRET, TextFolder, delta, error_event, failed, run, template};
use tokio_util::sync::CancellationToken;

const IDLE: Duration = Duration::from_millis(300);
const LONG: Duration = Duration::from_secs(30);

fn info(kind: ErrorKind) -> ErrorInfo {
    ErrorInfo::new(kind)
}

/// A stream that sends "Hel" and then does `then`.
fn hel_then(then: Chunk) -> MockResponse {
    MockResponse::sse(&[&delta("Hel")]).chunk(then)
}

#[tokio::test]
async fn a_complete_stream_ends_done_after_one_json_post() {
    let server = MockServer::start(vec![MockResponse::sse(&[
        &delta("Hel"),
        &delta("lo"),
        "[DONE]",
    ])])
    .await;
    let events = run(
        &server.base_url(),
        TextFolder::default(),
        CancellationToken::new(),
        IDLE,
    )
    .await;
    assert_eq!(events, support::success_events(&["Hel", "lo"]));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", format!("/v1/stream?key={SECRET}").as_str())
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("x-api-key"), Some(SECRET));
    assert_eq!(
        request.body_json().unwrap(),
        serde_json::json!({"model": "test-model", "stream": true})
    );
}

#[tokio::test]
async fn each_http_error_status_ends_in_one_classified_error_without_a_start_event() {
    let body = r#"{"type":"error","error":{"type":"some_error","message":"Something"}}"#;
    let cases = [
        (401, ErrorKind::Auth),
        (403, ErrorKind::Auth),
        (404, ErrorKind::NotFound),
        (413, ErrorKind::ContextOverflow),
        (429, ErrorKind::RateLimited),
        (500, ErrorKind::Server),
        (503, ErrorKind::Server),
        (529, ErrorKind::Overloaded),
    ];
    for (status, kind) in cases {
        let mut response = MockResponse::json_error(status, body);
        let mut retry_after_ms = None;
        if status == 429 {
            response = response.header("retry-after", "2");
            retry_after_ms = Some(2000);
        }
        let server = MockServer::start(vec![response]).await;
        let events = run(
            &server.base_url(),
            TextFolder::default(),
            CancellationToken::new(),
            IDLE,
        )
        .await;
        let expected = failed(
            "",
            StopReason::Error,
            &format!("{status} {body}"),
            ErrorInfo {
                kind,
                status: Some(status),
                retry_after_ms,
            },
        );
        assert_eq!(events, vec![error_event(expected)], "status {status}");
        assert_eq!(server.requests().len(), 1, "status {status}");
    }
}

#[tokio::test]
async fn retry_after_ms_is_preferred_and_an_empty_error_body_is_named() {
    let response = MockResponse::new(503)
        .header("retry-after-ms", "1500")
        .header("retry-after", "9");
    let server = MockServer::start(vec![response]).await;
    let events = run(
        &server.base_url(),
        TextFolder::default(),
        CancellationToken::new(),
        IDLE,
    )
    .await;
    let info = ErrorInfo {
        kind: ErrorKind::Server,
        status: Some(503),
        retry_after_ms: Some(1500),
    };
    let expected = failed("", StopReason::Error, "503 status code (no body)", info);
    assert_eq!(events, vec![error_event(expected)]);
}

#[tokio::test]
async fn a_retry_after_past_the_cap_fails_at_once_naming_both_values() {
    let response =
        MockResponse::json_error(429, r#"{"error":"slow down"}"#).header("retry-after", "86400");
    let server = MockServer::start(vec![response]).await;
    let limits = rho_http::CallLimits {
        idle: IDLE,
        max_retry_delay: Some(std::time::Duration::from_secs(60)),
    };
    let events = support::run_with(
        &server.base_url(),
        TextFolder::default(),
        CancellationToken::new(),
        limits,
    )
    .await;
    let info = ErrorInfo {
        kind: ErrorKind::RetryAfterTooLong,
        status: Some(429),
        retry_after_ms: Some(86_400_000),
    };
    let text = r#"Server requested 86400s retry delay (max: 60s). 429 {"error":"slow down"}"#;
    let expected = failed("", StopReason::Error, text, info);
    assert_eq!(events, vec![error_event(expected)]);
    assert!(!ErrorKind::RetryAfterTooLong.is_retryable());
}

#[tokio::test]
async fn an_endless_error_body_is_cut_at_the_bound() {
    let page = "a".repeat(40 * 1024);
    let response =
        MockResponse::new(500).chunks([Chunk::text(&page), Chunk::text(&page), Chunk::text(&page)]);
    let server = MockServer::start(vec![response]).await;
    let events = run(
        &server.base_url(),
        TextFolder::default(),
        CancellationToken::new(),
        IDLE,
    )
    .await;
    let message = format!("500 {}", "a".repeat(MAX_ERROR_BODY));
    let info = ErrorInfo {
        kind: ErrorKind::Server,
        status: Some(500),
        retry_after_ms: None,
    };
    assert_eq!(
        events,
        vec![error_event(failed("", StopReason::Error, &message, info))]
    );
}

#[tokio::test]
async fn a_stalled_error_body_reports_what_arrived_within_the_idle_timeout() {
    let response = MockResponse::json_error(529, r#"{"type":"error""#).pause(LONG);
    let server = MockServer::start(vec![response]).await;
    let started = Instant::now();
    let events = run(
        &server.base_url(),
        TextFolder::default(),
        CancellationToken::new(),
        IDLE,
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    let info = ErrorInfo {
        kind: ErrorKind::Overloaded,
        status: Some(529),
        retry_after_ms: None,
    };
    let expected = failed("", StopReason::Error, r#"529 {"type":"error""#, info);
    assert_eq!(events, vec![error_event(expected)]);
}

/// Runs the `hel_then(then)` stream and returns its last event, checking the ones before it.
async fn last_event_after_hel(then: Chunk, cancel: CancellationToken) -> AssistantMessageEvent {
    let server = MockServer::start(vec![hel_then(then)]).await;
    let mut events = run(&server.base_url(), TextFolder::default(), cancel, IDLE).await;
    let last = events.pop().unwrap();
    // start, text_start, text_delta, then the folder's text_end from finish (if it ran).
    assert_eq!(events[..3], support::success_events(&["Hel"])[..3]);
    assert_eq!(server.requests().len(), 1);
    last
}

#[tokio::test]
async fn a_connection_dropped_mid_stream_is_a_stream_cut_that_keeps_the_partial_text() {
    let last = last_event_after_hel(Chunk::Drop, CancellationToken::new()).await;
    let AssistantMessageEvent::Error { error, .. } = &last else {
        panic!("expected an error event, got {last:?}");
    };
    let message = error.error_message.clone().unwrap();
    assert!(
        message.starts_with("Connection lost while streaming: "),
        "{message}"
    );
    let expected = failed(
        "Hel",
        StopReason::Error,
        &message,
        info(ErrorKind::StreamCut),
    );
    assert_eq!(last, error_event(expected));
}

#[tokio::test]
async fn garbage_mid_stream_is_reported_as_the_folder_classifies_it() {
    let last = last_event_after_hel(Chunk::sse("not json"), CancellationToken::new()).await;
    let expected = failed(
        "Hel",
        StopReason::Error,
        "Malformed event: not json",
        info(ErrorKind::MalformedStream),
    );
    assert_eq!(last, error_event(expected));
}

#[tokio::test]
async fn a_stream_stalled_past_the_idle_timeout_fails_quickly_with_idle_timeout() {
    let started = Instant::now();
    let last = last_event_after_hel(Chunk::Pause(LONG), CancellationToken::new()).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let expected = failed(
        "Hel",
        StopReason::Error,
        "No data received for 0.3 seconds",
        info(ErrorKind::IdleTimeout),
    );
    assert_eq!(last, error_event(expected));
}

#[tokio::test]
async fn a_server_that_never_answers_the_request_fails_with_idle_timeout() {
    // Accepts the connection and then says nothing at all: no response head ever arrives.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let silent = tokio::spawn(async move {
        let (_stream, _) = listener.accept().await.unwrap();
        std::future::pending::<()>().await;
    });
    let events = run(
        &base_url,
        TextFolder::default(),
        CancellationToken::new(),
        IDLE,
    )
    .await;
    silent.abort();
    let expected = failed(
        "",
        StopReason::Error,
        "No data received for 0.3 seconds",
        info(ErrorKind::IdleTimeout),
    );
    assert_eq!(events, vec![error_event(expected)]);
}

#[tokio::test]
async fn a_body_that_ends_without_the_terminal_event_is_what_the_folder_says() {
    let last = last_event_after_hel(Chunk::text(""), CancellationToken::new()).await;
    let expected = failed(
        "Hel",
        StopReason::Error,
        "Stream ended before [DONE]",
        info(ErrorKind::StreamCut),
    );
    assert_eq!(last, error_event(expected));
}

#[tokio::test]
async fn reading_stops_at_the_terminal_event() {
    // Were the driver to keep reading after [DONE], the pause would end it with an idle timeout.
    let response = MockResponse::sse(&[&delta("Hi"), "[DONE]"])
        .pause(LONG)
        .chunk(Chunk::sse("x"));
    let server = MockServer::start(vec![response]).await;
    let events = run(
        &server.base_url(),
        TextFolder::default(),
        CancellationToken::new(),
        IDLE,
    )
    .await;
    assert_eq!(events, support::success_events(&["Hi"]));
}

#[tokio::test]
async fn cancel_mid_stream_ends_aborted_with_the_partial_text() {
    let server = MockServer::start(vec![hel_then(Chunk::Pause(LONG))]).await;
    let cancel = CancellationToken::new();
    let (sender, mut stream) = channel(template());
    let request = support::request(&server.base_url());
    let token = cancel.clone();
    let driver = tokio::spawn(async move {
        let client = support::client();
        rho_http::run_sse_stream(
            &client,
            request,
            TextFolder::default(),
            sender,
            token,
            rho_http::CallLimits {
                idle: LONG,
                max_retry_delay: None,
            },
        )
        .await;
    });
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        let got_text = matches!(event, AssistantMessageEvent::TextDelta { .. });
        events.push(event);
        if got_text {
            cancel.cancel();
        }
    }
    driver.await.unwrap();
    let expected = failed(
        "Hel",
        StopReason::Aborted,
        "Request was aborted",
        info(ErrorKind::Aborted),
    );
    let mut want = support::success_events(&["Hel"])[..3].to_vec();
    want.push(error_event(expected));
    assert_eq!(events, want);
}

#[tokio::test]
async fn cancel_before_send_ends_aborted_without_any_request() {
    let server = MockServer::start(vec![MockResponse::sse(&["[DONE]"])]).await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let events = run(&server.base_url(), TextFolder::default(), cancel, IDLE).await;
    let expected = failed(
        "",
        StopReason::Aborted,
        "Request was aborted",
        info(ErrorKind::Aborted),
    );
    assert_eq!(events, vec![error_event(expected)]);
    assert_eq!(server.requests(), Vec::new());
}

#[tokio::test]
async fn a_cancel_after_the_body_was_read_still_ends_aborted_instead_of_done() {
    let server = MockServer::start(vec![MockResponse::sse(&[&delta("Hi"), "[DONE]"])]).await;
    let cancel = CancellationToken::new();
    let mut folder = TextFolder::default();
    folder.cancel_in_finish = Some(cancel.clone());
    let events = run(&server.base_url(), folder, cancel, IDLE).await;
    let mut want = support::success_events(&["Hi"]);
    want.pop();
    let expected = failed(
        "Hi",
        StopReason::Aborted,
        "Request was aborted",
        info(ErrorKind::Aborted),
    );
    want.push(error_event(expected));
    assert_eq!(events, want);
}

#[tokio::test]
async fn a_refused_connection_is_a_network_error_that_never_shows_the_key() {
    // Bind and release a port so nothing listens on it.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let events = run(
        &format!("http://127.0.0.1:{port}"),
        TextFolder::default(),
        CancellationToken::new(),
        IDLE,
    )
    .await;
    // Neither the key (header and query) nor the URL appears: only the causes.
    let message = "Connection error: client error (Connect): tcp connect error: \
                   Connection refused (os error 111)";
    let expected = failed("", StopReason::Error, message, info(ErrorKind::Network));
    assert_eq!(events, vec![error_event(expected)]);
}
