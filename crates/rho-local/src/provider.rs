//! The `local` provider: the model layer's [`Provider`] over the model process `rho-llama`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rho_ai::{
    AssistantMessage, AssistantMessageEventStream, Context, ErrorKind, Model, Provider,
    StreamOptions,
};
use rho_stdx::sync::lock;

use crate::install::verify_model;
use crate::model::call_limits;
use crate::process::ModelProcess;
use crate::wire::Call;

/// The model process's executable name, installed beside `rho`.
pub const RUNNER_NAME: &str = "rho-llama";
/// The environment variable that names another model process executable.
pub const RUNNER_ENV: &str = "RHO_LLAMA";

/// The model processes started so far that are still running, one per executable.
static PROCESSES: Mutex<Vec<Arc<ModelProcess>>> = Mutex::new(Vec::new());

/// Runs GGUF models in the model process `program` (see the `rho-llama` crate), started on the
/// first call and kept for the life of rho, so each model file is loaded once. Calls run one
/// at a time, in the order they were made. Before anything starts, the model file (the model's
/// `base_url`) is checked: a missing, truncated or non-GGUF file ends the call at once.
#[derive(Clone, Debug)]
pub struct LocalProvider {
    program: PathBuf,
}

impl LocalProvider {
    /// The provider running models in `program`.
    pub fn new(program: PathBuf) -> Self {
        LocalProvider { program }
    }

    /// The model process executable this provider starts.
    pub fn program(&self) -> &Path {
        &self.program
    }
}

impl Provider for LocalProvider {
    fn stream(
        &self,
        model: &Model,
        context: Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let template = AssistantMessage::empty(&model.api, &model.provider, &model.id);
        let (mut sender, stream) = rho_ai::channel(template.clone());
        if let Err(error) = verify_model(Path::new(&model.base_url)) {
            sender.fail(template, error.kind(), error.to_string());
            return stream;
        }
        let process = match process_for(&self.program) {
            Ok(process) => process,
            Err(error) => {
                let kind = match error.kind() {
                    std::io::ErrorKind::NotFound => ErrorKind::NotFound,
                    _ => ErrorKind::Provider,
                };
                let text = format!(
                    "cannot start the local model process {}: {error} (it is built and installed beside rho, from the rho package)",
                    self.program.display()
                );
                sender.fail(template, kind, text);
                return stream;
            }
        };
        let (context_window, max_tokens) = call_limits(model, &options);
        let call = Call {
            id: 0,
            model: model.clone(),
            system_prompt: context.system_prompt.as_deref().map(str::to_owned),
            messages: context.messages.as_ref().clone(),
            tools: context.tools.to_vec(),
            context_window,
            max_tokens,
            temperature: options.temperature,
        };
        process.submit(Box::new(call), sender, template, options.cancel);
        stream
    }
}

/// The running process for `program`, started if there is none.
fn process_for(program: &Path) -> std::io::Result<Arc<ModelProcess>> {
    let mut processes = lock(&PROCESSES);
    processes.retain(|process| process.is_running());
    if let Some(process) = processes.iter().find(|p| p.program() == program) {
        return Ok(Arc::clone(process));
    }
    let process = ModelProcess::spawn(program)?;
    processes.push(Arc::clone(&process));
    Ok(process)
}
