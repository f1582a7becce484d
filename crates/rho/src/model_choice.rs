//! Which model answers, through which provider, with which key (pi-reference §7.3, §8.9).

use std::sync::Arc;

use anyhow::{Context as _, bail};
use rho_ai::faux::{FauxProvider, FauxScript};
use rho_ai::{Model, Provider, ThinkingLevel};
use rho_host::providers::{DEFAULT_IDLE_TIMEOUT, Providers, SUPPORTED_APIS};
use rho_host::settings::Settings;
use rho_models::{
    AuthStore, ModelEntry, ModelRegistry, ProcessEnvironment, clamp_thinking_level,
    no_models_available_message, rho_home,
};
use serde_json::{Map, Value};

use crate::cli::Cli;
use crate::model_scope::resolve_scope;

/// The resolved model and everything a run needs to call it.
pub struct ModelChoice {
    /// Serves the model.
    pub provider: Arc<dyn Provider>,
    /// The model, with the provider's extra headers merged into `headers`.
    pub model: Model,
    /// The key, if the provider has one.
    pub api_key: Option<String>,
    /// The clamped thinking level.
    pub thinking: ThinkingLevel,
}

/// No key for the model a run would use, or no provider with a key at all; the message says
/// how to add one.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NoKey(String);

/// The models and keys of `RHO_HOME`; problems with its files are warnings, not failures (as in Pi).
pub fn load_registry() -> (ModelRegistry, AuthStore) {
    let env = Arc::new(ProcessEnvironment);
    let Some(home) = rho_home(env.as_ref()) else {
        return (ModelRegistry::builtin(), AuthStore::empty(env));
    };
    let (registry, problems) = ModelRegistry::load(&home);
    for problem in problems {
        crate::warnings::warn(&problem);
    }
    let (auth, problem) = AuthStore::load(&home, env);
    if let Some(problem) = problem {
        crate::warnings::warn(&problem);
    }
    (registry, auth)
}

/// The faux model of `--faux-script`.
pub fn faux(script: &FauxScript) -> ModelChoice {
    let provider = FauxProvider::from_script(script);
    ModelChoice {
        model: provider.model(),
        provider: Arc::new(provider),
        api_key: None,
        thinking: ThinkingLevel::Off,
    }
}

