//! How the faux provider streams one scripted message: `start`, then per block `*_start`, deltas
//! and `*_end`, then `done` or `error`, yielding to the runtime between chunks and checking for
//! cancellation before every chunk.

use tokio_util::sync::CancellationToken;

use crate::content::{ContentBlock, TextContent, ThinkingContent, ToolCall};
use crate::error::{ErrorInfo, ErrorKind};
use crate::event::AssistantMessageEvent as E;
use crate::message::{AssistantMessage, StopReason};
use crate::model::Context;
use crate::partial::PartialMessage;
use crate::stream::StreamSender;

/// The abort text every provider uses.
pub const ABORTED: &str = "Request was aborted";

pub(super) struct FauxStream {
    pub sender: StreamSender,
    pub template: AssistantMessage,
    pub chunk_chars: usize,
    pub input_tokens: u64,
    pub simulate_usage: bool,
    pub cancel: CancellationToken,
}

/// Stops streaming because the call was cancelled.
struct Aborted;

impl FauxStream {
    pub async fn run(mut self, response: Result<AssistantMessage, String>) {
        let scripted = match response {
            Ok(message) => message,
            Err(error_message) => {
                let mut error = self.template.clone();
                error.stop_reason = StopReason::Error;
                error.error_message = Some(error_message);
                error.error_info = Some(ErrorInfo::new(ErrorKind::Provider));
                self.sender.push(E::Error {
                    reason: StopReason::Error,
                    error,
                });
                return;
            }
        };
        let mut partial = PartialMessage::new(self.template.clone());
        let streamed = self.stream_blocks(&scripted, &mut partial).await;
        // Every provider re-checks for cancellation before `done` (pi-reference §2.2).
        if streamed.is_err() || self.cancel.is_cancelled() {
            partial.stop_reason = StopReason::Aborted;
            partial.error_message = Some(ABORTED.to_owned());
            partial.error_info = Some(ErrorInfo::new(ErrorKind::Aborted));
            self.sender.push(E::Error {
                reason: StopReason::Aborted,
                error: partial.to_message(),
            });
            return;
        }
        let mut message = scripted;
        message.api.clone_from(&partial.api);
        message.provider.clone_from(&partial.provider);
        message.model.clone_from(&partial.model);
        message.timestamp = partial.timestamp;
        if self.simulate_usage {
            let output = estimate_blocks_tokens(&message.content);
            message.usage.input = self.input_tokens;
            message.usage.output = output;
            message.usage.total_tokens = self.input_tokens + output;
        }
        let reason = message.stop_reason;
        if reason.is_failure() {
            self.sender.push(E::Error {
                reason,
                error: message,
            });
        } else {
            self.sender.push(E::Done { reason, message });
        }
    }

    async fn checkpoint(&self) -> Result<(), Aborted> {
        if self.cancel.is_cancelled() || self.sender.is_closed() {
            return Err(Aborted);
        }
        tokio::task::yield_now().await;
        if self.cancel.is_cancelled() {
            return Err(Aborted);
        }
        Ok(())
    }

    async fn stream_blocks(
        &mut self,
        scripted: &AssistantMessage,
        partial: &mut PartialMessage,
    ) -> Result<(), Aborted> {
        self.checkpoint().await?;
        self.sender.push(E::Start {
            partial: partial.snapshot(),
        });
        for block in &scripted.content {
            let index = partial.content.len();
            match block {
                ContentBlock::Text(text) => self.stream_text(text, index, partial).await?,
                ContentBlock::Thinking(thinking) => {
                    self.stream_thinking(thinking, index, partial).await?
                }
                ContentBlock::ToolCall(call) => self.stream_tool_call(call, index, partial).await?,
                ContentBlock::Image(_) => partial.content.push(block.clone()),
            }
        }
        Ok(())
    }

    async fn stream_text(
        &mut self,
        text: &TextContent,
        index: usize,
        partial: &mut PartialMessage,
    ) -> Result<(), Aborted> {
        partial.content.push(ContentBlock::Text(TextContent {
            text: String::new(),
            text_signature: text.text_signature.clone(),
        }));
        self.sender.push(E::TextStart {
            content_index: index,
            partial: partial.snapshot(),
        });
        for chunk in chunks(&text.text, self.chunk_chars) {
            self.checkpoint().await?;
            if let Some(ContentBlock::Text(block)) = partial.content.get_mut(index) {
                block.text.push_str(chunk);
            }
            self.sender.push(E::TextDelta {
                content_index: index,
                delta: chunk.to_owned(),
                partial: partial.snapshot(),
            });
        }
        self.sender.push(E::TextEnd {
            content_index: index,
            content: text.text.clone(),
            partial: partial.snapshot(),
        });
        Ok(())
    }

