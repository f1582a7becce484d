//! Rendering: a pure function of the state (and the clock, for spinners and elapsed times) into a
//! ratatui frame, so every widget can be drawn into a `TestBackend`.

pub mod conversation;
pub mod editor;
pub mod status;
pub mod text;

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};

use crate::app::App;

/// Draws the whole screen: conversation, notice line, editor, footer.
pub fn draw(frame: &mut Frame, app: &App, now: Instant) {
    let area = frame.area();
    let editor_rows = editor::rows(&app.editor, usize::from(area.width)) as u16;
    let [conversation, notice, editor_area, footer] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(editor_rows + 2),
        Constraint::Length(2),
    ])
    .areas(area);
    conversation::render(frame, conversation, app, now);
    status::render(frame, notice, footer, app, now);
    editor::render(frame, editor_area, &app.editor, app.working);
}
