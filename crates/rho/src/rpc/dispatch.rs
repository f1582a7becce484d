//! One command in, its response out (Pi's `handleCommand`). Commands that wait — a prompt's run,
//! `abort`, `new_session`, `bash` — continue on their own task, so the next line is read at once.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rho_host::session::SESSION_BUSY;
use rho_models::supported_thinking_levels;
use serde_json::{Value, json};

use super::host::{Host, lock, report_unremembered};
use super::models::model_json;
use super::protocol::{Command, Request, Response, StreamingBehavior};
use super::stats::{last_assistant_text, session_stats};
use super::user_bash::{self, BashCancel};

/// Runs `request`; the response is written now or, for commands that wait, by their task.
pub fn dispatch(host: &Arc<Host>, request: Request) {
    if let Some(response) = handle(host, request) {
        host.output.write(&response.to_json());
    }
}

fn handle(host: &Arc<Host>, request: Request) -> Option<Response> {
    let Request { id, kind, command } = request;
    let command = match super::session_commands::handle(host, id.clone(), &kind, command) {
        Ok(response) => return response,
        Err(command) => command,
    };
    let current = host.current();
    let session = current.session.clone();
    let agent = session.agent().clone();
    match command {
        Command::Prompt {
            message,
            images,
            streaming_behavior,
        } => {
            // A compaction holds the session like a run: the prompt is queued or refused.
            if current.busy.load(Ordering::SeqCst) || session.is_compacting() {
                return Some(match streaming_behavior {
                    Some(StreamingBehavior::Steer) => {
                        session.steer_with_images(&message, images);
                        Response::ok(id, &kind)
                    }
                    Some(StreamingBehavior::FollowUp) => {
                        session.follow_up_with_images(&message, images);
                        Response::ok(id, &kind)
                    }
                    None => Response::failure(id, &kind, SESSION_BUSY),
                });
            }
            // A new session's file is written when its first prompt is accepted.
            if let Err(error) = host.materialise(&current) {
                return Some(Response::failure(id, &kind, error.to_string()));
            }
            current.busy.store(true, Ordering::SeqCst);
            host.flush_pending_bash();
            // Accepted: Pi answers before the run's first event.
            host.output.write(&Response::ok(id, &kind).to_json());
            let host = host.clone();
            tokio::spawn(async move {
                // A failure after acceptance shows as events only, never as a second response.
                let _ = session.prompt_with_images(&message, images).await;
                current.busy.store(false, Ordering::SeqCst);
                if current.is_live(&host) {
                    host.flush_pending_bash();
                }
            });
            None
        }
        Command::Steer { message, images } | Command::FollowUp { message, images } => {
            if kind == "steer" {
                session.steer_with_images(&message, images);
            } else {
                session.follow_up_with_images(&message, images);
            }
            Some(Response::ok(id, &kind))
        }
        Command::Abort => {
            let host = host.clone();
            tokio::spawn(async move {
                session.abort().await;
                host.output.write(&Response::ok(id, &kind).to_json());
            });
            None
        }
        Command::GetState => {
            let entry = host.current_entry();
            let (file, name) = {
                let backing = lock(&current.backing);
                (backing.path(), backing.name())
            };
            let mut data = agent.with_state(|s| {
                json!({
                    "model": model_json(&entry),
                    "thinkingLevel": s.thinking_level,
                    "isStreaming": s.is_streaming,
                    "isCompacting": session.is_compacting(),
                    "steeringMode": agent.steering_mode(),
                    "followUpMode": agent.follow_up_mode(),
                    "sessionFile": file.map(|f| f.to_string_lossy().into_owned()),
                    "sessionId": current.id,
                    "sessionName": name,
                    "autoCompactionEnabled": session.auto_compaction_enabled(),
                    "messageCount": s.messages.len(),
                    "pendingMessageCount": current.queued.load(Ordering::SeqCst),
                })
            });
            // Pi leaves out what is `undefined`: no file, no name.
            if let Value::Object(fields) = &mut data {
                for key in ["sessionFile", "sessionName"] {
                    if fields.get(key).is_some_and(Value::is_null) {
                        fields.shift_remove(key);
                    }
                }
            }
            Some(Response::data(id, &kind, data))
        }
        Command::GetMessages => {
            let messages = agent.with_state(|s| serde_json::to_value(&s.messages));
            Some(match messages {
                Ok(messages) => Response::data(id, &kind, json!({ "messages": messages })),
                Err(error) => Response::failure(id, &kind, error.to_string()),
            })
        }
        Command::SetModel { provider, model_id } => {
            Some(match host.set_model(&provider, &model_id) {
                Ok(entry) => Response::data(id, &kind, model_json(&entry)),
                Err(error) => Response::failure(id, &kind, error.to_string()),
            })
        }
        Command::CycleModel => Some(match host.cycle_model() {
            Ok(None) => Response::data(id, &kind, Value::Null),
            Ok(Some(entry)) => {
                let level = agent.with_state(|s| s.thinking_level);
                let data =
                    json!({"model": model_json(&entry), "thinkingLevel": level, "isScoped": false});
                Response::data(id, &kind, data)
            }
            Err(error) => Response::failure(id, &kind, error.to_string()),
        }),
        Command::GetAvailableModels => {
            let models: Vec<Value> = host.catalog().available().iter().map(model_json).collect();
            Some(Response::data(id, &kind, json!({ "models": models })))
        }
        Command::SetThinkingLevel { level } => {
            host.set_thinking_level(level);
            Some(Response::ok(id, &kind))
        }
        Command::CycleThinkingLevel => {
            let entry = host.current_entry();
            if !entry.model.reasoning {
                return Some(Response::data(id, &kind, Value::Null));
            }
            let levels = supported_thinking_levels(&entry);
            let level = agent.with_state(|s| s.thinking_level);
            let next = levels
                .iter()
                .position(|l| *l == level)
                .map_or(0, |index| (index + 1) % levels.len());
            let Some(next) = levels.get(next).copied() else {
                return Some(Response::data(id, &kind, Value::Null));
            };
            host.set_thinking_level(next);
            Some(Response::data(id, &kind, json!({ "level": next })))
        }
        Command::SetSteeringMode { mode } => {
            agent.set_steering_mode(mode);
            report_unremembered(host.config.remember.steering_mode(mode));
            Some(Response::ok(id, &kind))
        }
        Command::SetFollowUpMode { mode } => {
            agent.set_follow_up_mode(mode);
            report_unremembered(host.config.remember.follow_up_mode(mode));
            Some(Response::ok(id, &kind))
        }
        Command::Compact {
            custom_instructions,
        } => {
            let host = host.clone();
            tokio::spawn(async move {
                let response = match session.compact(custom_instructions.as_deref()).await {
                    Ok(result) => match serde_json::to_value(&result) {
                        Ok(data) => Response::data(id, &kind, data),
                        Err(error) => Response::failure(id, &kind, error.to_string()),
                    },
                    Err(error) => Response::failure(id, &kind, error.to_string()),
                };
                host.output.write(&response.to_json());
            });
            None
        }
        Command::SetAutoCompaction { enabled } => {
            session.set_auto_compaction(enabled);
            report_unremembered(host.config.remember.auto_compaction(enabled));
            Some(Response::ok(id, &kind))
        }
        Command::SetAutoRetry { enabled } => Some(match host.set_auto_retry(enabled) {
            Ok(()) => Response::ok(id, &kind),
            Err(error) => Response::failure(id, &kind, error),
        }),
        Command::AbortRetry => {
            session.abort_retry();
            Some(Response::ok(id, &kind))
        }
        Command::Bash { command } => {
            let cancel = BashCancel::new();
            *host
                .bash_cancel
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(cancel.clone());
            let host = host.clone();
            tokio::spawn(async move {
                let result = user_bash::run(&command, host.cwd(), &cancel).await;
                let response = match result {
                    Ok(result) => {
                        host.record_bash(result.to_message(&command, rho_ai::message::now_ms()));
                        Response::data(id, &kind, result.to_json())
                    }
                    Err(error) => Response::failure(id, &kind, error.to_string()),
                };
                host.output.write(&response.to_json());
            });
            None
        }
        Command::AbortBash => {
            let running = host
                .bash_cancel
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            if let Some(cancel) = running {
                cancel.cancel();
            }
            Some(Response::ok(id, &kind))
        }
        Command::GetSessionStats => {
            let window = host.current_entry().model.context_window;
            let data = agent.with_state(|s| session_stats(&current.id, &s.messages, window));
            Some(Response::data(id, &kind, data))
        }
        Command::GetLastAssistantText => {
            let text = agent.with_state(|s| last_assistant_text(&s.messages));
            let data = match text {
                Some(text) => json!({ "text": text }),
                None => json!({}),
            };
            Some(Response::data(id, &kind, data))
        }
        // Answered by `session_commands`.
        Command::NewSession { .. }
        | Command::ExportHtml { .. }
        | Command::SwitchSession { .. }
        | Command::Fork { .. }
        | Command::Clone
        | Command::GetForkMessages
        | Command::SetSessionName { .. } => None,
        Command::GetCommands => Some(Response::data(id, &kind, json!({"commands": []}))),
    }
}