/// Resolves `--provider`, `--model`, `--models`, `--api-key` and `--thinking`, or the default
/// model of the settings (pi-reference §7.3).
///
/// A run that lacks a key fails with [`NoKey`] (`rho acp` answers it as `auth_required`).
pub fn choose(
    cli: &Cli,
    settings: &Settings,
    registry: &ModelRegistry,
    mut auth: AuthStore,
) -> anyhow::Result<ModelChoice> {
    if crate::local::is_requested(cli) {
        return crate::local::choose(cli);
    }
    let patterns = cli.models.as_ref().or(settings.enabled_models.as_ref());
    let model_given = cli.model.as_deref().is_some_and(|model| !model.is_empty());
    if cli.api_key.is_some() && !model_given && cli.provider.is_none() && cli.models.is_none() {
        bail!(
            "--api-key requires a model to be specified via --model, --provider/--model, or --models"
        );
    }
    let (entry, suffix_level) = match (cli.provider.as_deref(), cli.model.as_deref()) {
        (provider, Some(pattern)) if !pattern.is_empty() => {
            let resolved = registry.resolve_cli_model(provider, pattern)?;
            if let Some(warning) = resolved.warning {
                crate::warnings::warn(&warning);
            }
            (resolved.model, resolved.thinking_level)
        }
        // Pi 1.6: a provider alone no longer picks its default model.
        (Some(provider), _) => bail!(
            "--provider requires --model (for example: --provider {provider} --model <pattern>)"
        ),
        (None, _) => match default_or_scoped(settings, patterns, registry, &auth) {
            Ok(found) => found,
            // No provider has a key: the installed local model runs offline, and says so.
            Err(error) => match crate::local::installed().filter(|_| cli.api_key.is_none()) {
                Some(local) => {
                    crate::warnings::say(format!(
                        "rho: no provider has an API key; using the offline local model {} (small: expect simple answers). Add a key with `rho auth login` for a capable model.",
                        local.model.id
                    ));
                    return Ok(local);
                }
                None => return Err(error),
            },
        },
    };
    let provider_name = entry.model.provider.clone();
    if let Some(key) = &cli.api_key {
        auth.set_runtime_api_key(provider_name.clone(), rho_models::ApiKey::new(key.clone()));
    }
    let idle_timeout = settings
        .stream_idle_timeout()
        .unwrap_or(DEFAULT_IDLE_TIMEOUT);
    let Some(provider) = Providers::new(idle_timeout).for_api(&entry.model.api) else {
        bail!(
            "model {}/{} uses the {} API, which this version of rho does not speak (it speaks {})",
            provider_name,
            entry.model.id,
            entry.model.api,
            SUPPORTED_APIS.join(", ")
        );
    };
    if !registry.is_available(&entry, &auth) {
        let vars = rho_models::providers::api_key_env_vars(&provider_name);
        let hint = if vars.is_empty() {
            "pass --api-key or add it to auth.json".to_owned()
        } else {
            format!("set {} or pass --api-key", vars.join(" or "))
        };
        return Err(NoKey(format!("No API key found for {provider_name}: {hint}")).into());
    }
    let request = registry
        .request_auth(&entry, &auth)
        .with_context(|| format!("cannot resolve the API key of provider {provider_name}"))?;
    let thinking = thinking_level(cli, settings, &entry, suffix_level);
    let mut model = entry.model.clone();
    if !request.headers.is_empty() {
        let mut headers = match model.headers.take() {
            Some(Value::Object(headers)) => headers,
            _ => Map::new(),
        };
        for (name, value) in request.headers {
            headers.insert(name, Value::String(value));
        }
        model.headers = Some(Value::Object(headers));
    }
    Ok(ModelChoice {
        provider,
        model,
        api_key: request.api_key.map(|key| key.expose().to_owned()),
        thinking,
    })
}

/// `--thinking` > the `:level` suffix (of `--model` or the scoped pattern) > settings
/// `modelThinkingLevels` for the model > `defaultThinkingLevel` > medium, clamped to what the model supports. An invalid `--thinking`
/// value is ignored, as in Pi.
fn thinking_level(
    cli: &Cli,
    settings: &Settings,
    entry: &ModelEntry,
    suffix: Option<ThinkingLevel>,
) -> ThinkingLevel {
    // An invalid value was reported when the flags were read (`cli_checks.rs`).
    let flag = cli.thinking.as_deref().and_then(ThinkingLevel::parse);
    let per_model = settings.model_thinking_level(&entry.model.provider, &entry.model.id);
    let level = flag
        .or(suffix)
        .or(per_model)
        .or(settings.default_thinking_level)
        .unwrap_or(rho_models::DEFAULT_THINKING_LEVEL);
    clamp_thinking_level(entry, level)
}

/// Without `--model`/`--provider`: with scoped models, the settings' default model if it is in
/// scope, else the first scoped one; otherwise the settings' default, else Pi's fallbacks.
fn default_or_scoped(
    settings: &Settings,
    patterns: Option<&Vec<String>>,
    registry: &ModelRegistry,
    auth: &AuthStore,
) -> anyhow::Result<(ModelEntry, Option<ThinkingLevel>)> {
    let provider = settings.default_provider.as_deref();
    let id = settings.default_model.as_deref();
    if let Some(patterns) = patterns {
        let (scoped, warnings) = resolve_scope(patterns, registry, auth);
        for warning in warnings {
            crate::warnings::warn(&warning);
        }
        let saved = scoped.iter().find(|scoped| {
            Some(scoped.entry.model.provider.as_str()) == provider
                && Some(scoped.entry.model.id.as_str()) == id
        });
        if let Some(chosen) = saved.or(scoped.first()) {
            return Ok((chosen.entry.clone(), chosen.thinking));
        }
    }
    match registry.default_model(auth, provider, id) {
        Some(entry) => Ok((entry.clone(), None)),
        None => Err(NoKey(format!(
            "{} Or install the offline model: rho model install",
            no_models_available_message().replace('\n', " ")
        ))
        .into()),
    }
}
