//! Rendering: a pure function of the state (and the clock, for spinners and elapsed times) into a
//! ratatui frame, so every widget can be drawn into a `TestBackend`.

pub mod approval;
pub mod completion;
pub mod conversation;
pub mod dialog;
pub mod diff;
pub mod editor;
pub mod highlight;
pub mod lazy_code;
pub mod list;
pub mod markdown;
pub mod spinner;
pub mod status;
pub mod summary;
pub mod table;
pub mod text;
pub mod tool_block;

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};

use crate::app::App;

/// Draws the whole screen: conversation, notice line, editor, footer.
pub fn draw(frame: &mut Frame, app: &App, now: Instant) {
    let area = frame.area();
    // An approval dialog, or else a host's question, takes the editor's place: the answer is
    // the only input then.
    let dialog = app.approvals().front();
    let question = app.dialogs().front().filter(|_| dialog.is_none());
    let width = usize::from(area.width);
    let editor_rows = match (dialog, question) {
        (Some(dialog), _) => approval::height(dialog, width).saturating_sub(2),
        (None, Some(question)) => self::dialog::height(question, width).saturating_sub(2),
        (None, None) => editor::rows(app.editor(), width),
    };
    let editor_rows = u16::try_from(editor_rows).unwrap_or(u16::MAX);
    let [conversation, notice, editor_area, footer] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(editor_rows.saturating_add(2)),
        Constraint::Length(2),
    ])
    .areas(area);
    conversation::render(frame, conversation, app, now);
    status::render(frame, notice, footer, app, now);
    match (dialog, question) {
        (Some(dialog), _) => approval::render(frame, editor_area, dialog),
        (None, Some(question)) => self::dialog::render(frame, editor_area, question),
        (None, None) => {
            editor::render(frame, editor_area, app.editor(), app.working());
            if let Some(open) = app.completion() {
                completion::render(frame, conversation, open, app.files_indexed());
            }
        }
    }
    if let Some(overlay) = app.sessions_overlay() {
        crate::sessions::view::render(frame, conversation.union(editor_area), overlay);
    }
    crate::slash::view::render(frame, conversation, editor_area, app);
    app.theme().apply(frame.buffer_mut());
}
