//! The project trust question the interactive mode asks once, before the session is built
//! (Pi 1.6's startup selector): a short list on the terminal, arrows or `j`/`k` to move, Enter
//! to answer, Escape or Ctrl+C for "Do not trust (this session only)".

use std::io::{self, Write};
use std::path::Path;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, terminal};

/// The question's state: the answers and the highlighted one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustPrompt {
    header: Vec<String>,
    labels: Vec<String>,
    selected: usize,
}

/// What a key did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptStep {
    /// Still asking.
    Pending,
    /// The answer at this index.
    Answered(usize),
    /// Cancelled: the caller treats it as "Do not trust (this session only)".
    Cancelled,
}

impl TrustPrompt {
    /// The question for `cwd` with these answer labels (the first is highlighted).
    pub fn new(cwd: &Path, labels: Vec<String>) -> Self {
        TrustPrompt {
            header: vec![
                "Trust project folder?".to_owned(),
                cwd.display().to_string(),
                String::new(),
                "This allows rho to load .rho settings, rules and resources.".to_owned(),
                String::new(),
            ],
            labels,
            selected: 0,
        }
    }

    /// Applies one key.
    pub fn key(&mut self, key: KeyEvent) -> PromptStep {
        let last = self.labels.len().saturating_sub(1);
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::Enter => return PromptStep::Answered(self.selected),
            KeyCode::Esc => return PromptStep::Cancelled,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return PromptStep::Cancelled;
            }
            _ => {}
        }
        PromptStep::Pending
    }

    /// The lines to show: the question, then the answers, the highlighted one marked `→`.
    pub fn lines(&self) -> Vec<String> {
        let answers = self.labels.iter().enumerate().map(|(index, label)| {
            let mark = if index == self.selected { "→" } else { " " };
            format!("{mark} {label}")
        });
        self.header.iter().cloned().chain(answers).collect()
    }
}

/// Asks on the terminal (stderr); `Ok(None)` when cancelled. Raw mode is on only while asking.
pub fn ask(cwd: &Path, labels: Vec<String>) -> io::Result<Option<usize>> {
    let mut prompt = TrustPrompt::new(cwd, labels);
    let mut out = io::stderr();
    terminal::enable_raw_mode()?;
    let result = (|| -> io::Result<Option<usize>> {
        let mut drawn = 0u16;
        loop {
            if drawn > 0 {
                execute!(out, cursor::MoveToPreviousLine(drawn))?;
            }
            execute!(out, terminal::Clear(terminal::ClearType::FromCursorDown))?;
            let lines = prompt.lines();
            for line in &lines {
                write!(out, "{line}\r\n")?;
            }
            out.flush()?;
            drawn = u16::try_from(lines.len()).unwrap_or(u16::MAX);
            let Event::Key(key) = crossterm::event::read()? else {
                continue;
            };
            if key.kind != KeyEventKind::Press {
                continue;
            }
            match prompt.key(key) {
                PromptStep::Pending => {}
                PromptStep::Answered(index) => return Ok(Some(index)),
                PromptStep::Cancelled => return Ok(None),
            }
        }
    })();
    terminal::disable_raw_mode()?;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn arrows_move_enter_answers_and_escape_cancels() {
        let labels = vec!["Trust".to_owned(), "Do not trust".to_owned()];
        let mut prompt = TrustPrompt::new(Path::new("/work/p"), labels);
        assert_eq!(
            prompt.lines(),
            [
                "Trust project folder?",
                "/work/p",
                "",
                "This allows rho to load .rho settings, rules and resources.",
                "",
                "→ Trust",
                "  Do not trust"
            ]
        );
        assert_eq!(prompt.key(press(KeyCode::Down)), PromptStep::Pending);
        assert_eq!(prompt.key(press(KeyCode::Down)), PromptStep::Pending);
        assert_eq!(prompt.lines()[6], "→ Do not trust");
        assert_eq!(prompt.key(press(KeyCode::Enter)), PromptStep::Answered(1));
        assert_eq!(prompt.key(press(KeyCode::Char('k'))), PromptStep::Pending);
        assert_eq!(prompt.key(press(KeyCode::Enter)), PromptStep::Answered(0));
        assert_eq!(prompt.key(press(KeyCode::Esc)), PromptStep::Cancelled);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(prompt.key(ctrl_c), PromptStep::Cancelled);
    }
}
