//! Budgets per prompt: once a limit is reached the run ends after the current turn's tools, the
//! model is not called again, and the prompt settles with reason `budget`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use rho_agent::{AgentOptions, AgentTool, ToolError, ToolOutput, ToolUpdates};
use rho_ai::faux::{FauxProvider, faux_error, faux_message, faux_text, faux_tool_call};
use rho_ai::{AssistantMessage, ErrorInfo, ErrorKind};
use rho_host::{AgentSession, Budget, RetryPolicy, SessionEvent, SettledReason};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

struct Echo(Value);

#[async_trait::async_trait]
impl AgentTool for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn description(&self) -> &str {
        "echoes"
    }
    fn parameters(&self) -> &Value {
        &self.0
    }
    async fn execute(
        &self,
        _: &str,
        _: Value,
        _: CancellationToken,
        _: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("echo"))
    }
}

/// A model that calls `echo` forever, each reply costing `cost` USD.
fn looping_provider(cost: f64) -> FauxProvider {
    let provider = FauxProvider::new();
    let mut reply = faux_message(vec![faux_tool_call("call_1", "echo", json!({}))]);
    reply.usage.cost.total = cost;
    provider.set_fallback(reply);
    provider
}

fn session(provider: &FauxProvider, budget: Budget) -> (AgentSession, Arc<Mutex<Vec<String>>>) {
    let mut options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    options.tools = vec![Arc::new(Echo(json!({"type": "object", "properties": {}})))];
    let session = AgentSession::builder(options)
        .budget(budget)
        .retry(RetryPolicy {
            base_delay_ms: 1,
            ..RetryPolicy::default()
        })
        .build();
    let kinds = Arc::new(Mutex::new(Vec::new()));
    let sink = kinds.clone();
    session.subscribe(move |event: &SessionEvent| {
        let kind = serde_json::to_value(event).unwrap()["type"].clone();
        sink.lock().unwrap().push(kind.as_str().unwrap().to_owned());
    });
    (session, kinds)
}

fn tail(kinds: &Mutex<Vec<String>>, n: usize) -> Vec<String> {
    let kinds = kinds.lock().unwrap();
    kinds[kinds.len() - n..].to_vec()
}

const BATCH_END: [&str; 7] = [
    "tool_execution_start",
    "tool_execution_end",
    "message_start",
    "message_end",
    "turn_end",
    "agent_end",
    "agent_settled",
];

#[tokio::test]
async fn max_turns_ends_the_run_after_the_last_allowed_turns_tools() {
    let provider = looping_provider(0.0);
    let budget = Budget {
        max_turns: Some(2),
        ..Budget::default()
    };
    let (session, kinds) = session(&provider, budget);
    let settled = session.prompt("loop").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Budget);
    assert_eq!(settled.turns, 2);
    assert_eq!(provider.call_count(), 2, "the model was not called again");
    assert_eq!(tail(&kinds, BATCH_END.len()), BATCH_END);
}

#[tokio::test]
async fn max_cost_ends_the_run_once_the_spent_cost_reaches_it() {
    let provider = looping_provider(0.375);
    let budget = Budget {
        max_cost: Some(1.0),
        ..Budget::default()
    };
    let (session, kinds) = session(&provider, budget);
    let settled = session.prompt("loop").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Budget);
    assert_eq!(provider.call_count(), 3, "0.375 · 3 ≥ 1.0");
    assert_eq!(settled.usage.cost.total, 1.125);
    assert_eq!(tail(&kinds, BATCH_END.len()), BATCH_END);
}

#[tokio::test]
async fn max_tokens_ends_the_run_once_the_prompts_tokens_reach_it() {
    let provider = looping_provider(0.0);
    let budget = Budget {
        max_tokens: Some(1),
        ..Budget::default()
    };
    let (session, kinds) = session(&provider, budget);
    let settled = session.prompt("loop").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Budget);
    assert_eq!(provider.call_count(), 1);
    assert!(settled.usage.total_tokens >= 1);
    assert_eq!(tail(&kinds, BATCH_END.len()), BATCH_END);
}

#[tokio::test]
async fn a_model_that_finishes_within_its_last_allowed_turn_completed() {
    let provider = FauxProvider::new();
    provider.push(faux_message(vec![faux_text("done")]));
    let budget = Budget {
        max_turns: Some(1),
        ..Budget::default()
    };
    let (session, _) = session(&provider, budget);
    let settled = session.prompt("hi").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Completed);
}

#[tokio::test]
async fn a_spent_budget_stops_retrying() {
    let provider = FauxProvider::new();
    let mut failure: AssistantMessage = faux_error(vec![], "overloaded");
    failure.error_info = Some(ErrorInfo::new(ErrorKind::Overloaded));
    provider.push(failure);
    provider.push(faux_message(vec![faux_text("never asked")]));
    let budget = Budget {
        max_tokens: Some(1),
        ..Budget::default()
    };
    let (session, kinds) = session(&provider, budget);
    let settled = session.prompt("hi").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Budget);
    assert_eq!(provider.call_count(), 1);
    assert!(
        !kinds
            .lock()
            .unwrap()
            .iter()
            .any(|k| k == "auto_retry_start")
    );
}

#[tokio::test]
async fn budgets_count_per_prompt() {
    let provider = FauxProvider::new();
    provider.push(faux_message(vec![faux_tool_call("c1", "echo", json!({}))]));
    provider.push(faux_message(vec![faux_text("one")]));
    provider.push(faux_message(vec![faux_tool_call("c2", "echo", json!({}))]));
    provider.push(faux_message(vec![faux_text("two")]));
    let budget = Budget {
        max_turns: Some(2),
        ..Budget::default()
    };
    let (session, _) = session(&provider, budget);
    assert_eq!(
        session.prompt("a").await.unwrap().reason,
        SettledReason::Completed
    );
    let second = session.prompt("b").await.unwrap();
    assert_eq!(second.reason, SettledReason::Completed);
    assert_eq!(second.turns, 2);
}
