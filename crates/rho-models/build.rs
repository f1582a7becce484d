//! Turns the built-in catalog (`data/models.json`) into a Rust table of string literals, so that
//! start-up copies the models out of the binary instead of parsing 250 KB of JSON every run.
//!
//! A catalog entry that does not read as a model fails the build: the file is generated, and a
//! broken one must never reach a binary.

use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{Map, Value};

const CATALOG: &str = "data/models.json";

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed={CATALOG}");
    println!("cargo::rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(CATALOG)?;
    let root: Value = serde_json::from_str(&text)?;
    let models = root
        .get("models")
        .and_then(Value::as_array)
        .ok_or("the catalog has no `models` array")?;
    let mut out = String::from("&[\n");
    for (index, model) in models.iter().enumerate() {
        let object = model
            .as_object()
            .ok_or_else(|| format!("catalog entry {index} is not an object"))?;
        entry(object, &mut out).map_err(|error| format!("catalog entry {index}: {error}"))?;
    }
    out.push_str("]\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR")?).join("catalog_table.rs");
    std::fs::write(dest, out)?;
    Ok(())
}

/// One `BuiltinModel { … },` literal.
fn entry(model: &Map<String, Value>, out: &mut String) -> Result<(), Box<dyn Error>> {
    let text = |key: &str| -> Result<&str, String> {
        model
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`{key}` is not a string"))
    };
    let count = |key: &str| -> Result<u64, String> {
        model
            .get(key)
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("`{key}` is not a whole number"))
    };
    let reasoning = model
        .get("reasoning")
        .and_then(Value::as_bool)
        .ok_or("`reasoning` is not a boolean")?;
    let input: Vec<&str> = model
        .get("input")
        .and_then(Value::as_array)
        .ok_or("`input` is not an array")?
        .iter()
        .map(|kind| kind.as_str().ok_or("an `input` kind is not a string"))
        .collect::<Result<_, _>>()?;
    let cost = model
        .get("cost")
        .and_then(Value::as_object)
        .ok_or("`cost` is not an object")?;
    let price = |key: &str| -> Result<f64, String> {
        cost.get(key)
            .and_then(Value::as_f64)
            .ok_or_else(|| format!("`cost.{key}` is not a number"))
    };
    // Optional objects travel as their JSON text (key order kept) and are parsed when copied out;
    // `null` is the same as absent, as for serde's `Option`.
    let json = |key: &str| -> Result<String, Box<dyn Error>> {
        Ok(match model.get(key) {
            None | Some(Value::Null) => "None".to_owned(),
            Some(value) => format!("Some({:?})", serde_json::to_string(value)?),
        })
    };
    writeln!(
        out,
        "BuiltinModel {{ id: {:?}, name: {:?}, api: {:?}, provider: {:?}, base_url: {:?}, \
         reasoning: {reasoning}, input: &{input:?}, cost: [{:?}, {:?}, {:?}, {:?}], \
         context_window: {}, max_tokens: {}, headers: {}, compat: {}, thinking_level_map: {} }},",
        text("id")?,
        text("name")?,
        text("api")?,
        text("provider")?,
        text("baseUrl")?,
        price("input")?,
        price("output")?,
        price("cacheRead")?,
        price("cacheWrite")?,
        count("contextWindow")?,
        count("maxTokens")?,
        json("headers")?,
        json("compat")?,
        json("thinkingLevelMap")?,
    )?;
    Ok(())
}
