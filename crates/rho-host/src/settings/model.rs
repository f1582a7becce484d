//! The typed view of the merged settings. Every key is optional: absent means "Pi's default",
//! which the accessors supply.

use std::collections::BTreeMap;
use std::time::Duration;

use rho_agent::QueueMode;
use rho_ai::ThinkingLevel;
use serde::{Deserialize, Deserializer};

use crate::budget::Budget;
use crate::retry::RetryPolicy;
use crate::trust::DefaultProjectTrust;

/// The settings rho reads (Pi's names, plus rho's budget, permission and timeout keys).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `defaultProvider`: provider of the model used when none is given.
    pub default_provider: Option<String>,
    /// `defaultModel`: id of that model.
    pub default_model: Option<String>,
    /// `defaultThinkingLevel` (unset → medium).
    pub default_thinking_level: Option<ThinkingLevel>,
    /// `steeringMode` (unset → one-at-a-time).
    pub steering_mode: Option<QueueMode>,
    /// `followUpMode` (unset → one-at-a-time).
    pub follow_up_mode: Option<QueueMode>,
    /// `enabledModels`: the model patterns of `--models` when that flag is absent.
    pub enabled_models: Option<Vec<String>>,
    /// `retry.*`.
    #[serde(default)]
    pub retry: RetrySettings,
    /// `compaction.*`.
    #[serde(default)]
    pub compaction: CompactionSettings,
    /// rho: `budget.{maxTurns,maxCost,maxTokens}`, the defaults of the budget flags.
    #[serde(default)]
    pub budget: BudgetSettings,
    /// rho: `permission`, the default of `--permission`.
    pub permission: Option<Permission>,
    /// rho: `allowDirs`, directories added to those of `--allow-dir`.
    pub allow_dirs: Option<Vec<String>>,
    /// rho: `toolEnvironment`, what of rho's environment reaches the processes tools start
    /// (`RHO_HOME/settings.json` only: a project could hand itself the keys).
    pub tool_environment: Option<rho_gate::ToolEnvironmentSettings>,
    /// rho: `streamIdleTimeoutMs`, how long a streaming model response may stay silent before
    /// the call fails as stalled (retryable). Unset → the provider layer's default (120 s).
    pub stream_idle_timeout_ms: Option<u64>,
    /// `defaultProjectTrust` (`ask`): read from `RHO_HOME/settings.json` only.
    pub default_project_trust: Option<DefaultProjectTrust>,
    /// `defaultTools`: plain tool names replacing the default set, or `+name`/`-name` entries
    /// editing it (merged across the files as Pi merges it).
    pub default_tools: Option<Vec<String>>,
    /// `modelThinkingLevels`: a thinking level per `"<provider>/<model id>"`, used at start
    /// before `defaultThinkingLevel`.
    pub model_thinking_levels: Option<BTreeMap<String, ThinkingLevel>>,
    /// `httpIdleTimeoutMs` (Pi 1.6): milliseconds, or `"disabled"` (also `0`).
    pub http_idle_timeout_ms: Option<HttpIdleTimeout>,
    /// rho: `hooks`, command hooks in Claude Code's shape (read by `hooks::HooksConfig`; the
    /// project's are added after the global ones).
    pub hooks: Option<serde_json::Value>,
    /// Pi settings present in the files that rho does not implement, to be named in a warning
    /// (not a key of the file).
    #[serde(skip)]
    pub unsupported_pi_keys: Vec<String>,
}

/// `httpIdleTimeoutMs`: Pi accepts a non-negative number, a numeric string or `"disabled"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpIdleTimeout(
    /// Milliseconds; `0` is disabled.
    pub u64,
);

impl<'de> Deserialize<'de> for HttpIdleTimeout {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Text(String),
        }
        let invalid = |shown: String| {
            serde::de::Error::custom(format!(
                "expected milliseconds or \"disabled\", got {shown}"
            ))
        };
        match Raw::deserialize(deserializer)? {
            Raw::Number(ms) if ms.is_finite() && ms >= 0.0 => Ok(HttpIdleTimeout(ms as u64)),
            Raw::Number(ms) => Err(invalid(ms.to_string())),
            Raw::Text(text) if text.trim().eq_ignore_ascii_case("disabled") => {
                Ok(HttpIdleTimeout(0))
            }
            Raw::Text(text) => match text.trim().parse::<f64>() {
                Ok(ms) if ms.is_finite() && ms >= 0.0 => Ok(HttpIdleTimeout(ms as u64)),
                _ => Err(invalid(format!("{text:?}"))),
            },
        }
    }
}

