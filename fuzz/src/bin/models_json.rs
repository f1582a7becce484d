//! Target `models_json`: `RHO_HOME/models.json` (custom providers and model overrides, JSONC).

use std::path::Path;

use rho_models::ModelRegistry;

/// Loads `data` as a `models.json` over the built-in catalog, and lists what it made.
pub fn run(data: &[u8]) {
    let text = rho_fuzz::input::text(data);
    let (registry, _errors) = ModelRegistry::from_models_json(&text, Path::new("models.json"));
    for entry in registry.all() {
        let _ = registry.find(&entry.model.provider, &entry.model.id);
    }
}

rho_fuzz::main!(run);
