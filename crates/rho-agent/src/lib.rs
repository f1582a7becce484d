//! rho-agent: the agent loop and the `Agent` handle.
//!
//! The model proposes tool calls; this crate checks each one (registered? valid arguments?
//! allowed by `beforeToolCall`?), runs it or refuses it, and feeds the result back into the next
//! model call, reporting everything as [`AgentEvent`]s. It does no I/O of its own: the model is a
//! [`rho_ai::Provider`], tools are [`AgentTool`]s, and events go to an [`EventSink`].

pub mod agent;
pub mod config;
pub mod event;
mod execute;
pub mod hooks;
pub mod queue;
pub mod run;
pub mod tool;
pub mod validate;

pub use agent::{Agent, AgentError, AgentOptions, AgentState, Subscription};
pub use config::{LoopConfig, LoopContext, ToolExecution};
pub use event::{AgentEvent, EventSink, ToolResultPayload};
pub use execute::BLOCKED;
pub use hooks::{
    AfterToolCall, AfterToolCallOverride, BeforeToolCall, BeforeToolCallDecision, ContextHooks,
    HookError, MessageSource, NextTurnHook, StopHook, ToolChange, ToolChangeHook, ToolHooks,
    TurnGate, TurnSummary,
};
pub use queue::{PendingQueue, QueueMode};
pub use rho_ai::{AgentMessage, CustomMessage, default_convert_to_llm};
pub use run::{LoopError, run_agent_loop, run_agent_loop_continue};
pub use tool::{
    AgentTool, ExecutionMode, ToolAnnotations, ToolContext, ToolError, ToolOutput, ToolUpdates,
};