/// How long "disabled" waits: a year, far beyond any response (a timer needs a finite deadline).
const DISABLED_IDLE_TIMEOUT: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// `retry`: the session-level auto-retry (pi-reference §8.6).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetrySettings {
    /// `retry.enabled` (true).
    pub enabled: Option<bool>,
    /// `retry.maxRetries` (3).
    pub max_retries: Option<u32>,
    /// `retry.baseDelayMs` (2000).
    pub base_delay_ms: Option<u64>,
    /// `retry.maxAgentDelayMs` (60000): the longest backoff between two attempts.
    pub max_agent_delay_ms: Option<u64>,
    /// `retry.provider.*`.
    #[serde(default)]
    pub provider: ProviderRetrySettings,
}

/// `retry.provider`: provider-level options. rho's providers make no hidden retries, so only
/// `maxRetryDelayMs` has a meaning for rho (`timeoutMs` and `maxRetries` are read so a bad
/// value is an error, and named in the unsupported-settings warning: `pi_keys.rs`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRetrySettings {
    /// `retry.provider.timeoutMs`.
    pub timeout_ms: Option<u64>,
    /// `retry.provider.maxRetries`.
    pub max_retries: Option<u32>,
    /// `retry.provider.maxRetryDelayMs` (60000; 0 disables the cap). Pi's old
    /// `retry.maxDelayMs` is migrated here.
    pub max_retry_delay_ms: Option<u64>,
}

/// `compaction` (pi-reference §8.4).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionSettings {
    /// `compaction.enabled` (true).
    pub enabled: Option<bool>,
    /// `compaction.reserveTokens` (16384).
    pub reserve_tokens: Option<u64>,
    /// `compaction.keepRecentTokens` (20000).
    pub keep_recent_tokens: Option<u64>,
}

/// rho's `budget`: the per-prompt limits of contract §3.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetSettings {
    /// `budget.maxTurns`.
    pub max_turns: Option<u64>,
    /// `budget.maxCost`, in US dollars; never negative.
    #[serde(default, deserialize_with = "non_negative")]
    pub max_cost: Option<f64>,
    /// `budget.maxTokens`.
    pub max_tokens: Option<u64>,
}

/// What the tools may touch: `--permission` and the `permission` setting.
pub use rho_gate::PermissionMode as Permission;

fn non_negative<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    let value = Option::<f64>::deserialize(deserializer)?;
    match value {
        Some(cost) if !(cost.is_finite() && cost >= 0.0) => Err(serde::de::Error::custom(format!(
            "must be a non-negative number of US dollars, got {cost}"
        ))),
        other => Ok(other),
    }
}

impl Settings {
    /// The session's retry policy: the `retry` keys over Pi's defaults.
    pub fn retry_policy(&self) -> RetryPolicy {
        let defaults = RetryPolicy::default();
        RetryPolicy {
            enabled: self.retry.enabled.unwrap_or(defaults.enabled),
            max_retries: self.retry.max_retries.unwrap_or(defaults.max_retries),
            base_delay_ms: self.retry.base_delay_ms.unwrap_or(defaults.base_delay_ms),
            max_delay_ms: self
                .retry
                .max_agent_delay_ms
                .unwrap_or(defaults.max_delay_ms),
        }
    }

    /// The budget of the `budget` keys (flags override each limit separately).
    pub fn budget(&self) -> Budget {
        Budget {
            max_turns: self.budget.max_turns,
            max_cost: self.budget.max_cost,
            max_tokens: self.budget.max_tokens,
        }
    }

    /// `retry.provider.maxRetryDelayMs`: the longest `retry-after` a provider may ask for
    /// before the call fails at once (default 60 s; `None` when set to 0, no cap).
    pub fn max_retry_delay(&self) -> Option<Duration> {
        match self.retry.provider.max_retry_delay_ms.unwrap_or(60_000) {
            0 => None,
            ms => Some(Duration::from_millis(ms)),
        }
    }

    /// How long a streaming response may stay silent: rho's `streamIdleTimeoutMs`, else Pi
    /// 1.6's `httpIdleTimeoutMs` (`"disabled"` or `0`: no limit in practice), if either is set.
    pub fn stream_idle_timeout(&self) -> Option<Duration> {
        match (self.stream_idle_timeout_ms, self.http_idle_timeout_ms) {
            (Some(ms), _) => Some(Duration::from_millis(ms)),
            (None, Some(HttpIdleTimeout(0))) => Some(DISABLED_IDLE_TIMEOUT),
            (None, Some(HttpIdleTimeout(ms))) => Some(Duration::from_millis(ms)),
            (None, None) => None,
        }
    }

    /// The `modelThinkingLevels` entry of a model, if any.
    pub fn model_thinking_level(&self, provider: &str, model_id: &str) -> Option<ThinkingLevel> {
        self.model_thinking_levels
            .as_ref()
            .and_then(|levels| levels.get(&format!("{provider}/{model_id}")))
            .copied()
    }
}
