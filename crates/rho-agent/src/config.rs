//! What one run is given: the context snapshot and the loop configuration.

use std::path::PathBuf;
use std::sync::Arc;

use rho_ai::{Model, Provider, ThinkingLevel};

use crate::hooks::{
    ContextHooks, MessageSource, NextTurnHook, StopHook, ToolChangeHook, ToolHooks, TurnGate,
};
use crate::tool::AgentTool;
use rho_ai::AgentMessage;

/// Parallel (default) or sequential tool execution for every batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToolExecution {
    /// Preflight in order, execute concurrently, results in source order.
    #[default]
    Parallel,
    /// One call after another.
    Sequential,
}

/// The context a run starts from. The run works on its own copy.
#[derive(Clone, Default)]
pub struct LoopContext {
    /// The system prompt.
    pub system_prompt: Option<Arc<str>>,
    /// The transcript so far.
    pub messages: Vec<AgentMessage>,
    /// The tools offered to the model.
    pub tools: Vec<Arc<dyn AgentTool>>,
}

/// How a run behaves: model, provider, hooks.
#[derive(Clone)]
pub struct LoopConfig {
    /// The model to call.
    pub model: Model,
    /// The provider serving it.
    pub provider: Arc<dyn Provider>,
    /// API key passed to the provider.
    pub api_key: Option<String>,
    /// Reasoning effort; `None` = off.
    pub reasoning: Option<ThinkingLevel>,
    /// Session id passed to the provider (and to the tools, in their [`crate::ToolContext`]).
    pub session_id: Option<String>,
    /// The session file, when the session is kept on disk (for the tools' context).
    pub session_file: Option<PathBuf>,
    /// Parallel or sequential tool batches.
    pub tool_execution: ToolExecution,
    /// `beforeToolCall` / `afterToolCall`.
    pub tool_hooks: Option<Arc<dyn ToolHooks>>,
    /// `transformContext` / `convertToLlm`.
    pub context_hooks: Option<Arc<dyn ContextHooks>>,
    /// Steering and follow-up queues.
    pub messages: Option<Arc<dyn MessageSource>>,
    /// `shouldStopAfterTurn`.
    pub turn_gate: Option<Arc<dyn TurnGate>>,
    /// `prepareNextTurn`.
    pub next_turn: Option<Arc<dyn NextTurnHook>>,
    /// `declareToolChanges`.
    pub tool_changes: Option<Arc<dyn ToolChangeHook>>,
    /// Asked before a run ends on its own (the `Stop` hooks).
    pub stop: Option<Arc<dyn StopHook>>,
}

impl LoopConfig {
    /// A configuration with no hooks.
    pub fn new(model: Model, provider: Arc<dyn Provider>) -> Self {
        LoopConfig {
            model,
            provider,
            api_key: None,
            reasoning: None,
            session_id: None,
            session_file: None,
            tool_execution: ToolExecution::Parallel,
            tool_hooks: None,
            context_hooks: None,
            messages: None,
            turn_gate: None,
            next_turn: None,
            tool_changes: None,
            stop: None,
        }
    }
}
