//! Where responses and events go: stdout, one whole JSON line each, until the process stops
//! serving; and [`Reply`], the one response a request gets.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::output::write_json_line;
use rho_rpc::Response;

/// Writes responses and events; after `close` nothing more is written (Pi unsubscribes from the
/// session before it exits).
#[derive(Default)]
pub struct Output {
    closed: AtomicBool,
}

impl Output {
    /// Writes one JSON line, whole, unless the output is closed.
    pub fn write(&self, value: &impl Serialize) {
        if !self.closed.load(Ordering::SeqCst) {
            write_json_line(value);
        }
    }

    /// Stops all further output.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }
}

/// The response a request is owed. Each method consumes it, so a handler answers at most once;
/// dropped unanswered — a handler that returned early or panicked — it answers with a failure,
/// so every request with an `id` gets exactly one response carrying that `id`.
pub struct Reply {
    id: Option<Value>,
    command: &'static str,
    output: Arc<Output>,
    answered: bool,
}

impl Reply {
    /// The reply to a request of `command` with `id`.
    pub fn new(id: Option<Value>, command: &'static str, output: Arc<Output>) -> Self {
        Reply {
            id,
            command,
            output,
            answered: false,
        }
    }

    /// Succeeds without data.
    pub fn ok(self) {
        self.send(Ok(None));
    }

    /// Succeeds with `data` (`Value::Null` is written as `"data": null`).
    pub fn data(self, data: Value) {
        self.send(Ok(Some(data)));
    }

    /// Succeeds with `data` given as JSON text: a value too deep to hold as a [`Value`] (a
    /// session tree) is written without ever being one.
    pub fn raw_data(mut self, data: &RawValue) {
        self.answered = true;
        let response = RawResponse {
            id: self.id.take(),
            kind: "response",
            command: self.command,
            success: true,
            data,
        };
        self.output.write(&response);
    }

    /// Fails with `error`.
    pub fn fail(self, error: impl std::fmt::Display) {
        self.send(Err(error.to_string()));
    }

    /// Succeeds or fails as `result` says.
    pub fn result<E: std::fmt::Display>(self, result: Result<Value, E>) {
        match result {
            Ok(data) => self.data(data),
            Err(error) => self.fail(error),
        }
    }

    fn send(mut self, outcome: Result<Option<Value>, String>) {
        self.answered = true;
        let response = Response {
            id: self.id.take(),
            command: self.command.to_owned(),
            outcome,
        };
        self.output.write(&response.to_json());
    }
}

/// A successful response whose data is JSON text, keys in Pi's order.
#[derive(Serialize)]
struct RawResponse<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Value>,
    #[serde(rename = "type")]
    kind: &'static str,
    command: &'static str,
    success: bool,
    data: &'a RawValue,
}

impl Drop for Reply {
    fn drop(&mut self) {
        if !self.answered {
            let response = Response::failure(
                self.id.take(),
                self.command,
                "The command failed before it could answer",
            );
            self.output.write(&response.to_json());
        }
    }
}
