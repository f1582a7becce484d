//! Images in the `read` tool (pi-reference §6.1): detection by magic bytes, Pi's auto-resize, and
//! the result the model sees (`Read image file [<mime>]` plus the image attachment).

mod detect;
mod exif;
mod resize;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rho_agent::{ToolError, ToolOutput};
use rho_ai::{ContentBlock, ImageContent};

pub use detect::{ImageMime, SNIFF_BYTES, detect_image_mime};
pub use resize::{
    DEFAULT_MAX_BASE64_BYTES, DEFAULT_MAX_DIMENSION, FittedImage, ResizeLimits, fit_image,
};

/// The extra line when the image cannot be made small enough.
const OMITTED_NOTE: &str =
    "[Image omitted: could not be resized below the inline image size limit.]";
/// The extra line when the current model cannot take image input.
const NON_VISION_NOTE: &str =
    "[Current model does not support images. The image will be omitted from this request.]";

/// How `read` turns an image file into a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageOptions {
    /// Pi's `images.autoResize` (default on): fit the image into [`ResizeLimits`].
    pub auto_resize: bool,
    /// Whether the current model accepts image input; if not, the text says it will be omitted.
    pub model_supports_images: bool,
    /// What auto-resize fits the image into.
    pub limits: ResizeLimits,
}

impl Default for ImageOptions {
    /// Auto-resize on, a vision model, Pi's limits.
    fn default() -> Self {
        ImageOptions {
            auto_resize: true,
            model_supports_images: true,
            limits: ResizeLimits::default(),
        }
    }
}

/// The `read` result for an image file's `bytes`, detected as `mime`: a text block
/// `Read image file [<mime>]` (with the dimension and non-vision notes) and the image itself, or
/// the text alone when auto-resize cannot make the image small enough. Details are `None`.
///
/// Resizing is CPU-heavy, so it runs on the blocking pool.
pub async fn image_output(
    bytes: Vec<u8>,
    mime: ImageMime,
    options: ImageOptions,
) -> Result<ToolOutput, ToolError> {
    if !options.auto_resize {
        let data = STANDARD.encode(&bytes);
        let text = with_non_vision_note(format!("Read image file [{}]", mime.as_str()), options);
        return Ok(text_and_image(text, data, mime.as_str()));
    }
    let fitted = tokio::task::spawn_blocking(move || fit_image(&bytes, mime, &options.limits))
        .await
        .map_err(|e| ToolError::new(e.to_string()))?;
    let Some(fitted) = fitted else {
        let text = format!("Read image file [{}]\n{OMITTED_NOTE}", mime.as_str());
        return Ok(ToolOutput::text(with_non_vision_note(text, options)));
    };
    let mut text = format!("Read image file [{}]", fitted.mime_type);
    if let Some(note) = fitted.dimension_note() {
        text.push('\n');
        text.push_str(&note);
    }
    let text = with_non_vision_note(text, options);
    Ok(text_and_image(text, fitted.data, fitted.mime_type))
}

/// Appends the non-vision line when the model cannot see images.
fn with_non_vision_note(mut text: String, options: ImageOptions) -> String {
    if !options.model_supports_images {
        text.push('\n');
        text.push_str(NON_VISION_NOTE);
    }
    text
}

/// `[text, image]` content with no details.
fn text_and_image(text: String, data: String, mime_type: &str) -> ToolOutput {
    ToolOutput {
        content: vec![
            ContentBlock::text(text),
            ContentBlock::Image(ImageContent {
                data,
                mime_type: mime_type.to_owned(),
            }),
        ],
        ..ToolOutput::default()
    }
}
