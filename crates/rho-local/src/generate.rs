//! One model call on a blocking thread: the prompt through llama.cpp, then token by token
//! through the samplers, streaming events as the text arrives.

use std::num::NonZeroU32;
use std::path::PathBuf;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::{LlamaChatMessage, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use rho_ai::{Context, ErrorInfo, StopReason};
use tokio_util::sync::CancellationToken;

use crate::emit::Emitter;
use crate::engine::{LocalError, backend, load_model};
use crate::grammar::{TOOL_CALL_OPEN, tool_call_grammar};
use crate::prompt::{ChatTurn, ToolChoice, chat_turns, chatml, tool_choice_for};

/// The text every aborted call ends with.
pub const ABORTED_MESSAGE: &str = "Request was aborted";

/// Tokens per `llama_decode` call while reading the prompt.
const BATCH: usize = 512;
/// How far back the repetition penalty looks, and how hard it pushes.
const PENALTY_LAST_N: i32 = 64;
const PENALTY_REPEAT: f32 = 1.1;

/// Everything one call needs, moved onto the blocking thread.
pub(crate) struct Job {
    pub path: PathBuf,
    pub context: Context,
    pub context_window: u32,
    pub max_tokens: u64,
    pub temperature: Option<f64>,
    pub cancel: CancellationToken,
    pub emitter: Emitter,
}

/// Why generation stopped early.
enum Stop {
    Aborted,
    Failed(LocalError),
}

impl From<LocalError> for Stop {
    fn from(error: LocalError) -> Self {
        Stop::Failed(error)
    }
}

/// Runs the call to its one terminal event.
pub(crate) fn run(mut job: Job) {
    let result = generate(&mut job);
    let emitter = &mut job.emitter;
    match result {
        Ok(reason) => emitter.done(reason),
        Err(Stop::Aborted) => emitter.fail(
            StopReason::Aborted,
            ABORTED_MESSAGE.to_owned(),
            ErrorInfo::new(rho_ai::ErrorKind::Aborted),
        ),
        Err(Stop::Failed(error)) => emitter.fail(
            StopReason::Error,
            error.to_string(),
            ErrorInfo::new(error.kind()),
        ),
    }
}

fn generate(job: &mut Job) -> Result<StopReason, Stop> {
    let model = load_model(&job.path)?;
    let choice = tool_choice_for(&job.context);
    let prompt = render_prompt(&model, &chat_turns(&job.context));
    let vocab = model.vocab();
    let tokens = vocab.tokenize(prompt.as_bytes(), true, true);
    let window = job.context_window;
    // One free slot at least, for the first generated token.
    if tokens.len() >= window as usize {
        return Err(LocalError::ContextOverflow {
            prompt_tokens: tokens.len(),
            context_window: window,
        }
        .into());
    }
    job.emitter.set_input_tokens(tokens.len() as u64);
    let mut ctx = new_context(&model, window)?;
    let mut batch = LlamaBatch::new(BATCH, 1);
    let last = tokens.len() - 1;
    for (chunk_index, chunk) in tokens.chunks(BATCH).enumerate() {
        checkpoint(job)?;
        batch.clear();
        for (offset, token) in chunk.iter().enumerate() {
            let position = chunk_index * BATCH + offset;
            batch
                .add(*token, position as i32, &[0], position == last)
                .map_err(|e| LocalError::Inference(e.to_string()))?;
        }
        ctx.decode(&mut batch)
            .map_err(|e| LocalError::Inference(e.to_string()))?;
    }
    let mut sampler = sampler(&model, &job.context, choice, job.temperature)?;
    job.emitter.start();
    let budget = job.max_tokens.min(u64::from(window) - tokens.len() as u64);
    let mut position = tokens.len();
    let mut bytes = Vec::new();
    let mut generated = 0u64;
    while generated < budget {
        checkpoint(job)?;
        let token = sampler.sample(&ctx, -1);
        if vocab.is_eog(token) {
            return Ok(job.emitter.finish(false));
        }
        generated += 1;
        job.emitter.set_output_tokens(generated);
        bytes.extend(vocab.token_to_piece(token, false, None));
        let text = take_utf8(&mut bytes);
        if !text.is_empty() && job.emitter.push_text(&text) {
            // One call per turn: the grammar allows nothing after `</tool_call>` but the end.
            return Ok(job.emitter.finish(false));
        }
        batch.clear();
        batch
            .add(token, position as i32, &[0], true)
            .map_err(|e| LocalError::Inference(e.to_string()))?;
        ctx.decode(&mut batch)
            .map_err(|e| LocalError::Inference(e.to_string()))?;
        position += 1;
    }
    Ok(job.emitter.finish(true))
}

fn checkpoint(job: &Job) -> Result<(), Stop> {
    if job.cancel.is_cancelled() || job.emitter.is_closed() {
        Err(Stop::Aborted)
    } else {
        Ok(())
    }
}

/// The prompt through the GGUF's own chat template; ChatML when the file has none that
/// llama.cpp can apply.
fn render_prompt(model: &LlamaModel, turns: &[ChatTurn]) -> String {
    let from_template = model.chat_template(None).ok().and_then(|template| {
        let messages: Option<Vec<LlamaChatMessage>> = turns
            .iter()
            .map(|turn| LlamaChatMessage::new(turn.role.to_owned(), turn.content.clone()).ok())
            .collect();
        model.apply_chat_template(&template, &messages?, true).ok()
    });
    from_template.unwrap_or_else(|| chatml(turns))
}

fn new_context(model: &LlamaModel, window: u32) -> Result<LlamaContext<'_>, LocalError> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get() as i32);
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(window))
        .with_n_batch(BATCH as u32)
        .with_n_ubatch(BATCH as u32)
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    model
        .new_context(backend()?, params)
        .map_err(|e| LocalError::Inference(format!("cannot create a context: {e}")))
}

