//! Target `settings_json`: `settings.json` (global and project), with Pi's key migrations and
//! the validation of every known key.

use std::path::Path;

use rho_host::settings::{merge_settings, parse_settings_text};

/// Reads `data` as a settings file, and merges it over itself as a project file would be.
pub fn run(data: &[u8]) {
    let text = rho_fuzz::input::text(data);
    if let Ok(object) = parse_settings_text(&text, Path::new("settings.json")) {
        let _ = merge_settings(object.clone(), object);
    }
}

rho_fuzz::main!(run);
