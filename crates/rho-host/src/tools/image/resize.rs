//! Pi's image auto-resize (`utils/image-resize.js`): fit into 2000×2000 and under 4.5 MiB of
//! base64, trying PNG, then JPEG at decreasing quality, then smaller sizes.

use std::io::Cursor;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageReader, RgbaImage};

use super::detect::ImageMime;
use super::exif;

/// Pi's limit on the base64 payload (4.5 MiB): headroom below Anthropic's 5 MB.
pub const DEFAULT_MAX_BASE64_BYTES: usize = 4_718_592;
/// Pi's limit on either side of a sent image, in pixels.
pub const DEFAULT_MAX_DIMENSION: u32 = 2000;
/// The JPEG quality Pi tries first.
const DEFAULT_JPEG_QUALITY: u8 = 80;
/// The JPEG qualities Pi tries after the first one, in order.
const LATER_JPEG_QUALITIES: [u8; 4] = [85, 70, 55, 40];

/// The limits an image is fitted into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResizeLimits {
    /// Maximum width in pixels.
    pub max_width: u32,
    /// Maximum height in pixels.
    pub max_height: u32,
    /// The base64 payload must be strictly smaller than this many bytes.
    pub max_bytes: usize,
    /// The first JPEG quality tried.
    pub jpeg_quality: u8,
}

impl Default for ResizeLimits {
    /// Pi's defaults: 2000×2000, 4.5 MiB of base64, JPEG quality 80 first.
    fn default() -> Self {
        ResizeLimits {
            max_width: DEFAULT_MAX_DIMENSION,
            max_height: DEFAULT_MAX_DIMENSION,
            max_bytes: DEFAULT_MAX_BASE64_BYTES,
            jpeg_quality: DEFAULT_JPEG_QUALITY,
        }
    }
}

/// An image ready to send: base64 data plus the sizes the dimension note needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FittedImage {
    /// Base64 of the bytes to send (no `data:` prefix).
    pub data: String,
    /// The MIME type of `data`; a resized image may have become `image/jpeg`.
    pub mime_type: &'static str,
    /// Width after EXIF orientation, before resizing.
    pub original_width: u32,
    /// Height after EXIF orientation, before resizing.
    pub original_height: u32,
    /// Width of the sent image.
    pub width: u32,
    /// Height of the sent image.
    pub height: u32,
    /// Whether the image was re-encoded (and so needs the dimension note).
    pub was_resized: bool,
}

impl FittedImage {
    /// Pi's note telling the model how to map coordinates back, for a resized image only:
    /// `[Image: original WxH, displayed at wxh. Multiply coordinates by S to map to original image.]`.
    pub fn dimension_note(&self) -> Option<String> {
        if !self.was_resized {
            return None;
        }
        let scale = f64::from(self.original_width) / f64::from(self.width);
        Some(format!(
            "[Image: original {}x{}, displayed at {}x{}. Multiply coordinates by {} to map to original image.]",
            self.original_width,
            self.original_height,
            self.width,
            self.height,
            rho_stdx::js::to_fixed(scale, 2)
        ))
    }
}

/// Fits `bytes` (an image of type `mime`) into `limits`, or `None` when it cannot be decoded or
/// made small enough even at 1×1. CPU-heavy: call it off the async runtime.
///
/// An image already within all limits is sent unchanged. Otherwise, starting at the size that
/// fits the dimension limits (aspect ratio kept, rounded like `Math.round`), each size is tried
/// as PNG and then as JPEG at quality 80, 85, 70, 55, 40; the first encoding whose base64 is
/// below the byte limit wins. Failing all, both sides shrink to 75% (floored, at least 1).
pub fn fit_image(bytes: &[u8], mime: ImageMime, limits: &ResizeLimits) -> Option<FittedImage> {
    // A BMP is never sent as it is (Pi 1.6 sends PNG, JPEG, GIF and WebP only).
    if mime == ImageMime::Bmp {
        let png = super::bmp_to_png(bytes)?;
        return fit_image(&png, ImageMime::Png, limits);
    }
    let image = decode(bytes)?;
    let (original_width, original_height) = image.dimensions();
    let input_base64_len = base64_len(bytes.len());
    if original_width <= limits.max_width
        && original_height <= limits.max_height
        && input_base64_len < limits.max_bytes
    {
        return Some(FittedImage {
            data: STANDARD.encode(bytes),
            mime_type: mime.as_str(),
            original_width,
            original_height,
            width: original_width,
            height: original_height,
            was_resized: false,
        });
    }

    let (mut width, mut height) = (original_width, original_height);
    if width > limits.max_width {
        height = js_round(f64::from(height) * f64::from(limits.max_width) / f64::from(width));
        width = limits.max_width;
    }
    if height > limits.max_height {
        width = js_round(f64::from(width) * f64::from(limits.max_height) / f64::from(height));
        height = limits.max_height;
    }

    let qualities = jpeg_qualities(limits.jpeg_quality);
    loop {
        // Pi's resize of a side rounded down to zero fails, and the failure means "omitted".
        if width == 0 || height == 0 {
            return None;
        }
        if let Some((encoded, mime_type)) =
            first_encoding_below(&image, width, height, &qualities, limits.max_bytes)
        {
            return Some(FittedImage {
                data: STANDARD.encode(encoded),
                mime_type,
                original_width,
                original_height,
                width,
                height,
                was_resized: true,
            });
        }
        if width == 1 && height == 1 {
            return None;
        }
        let next_width = shrink(width);
        let next_height = shrink(height);
        if next_width == width && next_height == height {
            return None;
        }
        width = next_width;
        height = next_height;
    }
}

