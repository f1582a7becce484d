//! Pieces both request bodies share: numbers written as JavaScript writes them, JSON text sent
//! as a string, and `data:` URLs, each serialized without building the string first.

use std::fmt;

use rho_stdx::js::serialize_number as serialize_js_number;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// A number that serializes as JavaScript writes it (`1`, not `1.0`). Only finite numbers are
/// sent: [`JsNumber::finite`] leaves NaN and the infinities out, as `JSON.stringify` would not
/// write them either.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JsNumber(f64);

impl JsNumber {
    /// `value`, unless it is NaN or infinite.
    pub fn finite(value: f64) -> Option<Self> {
        value.is_finite().then_some(JsNumber(value))
    }
}

impl Serialize for JsNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_js_number(&self.0, serializer)
    }
}

/// A JSON value sent as a string holding its compact text (tool-call `arguments`).
#[derive(Clone, Copy, Debug)]
pub struct JsonText<'a>(pub &'a Value);

impl Serialize for JsonText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}

/// `data:<mime type>;base64,<data>`.
#[derive(Clone, Copy, Debug)]
pub struct DataUrl<'a> {
    /// For example `image/png`.
    pub mime_type: &'a str,
    /// Base64 bytes.
    pub data: &'a str,
}

impl fmt::Display for DataUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data:{};base64,{}", self.mime_type, self.data)
    }
}

impl Serialize for DataUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_piece_writes_what_the_string_it_replaces_would() {
        let arguments = json!({"path": "a \"b\"\n", "n": 1});
        let url = DataUrl {
            mime_type: "image/png",
            data: "iVBO+/=",
        };
        let numbers = [1.0, 0.5, -3.0, 1e20, 0.1 + 0.2].map(JsNumber::finite);
        assert_eq!(
            (
                serde_json::to_string(&JsonText(&arguments)).ok(),
                serde_json::to_string(&url).ok(),
                serde_json::to_string(&numbers).ok(),
                JsNumber::finite(f64::NAN),
                JsNumber::finite(f64::INFINITY),
            ),
            (
                serde_json::to_string(&arguments.to_string()).ok(),
                Some(r#""data:image/png;base64,iVBO+/=""#.to_owned()),
                Some("[1,0.5,-3,1e+20,0.30000000000000004]".to_owned()),
                None,
                None,
            )
        );
    }
}
