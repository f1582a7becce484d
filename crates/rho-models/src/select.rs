//! Choosing a model from `--provider` / `--model` (Pi's `resolveCliModel`).

use rho_ai::ThinkingLevel;

use crate::catalog::ModelEntry;
use crate::collate::locale_compare;
use crate::error::ModelError;
use crate::providers::default_model_id;
use crate::registry::ModelRegistry;

/// The outcome of resolving `--provider` / `--model`.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// The chosen model (possibly synthesised for an unknown id of a known provider).
    pub model: ModelEntry,
    /// The level from a `:<level>` suffix of the pattern, if one was split off.
    pub thinking_level: Option<ThinkingLevel>,
    /// Something the user should see, e.g. that a custom model id is being used.
    pub warning: Option<String>,
}

impl ModelRegistry {
    /// Resolves `--model <pattern>` (with an optional `--provider`) over *all* models, with or
    /// without a key, so that `--api-key` can supply the key afterwards.
    ///
    /// In order: an unknown `--provider` is an error; a `provider/` prefix naming a provider
    /// selects it; without a provider, an exact id or `provider/id` wins; then, within the
    /// candidates, an exact reference, else a case-insensitive substring of id or name preferring
    /// ids without a `-YYYYMMDD` suffix, highest first; a trailing `:<level>` is split off when
    /// the whole pattern matches nothing. A known provider with an unknown id yields a model
    /// copied from the provider's default with that id, and a warning.
    ///
    /// Pi treats an empty `--model` as no `--model` at all; callers do the same and do not call
    /// this with an empty pattern (which resolves to [`ModelError::NotFound`]).
    pub fn resolve_cli_model(
        &self,
        provider: Option<&str>,
        pattern: &str,
    ) -> Result<Resolved, ModelError> {
        let all = self.all();
        if all.is_empty() {
            return Err(ModelError::NoModels);
        }
        if pattern.is_empty() {
            return Err(ModelError::NotFound {
                model: String::new(),
            });
        }
        let canonical_provider = |name: &str| {
            let lower = name.to_lowercase();
            // The last model of a provider decides its spelling, as Pi's map does.
            all.iter()
                .rev()
                .map(|entry| entry.model.provider.as_str())
                .find(|known| known.to_lowercase() == lower)
        };
        // An empty `--provider` is no provider, as in Pi.
        let provider = provider.filter(|name| !name.is_empty());
        let mut chosen = match provider {
            Some(name) => {
                Some(
                    canonical_provider(name).ok_or_else(|| ModelError::UnknownProvider {
                        provider: name.to_owned(),
                    })?,
                )
            }
            None => None,
        };

        let mut search = pattern;
        let mut inferred = false;
        if chosen.is_none()
            && let Some((prefix, rest)) = pattern.split_once('/')
            && let Some(known) = canonical_provider(prefix)
        {
            chosen = Some(known);
            search = rest;
            inferred = true;
        }
        if chosen.is_none()
            && let Some(exact) = exact_id_or_reference(all, pattern)
        {
            return Ok(plain(exact));
        }
        if provider.is_some()
            && let Some(known) = chosen
        {
            // Tolerate `--provider p --model p/x`.
            let prefix = format!("{known}/");
            if let (Some(head), Some(rest)) =
                (pattern.get(..prefix.len()), pattern.get(prefix.len()..))
                && head.to_lowercase() == prefix.to_lowercase()
            {
                search = rest;
            }
        }

        let candidates: Vec<&ModelEntry> = match chosen {
            Some(known) => all.iter().filter(|e| e.model.provider == known).collect(),
            None => all.iter().collect(),
        };
        if let Some(found) = parse_model_pattern(search, &candidates) {
            return Ok(found);
        }
        if inferred {
            // "openai/gpt-4o:extended" may be an OpenRouter id rather than provider + id.
            if let Some(exact) = exact_id_or_reference(all, pattern) {
                return Ok(plain(exact));
            }
            let everything: Vec<&ModelEntry> = all.iter().collect();
            if let Some(found) = parse_model_pattern(pattern, &everything) {
                return Ok(found);
            }
        }
        if let Some(known) = chosen
            && let Some(model) = fallback_model(all, known, search)
        {
            let warning = format!(
                "Model \"{search}\" not found for provider \"{known}\". Using custom model id."
            );
            return Ok(Resolved {
                model,
                thinking_level: None,
                warning: Some(warning),
            });
        }
        let model = match chosen {
            Some(known) => format!("{known}/{search}"),
            None => pattern.to_owned(),
        };
        Err(ModelError::NotFound { model })
    }
}

fn plain(entry: &ModelEntry) -> Resolved {
    Resolved {
        model: entry.clone(),
        thinking_level: None,
        warning: None,
    }
}