/// The most pixels decoded (a 6000×4000 photo); larger images are omitted, not decoded.
const MAX_DECODED_PIXELS: u64 = 24_000_000;

/// The decoder's allocation cap: the RGBA of [`MAX_DECODED_PIXELS`] with room to spare.
const MAX_DECODER_ALLOC: u64 = 128 * 1024 * 1024;

/// Decodes `bytes` (format from its content) into RGBA pixels with EXIF orientation applied.
///
/// RGBA because that is what Pi's image library (Photon) works in, so the PNG-or-JPEG choice
/// below sees the same encoded sizes as Pi.
///
/// The size is read from the header first: an image of more than [`MAX_DECODED_PIXELS`] is
/// never decoded (a small file can claim 11000×11000 pixels, 460 MiB as RGBA), and the
/// decoder's own allocations are capped too.
fn decode(bytes: &[u8]) -> Option<RgbaImage> {
    let header = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let (width, height) = header.into_dimensions().ok()?;
    if u64::from(width) * u64::from(height) > MAX_DECODED_PIXELS {
        return None;
    }
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(MAX_DECODER_ALLOC);
    reader.limits(limits);
    let mut image = reader.decode().ok()?;
    image.apply_orientation(exif::orientation(bytes));
    Some(image.into_rgba8())
}

/// Resizes to `width`×`height` (Lanczos3, as Pi) and returns the first encoding, in Pi's order,
/// whose base64 length is below `max_bytes`. Encodings after the winner are never made.
fn first_encoding_below(
    image: &RgbaImage,
    width: u32,
    height: u32,
    qualities: &[u8],
    max_bytes: usize,
) -> Option<(Vec<u8>, &'static str)> {
    let resized = image::imageops::resize(image, width, height, FilterType::Lanczos3);
    let png = encode_png(&resized)?;
    if base64_len(png.len()) < max_bytes {
        return Some((png, ImageMime::Png.as_str()));
    }
    // JPEG has no alpha channel; like Photon, the colour channels are kept as they are.
    let rgb = DynamicImage::ImageRgba8(resized).into_rgb8();
    for &quality in qualities {
        let mut jpeg = Vec::new();
        rgb.write_with_encoder(JpegEncoder::new_with_quality(&mut jpeg, quality))
            .ok()?;
        if base64_len(jpeg.len()) < max_bytes {
            return Some((jpeg, ImageMime::Jpeg.as_str()));
        }
    }
    None
}

/// The PNG encoding of `image`.
fn encode_png(image: &RgbaImage) -> Option<Vec<u8>> {
    let mut png = Vec::new();
    image.write_with_encoder(PngEncoder::new(&mut png)).ok()?;
    Some(png)
}

/// Pi's quality ladder: the configured quality first, then 85, 70, 55, 40 without repeats.
fn jpeg_qualities(first: u8) -> Vec<u8> {
    let mut qualities = vec![first];
    for quality in LATER_JPEG_QUALITIES {
        if !qualities.contains(&quality) {
            qualities.push(quality);
        }
    }
    qualities
}

/// One shrinking step: 75% of a side, floored, never below 1.
fn shrink(side: u32) -> u32 {
    if side == 1 {
        1
    } else {
        // Exact in f64 for every u32.
        ((f64::from(side) * 0.75).floor() as u32).max(1)
    }
}

/// The length of the padded base64 encoding of `len` bytes.
fn base64_len(len: usize) -> usize {
    len.div_ceil(3).saturating_mul(4)
}

/// JavaScript's `Math.round` for non-negative values: halves round up.
fn js_round(value: f64) -> u32 {
    // Saturating float-to-int conversion; values here are at most the original side.
    (value + 0.5).floor() as u32
}
