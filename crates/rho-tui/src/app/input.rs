//! What enters the reducer ([`Input`]) and what it asks of the event loop ([`Effect`]). Every
//! change of the interactive mode's state is one `Input` passed to
//! [`App::update`](super::App::update); everything the state cannot do by itself (talk to the
//! session, run a command, read or write a file) comes back out as an `Effect`, and its result,
//! if any, goes back in as another `Input`.

use std::path::PathBuf;

use crossterm::event::KeyEvent;
use rho_agent::AgentMessage;
use rho_ai::ThinkingLevel;
use rho_host::SessionEvent;

use crate::approval::{ApprovalChoice, ApprovalDialog};
use crate::completion::FileIndex;
use crate::dialogs::{DialogAnswer, OpenDialog};
use crate::sessions::{
    ForkPoint, LabelChange, PickerStatus, SessionFileChange, SessionRow, SwitchRequest, TreeFilter,
    TreeRow,
};
use crate::slash::{ModelOption, SlashAction};
use crate::status::SessionInfo;
use crate::user_shell::{ShellLine, ShellOutput};

/// One thing that happened, for [`App::update`](super::App::update).
#[derive(Debug)]
pub enum Input {
    /// A key the terminal reported.
    Key(KeyEvent),
    /// A bracketed paste.
    Paste(String),
    /// An event of the session, in the order the session emitted it (boxed: an event is the
    /// largest input by far).
    Session(Box<SessionEvent>),
    /// The clock moved: nothing changes by itself, but spinners, elapsed times and countdowns
    /// are drawn anew from the time.
    Tick,
    /// The screen is up: the prompts given on the command line go out, one after another.
    Started(Vec<String>),
    /// The session refused a prompt outright (no events will follow).
    PromptRefused(String),
    /// The gate asks the user about a command.
    ApprovalAsked(ApprovalDialog),
    /// The host asks the user something (a server's elicitation, the `/mcp` manager).
    DialogAsked(OpenDialog),
    /// Nobody waits for the host's question `id` any more: it goes.
    DialogClosed(u64),
    /// The host's open question `id` asks this now (a live menu made again).
    DialogUpdated(u64, crate::dialogs::DialogKind),
    /// The host says something: a line for the conversation.
    Notice(String, rho_host::ui::NoticeLevel),
    /// The allow rules an "always" answer wrote to `rules_file`, or why they could not be.
    RulesWritten {
        /// The project's rules file.
        rules_file: PathBuf,
        /// The prefixes allowed, or what went wrong.
        result: Result<Vec<String>, String>,
    },
    /// The files `@` completes, walked.
    FilesIndexed(FileIndex),
    /// A `!cmd` asked for with [`Effect::RunShell`] is running.
    ShellStarted(ShellRun),
    /// A `!cmd` ended: its output, or why it could not run.
    ShellFinished(ShellRun, Result<ShellOutput, String>),
    /// What the session switcher answered to a sessions effect.
    Sessions(SessionsReply),
    /// A session switch ended: the session now shown, or why the old one goes on.
    SwitchDone(Result<SwitchedTo, String>),
    /// What the command host answered to a [`Effect::Slash`].
    Commands(CommandsReply),
    /// Work an effect asked for failed, or is not available here: said as an error line.
    Failed(String),
}

impl From<SessionEvent> for Input {
    fn from(event: SessionEvent) -> Self {
        Input::Session(Box::new(event))
    }
}

