//! The prompts of a non-interactive run (pi-reference §7.1): piped stdin (trimmed), then the
//! `@file` arguments, then the first message, joined with no separator; the other messages
//! follow as prompts of their own.

use std::io::Read;
use std::path::Path;

use anyhow::{Context as _, bail};
use rho_ai::ImageContent;
use rho_host::tools::image::{ResizeLimits, detect_image_mime, fit_image};
use rho_host::tools::path::resolve_read_path;

/// The first prompt, with the images of its `@file` arguments.
#[derive(Debug, Default, PartialEq)]
pub struct FirstPrompt {
    /// Stdin + file text + first message.
    pub text: String,
    /// Image `@file` arguments, in command-line order.
    pub images: Vec<ImageContent>,
}

/// All prompts of the run.
#[derive(Debug, PartialEq)]
pub struct Prompts {
    /// The first prompt.
    pub first: FirstPrompt,
    /// The messages after the first, run one after another.
    pub rest: Vec<String>,
}

/// Reads piped stdin (when `piped`), the `@file` arguments among `args` and the messages.
pub fn resolve_prompts(args: &[String], piped: bool, cwd: &Path) -> anyhow::Result<Prompts> {
    let stdin_text = if piped { read_stdin()? } else { String::new() };
    let (files, mut messages): (Vec<&String>, Vec<&String>) =
        args.iter().partition(|arg| arg.starts_with('@'));
    let mut text = stdin_text.trim().to_owned();
    let mut images = Vec::new();
    for file in files {
        let name = file.strip_prefix('@').unwrap_or(file);
        include_file(name, cwd, &mut text, &mut images)?;
    }
    let rest = if messages.is_empty() {
        Vec::new()
    } else {
        text.push_str(messages.remove(0));
        messages.into_iter().cloned().collect()
    };
    if text.is_empty() && images.is_empty() {
        bail!("no prompt given: pass a message, e.g. rho -p \"…\"");
    }
    Ok(Prompts {
        first: FirstPrompt { text, images },
        rest,
    })
}

fn read_stdin() -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("cannot read standard input")?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// One `@file`: text is inlined as `<file name="…">\n…\n</file>\n`; an image becomes an
/// attachment plus `<file name="…">[dimension note]</file>\n`; an empty file is skipped.
fn include_file(
    name: &str,
    cwd: &Path,
    text: &mut String,
    images: &mut Vec<ImageContent>,
) -> anyhow::Result<()> {
    let path = resolve_read_path(name, cwd);
    let shown = path.display();
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            bail!("File not found: {shown}")
        }
        Err(error) => bail!("Could not read file {shown}: {error}"),
    };
    if bytes.is_empty() {
        return Ok(());
    }
    if let Some(mime) = detect_image_mime(&bytes) {
        let Some(fitted) = fit_image(&bytes, mime, &ResizeLimits::default()) else {
            text.push_str(&format!(
                "<file name=\"{shown}\">[Image omitted: could not be resized below the inline image size limit.]</file>\n"
            ));
            return Ok(());
        };
        let note = fitted.dimension_note().unwrap_or_default();
        text.push_str(&format!("<file name=\"{shown}\">{note}</file>\n"));
        images.push(ImageContent {
            data: fitted.data,
            mime_type: fitted.mime_type.to_owned(),
        });
        return Ok(());
    }
    // Like Node's utf-8 decoding, invalid bytes become U+FFFD rather than failing.
    let content = String::from_utf8_lossy(&bytes);
    text.push_str(&format!("<file name=\"{shown}\">\n{content}\n</file>\n"));
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn files_are_inlined_before_the_first_message_in_pis_wrapping() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "alpha").unwrap();
        std::fs::write(dir.path().join("empty.txt"), "").unwrap();
        let prompts = resolve_prompts(
            &args(&["first", "@a.md", "second", "@empty.txt"]),
            false,
            dir.path(),
        )
        .unwrap();
        let a = dir.path().join("a.md");
        assert_eq!(
            prompts,
            Prompts {
                first: FirstPrompt {
                    text: format!("<file name=\"{}\">\nalpha\n</file>\nfirst", a.display()),
                    images: vec![],
                },
                rest: args(&["second"]),
            }
        );
    }

    #[test]
    fn a_missing_file_names_its_absolute_path() {
        let dir = tempfile::tempdir().unwrap();
        let error = resolve_prompts(&args(&["@nope.md", "hi"]), false, dir.path()).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("File not found: {}", dir.path().join("nope.md").display())
        );
    }

    #[test]
    fn files_alone_make_a_prompt_and_nothing_at_all_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "alpha").unwrap();
        let prompts = resolve_prompts(&args(&["@a.md"]), false, dir.path()).unwrap();
        assert!(prompts.rest.is_empty());
        assert!(prompts.first.text.ends_with("alpha\n</file>\n"));
        let error = resolve_prompts(&[], false, dir.path()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "no prompt given: pass a message, e.g. rho -p \"…\""
        );
    }
}
