//! Target `rpc_line`: one line of the RPC protocol (`rho_rpc::parse_line`). Whatever the line,
//! parsing gives a command or the one response to write instead; a response to an object that
//! carried an `id` carries that `id`, and every response serializes.

use serde_json::Value;

/// Parses `data` as one input line; panics if a promise of the protocol is broken.
pub fn run(data: &[u8]) {
    let line = String::from_utf8_lossy(data);
    let id = match serde_json::from_str::<Value>(&line) {
        Ok(Value::Object(object)) => object.get("id").cloned(),
        _ => None,
    };
    match rho_rpc::parse_line(&line) {
        Ok(request) => {
            assert_eq!(request.id, id, "the request lost its id");
            assert!(rho_rpc::Command::NAMES.contains(&request.command.name()));
        }
        Err(response) => {
            let json = response.to_json();
            assert_eq!(json["success"], false);
            if id.is_some() {
                assert_eq!(response.id, id, "a refusal lost the request's id");
            }
        }
    }
}

rho_fuzz::main!(run);