/// The grammar of a text-only answer when tools are present.
const TEXT_ONLY: &str = "root ::= [^<]+";

/// Repetition penalty, the tool-call grammar as `choice` asks, then greedy decoding (or
/// temperature sampling when the caller set one).
fn sampler(
    model: &LlamaModel,
    context: &Context,
    choice: ToolChoice,
    temperature: Option<f64>,
) -> Result<LlamaSampler, LocalError> {
    let mut chain = vec![LlamaSampler::penalties(
        model.n_vocab(),
        PENALTY_LAST_N,
        PENALTY_REPEAT,
        0.0,
        0.0,
    )];
    let grammar = tool_call_grammar(&context.tools);
    let grammar_error = |e: llama_cpp_2::GrammarError| {
        LocalError::Inference(format!("the tool-call grammar was rejected: {e}"))
    };
    match (choice, grammar) {
        (ToolChoice::Required, Some(grammar)) => {
            chain.push(LlamaSampler::grammar(model, &grammar, "root").map_err(grammar_error)?);
        }
        (ToolChoice::Auto, Some(grammar)) => chain.push(
            LlamaSampler::grammar_lazy(model, &grammar, "root", [TOOL_CALL_OPEN], &[])
                .map_err(grammar_error)?,
        ),
        // Tools are there but the model must answer: no `<`, so no `<tool_call>` either.
        (ToolChoice::None, Some(_)) => {
            chain.push(LlamaSampler::grammar(model, TEXT_ONLY, "root").map_err(grammar_error)?);
        }
        _ => {}
    }
    match temperature {
        Some(t) if t > 0.0 => {
            chain.push(LlamaSampler::top_k(40));
            chain.push(LlamaSampler::top_p(0.95, 1));
            chain.push(LlamaSampler::temp(t as f32));
            chain.push(LlamaSampler::dist(seed()));
        }
        _ => chain.push(LlamaSampler::greedy()),
    }
    Ok(LlamaSampler::chain_simple(chain))
}

fn seed() -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    nanos ^ std::process::id()
}

/// Takes the longest valid UTF-8 prefix out of `bytes`; a character split across tokens waits
/// for its next token, and bytes that can never be valid become U+FFFD.
fn take_utf8(bytes: &mut Vec<u8>) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            let text = text.to_owned();
            bytes.clear();
            text
        }
        Err(error) => {
            let valid = error.valid_up_to();
            let end = match error.error_len() {
                Some(len) => valid + len,
                None => valid,
            };
            let text = String::from_utf8_lossy(&bytes[..end]).into_owned();
            bytes.drain(..end);
            text
        }
    }
}