    async fn stream_thinking(
        &mut self,
        thinking: &ThinkingContent,
        index: usize,
        partial: &mut PartialMessage,
    ) -> Result<(), Aborted> {
        partial
            .content
            .push(ContentBlock::Thinking(ThinkingContent {
                thinking: String::new(),
                ..thinking.clone()
            }));
        self.sender.push(E::ThinkingStart {
            content_index: index,
            partial: partial.snapshot(),
        });
        for chunk in chunks(&thinking.thinking, self.chunk_chars) {
            self.checkpoint().await?;
            if let Some(ContentBlock::Thinking(block)) = partial.content.get_mut(index) {
                block.thinking.push_str(chunk);
            }
            self.sender.push(E::ThinkingDelta {
                content_index: index,
                delta: chunk.to_owned(),
                partial: partial.snapshot(),
            });
        }
        self.sender.push(E::ThinkingEnd {
            content_index: index,
            content: thinking.thinking.clone(),
            partial: partial.snapshot(),
        });
        Ok(())
    }

    /// Streams `JSON.stringify(arguments)` as deltas; the partial's arguments stay `{}` until the end,
    /// as Pi's faux provider does.
    async fn stream_tool_call(
        &mut self,
        call: &ToolCall,
        index: usize,
        partial: &mut PartialMessage,
    ) -> Result<(), Aborted> {
        partial.content.push(ContentBlock::ToolCall(ToolCall {
            arguments: serde_json::Value::Object(serde_json::Map::new()),
            ..call.clone()
        }));
        self.sender.push(E::ToolCallStart {
            content_index: index,
            partial: partial.snapshot(),
        });
        let json = call.arguments.to_string();
        for chunk in chunks(&json, self.chunk_chars) {
            self.checkpoint().await?;
            self.sender.push(E::ToolCallDelta {
                content_index: index,
                delta: chunk.to_owned(),
                partial: partial.snapshot(),
            });
        }
        if let Some(slot) = partial.content.get_mut(index) {
            *slot = ContentBlock::ToolCall(call.clone());
        }
        self.sender.push(E::ToolCallEnd {
            content_index: index,
            tool_call: call.clone(),
            partial: partial.snapshot(),
        });
        Ok(())
    }
}

/// Splits `text` into pieces of at most `size` characters, on character boundaries.
fn chunks(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (offset, _) in text.char_indices() {
        if count == size {
            pieces.push(&text[start..offset]);
            start = offset;
            count = 0;
        }
        count += 1;
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

fn tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

fn block_chars(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text(t) => t.text.chars().count(),
        ContentBlock::Thinking(t) => t.thinking.chars().count(),
        ContentBlock::ToolCall(c) => c.name.len() + c.arguments.to_string().len(),
        ContentBlock::Image(_) => 0,
    }
}

fn estimate_blocks_tokens(blocks: &[ContentBlock]) -> u64 {
    tokens(blocks.iter().map(block_chars).sum())
}

/// Simulated prompt tokens: a character count of the system prompt, messages and tools, over four.
pub(super) fn estimate_context_tokens(context: &Context) -> u64 {
    use crate::message::{Message, UserContent};
    let mut chars = context.system_prompt.as_deref().map_or(0, str::len);
    for message in context.messages.iter() {
        chars += match message {
            Message::User(user) => match &user.content {
                UserContent::Text(text) => text.len(),
                UserContent::Blocks(blocks) => blocks.iter().map(block_chars).sum(),
            },
            Message::Assistant(assistant) => assistant.content.iter().map(block_chars).sum(),
            Message::ToolResult(result) => result.content.iter().map(block_chars).sum(),
        };
    }
    if !context.tools.is_empty() {
        chars += serde_json::to_string(&*context.tools).map_or(0, |s| s.len());
    }
    tokens(chars)
}

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn chunks_split_on_character_boundaries() {
        assert_eq!(chunks("héllo wörld", 4), vec!["héll", "o wö", "rld"]);
        assert_eq!(chunks("", 4), Vec::<&str>::new());
        assert_eq!(chunks("abcd", 4), vec!["abcd"]);
    }
}
