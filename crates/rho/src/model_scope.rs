//! `--models` / `enabledModels`: the scoped models for cycling (Pi's `resolveModelScope`).
//! A pattern with `*`, `?` or `[` is a case-insensitive glob over `provider/id` or `id`, with an
//! optional `:<thinking>` suffix; any other pattern resolves like `--model`. Only models with a
//! key count; a pattern that matches none is a warning, as in Pi.

use globset::GlobBuilder;
use rho_ai::ThinkingLevel;
use rho_models::{AuthStore, ModelEntry, ModelRegistry};

/// One scoped model and the thinking level its pattern asked for.
#[derive(Clone, Debug)]
pub struct ScopedModel {
    /// The model.
    pub entry: ModelEntry,
    /// The `:level` of its pattern, if any.
    pub thinking: Option<ThinkingLevel>,
}

/// The models the patterns select, in pattern order, without duplicates; each warning is
/// one line for stderr.
pub fn resolve_scope(
    patterns: &[String],
    registry: &ModelRegistry,
    auth: &AuthStore,
) -> (Vec<ScopedModel>, Vec<String>) {
    let available = registry.available(auth);
    let mut scoped: Vec<ScopedModel> = Vec::new();
    let mut warnings = Vec::new();
    let add = |scoped: &mut Vec<ScopedModel>, entry: &ModelEntry, thinking| {
        let same = |other: &ScopedModel| {
            other.entry.model.provider == entry.model.provider
                && other.entry.model.id == entry.model.id
        };
        if !scoped.iter().any(same) {
            scoped.push(ScopedModel {
                entry: entry.clone(),
                thinking,
            });
        }
    };
    for pattern in patterns.iter().map(|pattern| pattern.trim()) {
        if pattern.is_empty() {
            continue;
        }
        let matched: Vec<(&ModelEntry, Option<ThinkingLevel>)> =
            if pattern.contains(['*', '?', '[']) {
                let (glob, thinking) = split_level(pattern);
                glob_matches(glob, &available)
                    .into_iter()
                    .map(|entry| (entry, thinking))
                    .collect()
            } else {
                match registry.resolve_cli_model(None, pattern) {
                    Ok(resolved) => available
                        .iter()
                        .find(|entry| {
                            entry.model.provider == resolved.model.model.provider
                                && entry.model.id == resolved.model.model.id
                        })
                        .map(|entry| vec![(*entry, resolved.thinking_level)])
                        .unwrap_or_default(),
                    Err(_) => Vec::new(),
                }
            };
        if matched.is_empty() {
            warnings.push(format!("No models match pattern \"{pattern}\""));
        }
        for (entry, thinking) in matched {
            add(&mut scoped, entry, thinking);
        }
    }
    (scoped, warnings)
}

/// `glob:level` → (`glob`, level) when the suffix is a thinking level.
fn split_level(pattern: &str) -> (&str, Option<ThinkingLevel>) {
    if let Some((glob, suffix)) = pattern.rsplit_once(':')
        && let Some(level) = ThinkingLevel::parse(suffix)
    {
        return (glob, Some(level));
    }
    (pattern, None)
}

fn glob_matches<'a>(glob: &str, available: &[&'a ModelEntry]) -> Vec<&'a ModelEntry> {
    // minimatch semantics: `*` stays within one path segment, case ignored.
    let Ok(glob) = GlobBuilder::new(glob)
        .case_insensitive(true)
        .literal_separator(true)
        .build()
    else {
        return Vec::new();
    };
    let matcher = glob.compile_matcher();
    available
        .iter()
        .filter(|entry| {
            let full = format!("{}/{}", entry.model.provider, entry.model.id);
            matcher.is_match(&full) || matcher.is_match(&entry.model.id)
        })
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thinking_suffix_is_split_only_when_it_names_a_level() {
        assert_eq!(
            split_level("anthropic/*:high"),
            ("anthropic/*", Some(ThinkingLevel::High))
        );
        assert_eq!(split_level("a*:b"), ("a*:b", None));
    }
}
