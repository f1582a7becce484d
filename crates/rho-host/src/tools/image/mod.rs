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

/// The extra line when a BMP cannot be decoded (Pi's `processImage`).
const UNCONVERTIBLE_NOTE: &str =
    "[Image omitted: could not be converted to a supported inline image format.]";

/// A BMP file re-encoded as PNG, or `None` when it cannot be decoded.
pub(super) fn bmp_to_png(bytes: &[u8]) -> Option<Vec<u8>> {
    let image = image::load_from_memory_with_format(bytes, image::ImageFormat::Bmp).ok()?;
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .ok()?;
    Some(png)
}

/// The extra line when the image cannot be made small enough.
const OMITTED_NOTE: &str =
    "[Image omitted: could not be resized below the inline image size limit.]";

/// How `read` turns an image file into a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageOptions {
    /// Pi's `images.autoResize` (default on): fit the image into [`ResizeLimits`].
    pub auto_resize: bool,
    /// What auto-resize fits the image into.
    pub limits: ResizeLimits,
}

impl Default for ImageOptions {
    /// Auto-resize on, Pi's limits.
    fn default() -> Self {
        ImageOptions {
            auto_resize: true,
            limits: ResizeLimits::default(),
        }
    }
}

/// The `read` result for an image file's `bytes`, detected as `mime`: a text block
/// `Read image file [<mime>]` (with the dimension note) and the image itself, or
/// the text alone when auto-resize cannot make the image small enough. Details are `None`.
///
/// Resizing is CPU-heavy, so it runs on the blocking pool.
pub async fn image_output(
    bytes: Vec<u8>,
    mime: ImageMime,
    options: ImageOptions,
) -> Result<ToolOutput, ToolError> {
    // Pi 1.6 sends only PNG, JPEG, GIF and WebP: a BMP becomes a PNG first.
    let (bytes, mime, converted_from) = if mime == ImageMime::Bmp {
        let converted = tokio::task::spawn_blocking(move || bmp_to_png(&bytes))
            .await
            .map_err(|e| ToolError::new(e.to_string()))?;
        let Some(png) = converted else {
            let text = format!("Read image file [{}]\n{UNCONVERTIBLE_NOTE}", mime.as_str());
            return Ok(ToolOutput::text(text));
        };
        (png, ImageMime::Png, Some(mime))
    } else {
        (bytes, mime, None)
    };
    let conversion_hint = |to: &str| {
        converted_from
            .map(|from| format!("\n[Image converted from {} to {to}.]", from.as_str()))
            .unwrap_or_default()
    };
    if !options.auto_resize {
        let data = STANDARD.encode(&bytes);
        let hint = conversion_hint(mime.as_str());
        let text = format!("Read image file [{}]{hint}", mime.as_str());
        return Ok(text_and_image(text, data, mime.as_str()));
    }
    let fitted = tokio::task::spawn_blocking(move || fit_image(&bytes, mime, &options.limits))
        .await
        .map_err(|e| ToolError::new(e.to_string()))?;
    let Some(fitted) = fitted else {
        let shown = converted_from.unwrap_or(mime);
        let text = format!("Read image file [{}]\n{OMITTED_NOTE}", shown.as_str());
        return Ok(ToolOutput::text(text));
    };
    let mut text = format!("Read image file [{}]", fitted.mime_type);
    text.push_str(&conversion_hint(fitted.mime_type));
    if let Some(note) = fitted.dimension_note() {
        text.push('\n');
        text.push_str(&note);
    }
    Ok(text_and_image(text, fitted.data, fitted.mime_type))
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