/// The first model whose id, or `provider/id`, equals the input case-insensitively.
fn exact_id_or_reference<'a>(all: &'a [ModelEntry], input: &str) -> Option<&'a ModelEntry> {
    let lower = input.to_lowercase();
    all.iter().find(|entry| {
        entry.model.id.to_lowercase() == lower || reference(entry).to_lowercase() == lower
    })
}

fn reference(entry: &ModelEntry) -> String {
    format!("{}/{}", entry.model.provider, entry.model.id)
}

/// Pi's `parseModelPattern` in strict mode: the whole pattern, else split off a valid `:<level>`
/// suffix and try the rest (an invalid suffix means no match).
fn parse_model_pattern(pattern: &str, candidates: &[&ModelEntry]) -> Option<Resolved> {
    if let Some(found) = try_match_model(pattern, candidates) {
        return Some(plain(found));
    }
    let (prefix, suffix) = pattern.rsplit_once(':')?;
    let level = ThinkingLevel::parse(suffix)?;
    let mut inner = parse_model_pattern(prefix, candidates)?;
    if inner.warning.is_none() {
        inner.thinking_level = Some(level);
    }
    Some(inner)
}

/// An exact reference, else the best substring match of id or name.
fn try_match_model<'a>(pattern: &str, candidates: &[&'a ModelEntry]) -> Option<&'a ModelEntry> {
    if let Some(exact) = exact_reference(pattern, candidates) {
        return Some(exact);
    }
    let needle = pattern.to_lowercase();
    let matches: Vec<&ModelEntry> = candidates
        .iter()
        .copied()
        .filter(|entry| {
            entry.model.id.to_lowercase().contains(&needle)
                || entry.model.name.to_lowercase().contains(&needle)
        })
        .collect();
    let (mut aliases, mut dated): (Vec<&ModelEntry>, Vec<&ModelEntry>) = matches
        .into_iter()
        .partition(|entry| is_alias(&entry.model.id));
    let pool = if aliases.is_empty() {
        &mut dated
    } else {
        &mut aliases
    };
    pool.sort_by(|a, b| locale_compare(&b.model.id, &a.model.id));
    pool.first().copied()
}

/// Pi's `findExactModelReferenceMatch`: a unique `provider/id`, else a unique id.
fn exact_reference<'a>(
    reference_text: &str,
    candidates: &[&'a ModelEntry],
) -> Option<&'a ModelEntry> {
    let trimmed = reference_text.trim();
    if trimmed.is_empty() {
        return None;
    }
    let lower = trimmed.to_lowercase();
    let unique = |found: Vec<&'a ModelEntry>| -> Result<Option<&'a ModelEntry>, ()> {
        match found.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            _ => Err(()),
        }
    };
    let canonical = candidates
        .iter()
        .copied()
        .filter(|entry| reference(entry).to_lowercase() == lower)
        .collect();
    match unique(canonical) {
        Ok(Some(found)) => return Some(found),
        Ok(None) => {}
        Err(()) => return None,
    }
    if let Some((provider, id)) = trimmed.split_once('/') {
        let (provider, id) = (provider.trim().to_lowercase(), id.trim().to_lowercase());
        if !provider.is_empty() && !id.is_empty() {
            let split = candidates
                .iter()
                .copied()
                .filter(|entry| {
                    entry.model.provider.to_lowercase() == provider
                        && entry.model.id.to_lowercase() == id
                })
                .collect();
            match unique(split) {
                Ok(Some(found)) => return Some(found),
                Ok(None) => {}
                Err(()) => return None,
            }
        }
    }
    let by_id = candidates
        .iter()
        .copied()
        .filter(|entry| entry.model.id.to_lowercase() == lower)
        .collect();
    unique(by_id).ok().flatten()
}

/// An id ending in `-latest`, or not ending in `-YYYYMMDD`, names the current version.
fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let bytes = id.as_bytes();
    let dated = bytes.len() >= 9
        && bytes[bytes.len() - 9] == b'-'
        && bytes[bytes.len() - 8..].iter().all(u8::is_ascii_digit);
    !dated
}

/// The provider's default model (else its first) under the requested id and name.
fn fallback_model(all: &[ModelEntry], provider: &str, id: &str) -> Option<ModelEntry> {
    let mut of_provider = all.iter().filter(|entry| entry.model.provider == provider);
    let first = of_provider.clone().next()?;
    let base = default_model_id(provider)
        .and_then(|default_id| of_provider.find(|entry| entry.model.id == default_id))
        .unwrap_or(first);
    let mut model = base.clone();
    model.model.id = id.to_owned();
    model.model.name = id.to_owned();
    Some(model)
}
