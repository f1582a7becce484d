//! The first model of an RPC session and the catalog `set_model` and `cycle_model` pick from,
//! chosen the way `-p` and `--mode json` choose it (the rest is `crate::setup`).

use std::sync::Arc;

use rho_ai::ThinkingLevel;
use rho_ai::faux::FauxProvider;
use rho_host::settings::Settings;
use rho_models::{AuthStore, ModelEntry, ProcessEnvironment, rho_home};

use super::models::{ModelCatalog, Route};
use crate::cli::Cli;
use crate::model_choice;

/// The first model and what can be switched to.
pub struct FirstModel {
    /// The models `set_model` and `cycle_model` pick from.
    pub catalog: ModelCatalog,
    /// The first model.
    pub entry: ModelEntry,
    /// Its route.
    pub route: Route,
    /// Its thinking level.
    pub thinking: ThinkingLevel,
}

/// The first model, as `-p` and `--mode json` choose it, and the catalog `set_model` and
/// `cycle_model` pick from.
pub fn choose_model(cli: &Cli, settings: &Settings) -> anyhow::Result<FirstModel> {
    if let Some(script) = crate::session_builder::faux_script(cli)? {
        let provider = FauxProvider::from_script(&script);
        let entry = ModelEntry::new(provider.model());
        let catalog = ModelCatalog::Faux {
            entry: entry.clone(),
            provider: Arc::new(provider),
        };
        let route = catalog.route(&entry)?;
        return Ok(FirstModel {
            catalog,
            entry,
            route,
            thinking: ThinkingLevel::Off,
        });
    }
    let (registry, auth) = model_choice::load_registry();
    let choice = model_choice::choose(cli, settings, &registry, auth)?;
    // `choose` consumed its key store; the catalog keeps one of its own (warnings were printed
    // by the first load).
    let env = Arc::new(ProcessEnvironment);
    let mut auth = match rho_home(env.as_ref()) {
        Some(home) => AuthStore::load(&home, env).0,
        None => AuthStore::empty(env),
    };
    if let Some(key) = &cli.api_key {
        auth.set_runtime_api_key(
            choice.model.provider.clone(),
            rho_models::ApiKey::new(key.clone()),
        );
    }
    let found = registry
        .find(&choice.model.provider, &choice.model.id)
        .cloned();
    let catalog = ModelCatalog::registry(registry, auth);
    // A catalog model is held without its request headers (clients see it; the route adds them);
    // a model synthesised for an unknown id is kept as chosen.
    let (entry, route) = match found {
        Some(entry) => {
            let route = catalog.route(&entry)?;
            (entry, route)
        }
        None => (
            ModelEntry::new(choice.model),
            Route {
                provider: choice.provider,
                api_key: choice.api_key,
                headers: Vec::new(),
            },
        ),
    };
    Ok(FirstModel {
        catalog,
        entry,
        route,
        thinking: choice.thinking,
    })
}
