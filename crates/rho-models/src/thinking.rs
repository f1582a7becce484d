//! Thinking levels a model supports, and clamping a requested level to them (pi-ai
//! `getSupportedThinkingLevels` / `clampThinkingLevel`).

use rho_ai::ThinkingLevel;

use crate::catalog::ModelEntry;

/// The level used when neither the command line, the session nor the settings choose one.
pub const DEFAULT_THINKING_LEVEL: ThinkingLevel = ThinkingLevel::Medium;

/// The levels a model accepts, lowest first: only `off` for a non-reasoning model; otherwise
/// `off` … `high` minus those its `thinkingLevelMap` maps to `null`, plus `xhigh` and `max` each
/// only when the map gives it a value.
pub fn supported_thinking_levels(entry: &ModelEntry) -> Vec<ThinkingLevel> {
    if !entry.model.reasoning {
        return vec![ThinkingLevel::Off];
    }
    let map = entry.thinking_level_map.as_ref();
    ThinkingLevel::ALL
        .into_iter()
        .filter(|level| {
            let mapped = map.and_then(|map| map.get(*level));
            match (level, mapped) {
                (_, Some(None)) => false,
                (ThinkingLevel::Xhigh | ThinkingLevel::Max, mapped) => mapped.is_some(),
                _ => true,
            }
        })
        .collect()
}

/// The requested level if the model supports it, else the next higher supported level, else the
/// next lower one, else the first supported (`off` when there is none).
pub fn clamp_thinking_level(entry: &ModelEntry, level: ThinkingLevel) -> ThinkingLevel {
    let supported = supported_thinking_levels(entry);
    if supported.contains(&level) {
        return level;
    }
    let requested = ThinkingLevel::ALL
        .iter()
        .position(|candidate| *candidate == level)
        .unwrap_or(0);
    let higher = ThinkingLevel::ALL[requested..].iter();
    let lower = ThinkingLevel::ALL[..requested].iter().rev();
    higher
        .chain(lower)
        .find(|candidate| supported.contains(candidate))
        .copied()
        .or_else(|| supported.first().copied())
        .unwrap_or(ThinkingLevel::Off)
}