/// What the event loop must do for the state.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Run a prompt (nothing is running).
    Prompt(String),
    /// Queue a steering message (delivered after the current turn's tools).
    Steer(String),
    /// Queue a follow-up message (delivered when the run would stop).
    FollowUp(String),
    /// Drop both queues (their texts were put back into the editor).
    ClearQueue,
    /// Cancel the run or the retry wait.
    Abort,
    /// Use this thinking level from the next model call on (the host keeps it).
    SetThinking(ThinkingLevel),
    /// The user answered an approval dialog ("always" also writes the rule).
    Answer(ApprovalDialog, ApprovalChoice),
    /// The user answered the host's question `id`.
    AnswerDialog(u64, DialogAnswer),
    /// Run a command the host provides (`/mcp`), with its arguments.
    Extension {
        /// The command's name.
        name: String,
        /// What followed it, trimmed.
        args: String,
    },
    /// Run a `!cmd` / `!!cmd` line; [`Input::ShellStarted`] says it runs.
    RunShell(ShellRun),
    /// Record a finished `!cmd` in the session (only while no prompt runs, so the message
    /// never lands between a tool call and its result).
    RecordShell(ShellLine, ShellOutput),
    /// Stop the running `!cmd`.
    CancelShell,
    /// Walk the working directory for `@` completion (once, off the UI task).
    IndexFiles,
    /// `/resume`: list the sessions for the picker.
    OpenSessionPicker,
    /// `/fork`: list the user messages to fork before.
    OpenForkPicker,
    /// `/tree`: list the session's tree.
    OpenTree,
    /// Save a label entered in the tree navigator and list the tree anew.
    SaveTreeLabel(LabelChange),
    /// Rename or delete a session file the `/resume` picker asked about, and list anew.
    ChangeSessionFile(SessionFileChange),
    /// Replace or re-branch the running session (`/new` is `SwitchSession(SwitchRequest::New)`).
    SwitchSession(SwitchRequest),
    /// Work of a `/` command for the command host (`slash/host.rs`).
    Slash(SlashAction),
    /// Leave the interactive mode (after this frame).
    Exit,
}

/// One `!cmd` run: its number (the block's id) and the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellRun {
    /// The run's number, counted from 1.
    pub id: u64,
    /// What the user typed.
    pub line: ShellLine,
}

/// What the session switcher answered.
#[derive(Debug)]
pub enum SessionsReply {
    /// The sessions for the `/resume` picker.
    Listed {
        /// This directory's sessions.
        here: Vec<SessionRow>,
        /// Every directory's sessions.
        everywhere: Vec<SessionRow>,
        /// The session rho has open (which cannot be deleted).
        current: Option<PathBuf>,
    },
    /// The user messages `/fork` can start before.
    ForkPoints(Vec<ForkPoint>),
    /// The session's tree for `/tree`, and the filter it opens with.
    Tree {
        /// A row for every entry.
        rows: Vec<TreeRow>,
        /// The `treeFilterMode` setting.
        filter: TreeFilter,
    },
    /// A label was saved (the tree's rows anew), or why not.
    LabelSaved(Result<Vec<TreeRow>, String>),
    /// A session file was renamed or deleted (or not: `status` says why), and the lists anew.
    FileChanged {
        /// What the picker says about it, if anything.
        status: Option<PickerStatus>,
        /// This directory's sessions.
        here: Vec<SessionRow>,
        /// Every directory's sessions.
        everywhere: Vec<SessionRow>,
    },
}

/// The session shown after a switch.
#[derive(Debug)]
pub struct SwitchedTo {
    /// What the status line shows for it.
    pub info: SessionInfo,
    /// Its transcript, to show as the conversation.
    pub messages: Vec<AgentMessage>,
    /// Text to put in the editor (a forked or re-branched user message).
    pub editor_text: Option<String>,
    /// A line for the conversation saying what happened.
    pub notice: String,
    /// Warnings of the switch, one line each.
    pub warnings: Vec<String>,
}

/// What the command host answered to a `/` command's work.
#[derive(Debug)]
pub enum CommandsReply {
    /// The models to pick from, and the search typed with `/model`.
    Models {
        /// The models with a usable key.
        models: Vec<ModelOption>,
        /// The search.
        query: String,
    },
    /// A model switch: the thinking level now in effect, or why not.
    ModelSet {
        /// The model picked.
        model: ModelOption,
        /// The level, or a message.
        result: Result<ThinkingLevel, String>,
    },
    /// `/session`'s rows.
    SessionStats(Vec<(String, String)>),
    /// `/settings`' rows.
    Settings(Vec<(String, String)>),
    /// Auto-compaction is now on or off for this session.
    AutoCompaction(bool),
    /// `/export` wrote this file, or why not.
    Exported(Result<String, String>),
    /// `/copy` put the last reply on the clipboard, or why not.
    Copied(Result<(), String>),
}
