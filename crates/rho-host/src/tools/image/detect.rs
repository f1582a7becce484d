//! Which files `read` treats as images: magic bytes only, following Pi's `file-type` sniffing.

/// How many leading bytes of a file are sniffed (Pi reads this many before deciding).
pub const SNIFF_BYTES: usize = 4100;

/// The image types `read` sends as attachments; every other file is read as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageMime {
    /// `image/jpeg`.
    Jpeg,
    /// `image/png`.
    Png,
    /// `image/gif`.
    Gif,
    /// `image/webp`.
    Webp,
    /// `image/bmp` (Pi 1.6; converted to PNG before it is sent).
    Bmp,
}

impl ImageMime {
    /// The MIME type, e.g. `image/png`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageMime::Jpeg => "image/jpeg",
            ImageMime::Png => "image/png",
            ImageMime::Gif => "image/gif",
            ImageMime::Webp => "image/webp",
            ImageMime::Bmp => "image/bmp",
        }
    }
}

/// The PNG signature.
const PNG_SIGNATURE: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// The supported image type of a file whose first bytes are `bytes`, or `None` for text.
///
/// Only the first [`SNIFF_BYTES`] of `bytes` are looked at, so callers may pass the whole file.
/// The checks are Pi 1.6's `detectSupportedImageMimeType`, in its order: JPEG (not JPEG-LS,
/// `FF D8 FF F7`), PNG with an `IHDR` first and no `acTL` before its first `IDAT` (an animated
/// PNG is not supported), GIF87a/GIF89a, WebP, and BMP (see [`is_bmp`]).
pub fn detect_image_mime(bytes: &[u8]) -> Option<ImageMime> {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return (head.get(3) != Some(&0xF7)).then_some(ImageMime::Jpeg);
    }
    if head.starts_with(PNG_SIGNATURE) {
        return (is_png(head) && !is_animated_png(head)).then_some(ImageMime::Png);
    }
    if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        return Some(ImageMime::Gif);
    }
    if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP".as_slice()) {
        return Some(ImageMime::Webp);
    }
    if head.starts_with(b"BM") && is_bmp(head) {
        return Some(ImageMime::Bmp);
    }
    None
}

fn u32_be(head: &[u8], at: usize) -> Option<usize> {
    let b = head.get(at..at + 4)?;
    usize::try_from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])).ok()
}

/// Pi's `isPng`: the first chunk is a 13-byte `IHDR`.
fn is_png(head: &[u8]) -> bool {
    head.len() >= 16 && u32_be(head, 8) == Some(13) && head.get(12..16) == Some(b"IHDR".as_slice())
}

/// Pi's `isAnimatedPng`: an `acTL` chunk before the first `IDAT` within the sniffed bytes.
fn is_animated_png(head: &[u8]) -> bool {
    let mut offset = PNG_SIGNATURE.len();
    while offset + 8 <= head.len() {
        let Some(length) = u32_be(head, offset) else {
            return false;
        };
        match head.get(offset + 4..offset + 8) {
            Some(b"acTL") => return true,
            Some(b"IDAT") => return false,
            _ => {}
        }
        let next = offset
            .saturating_add(8)
            .saturating_add(length)
            .saturating_add(4);
        if next <= offset || next > head.len() {
            return false;
        }
        offset = next;
    }
    false
}

/// Pi 1.6's `isBmp`: a plausible file header and a DIB header of a known size with one colour
/// plane and a standard bit depth.
fn is_bmp(head: &[u8]) -> bool {
    let u32_at = |at: usize| {
        head.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let u16_at = |at: usize| {
        head.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    if head.len() < 26 {
        return false;
    }
    let (Some(file_size), Some(pixels_at), Some(dib_size)) = (u32_at(2), u32_at(10), u32_at(14))
    else {
        return false;
    };
    let file_size = u64::from(file_size);
    let (pixels_at, dib_size) = (u64::from(pixels_at), u64::from(dib_size));
    if (file_size != 0 && file_size < 26)
        || pixels_at < 14 + dib_size
        || (file_size != 0 && pixels_at >= file_size)
    {
        return false;
    }
    let (planes, bits) = match dib_size {
        12 => (u16_at(22), u16_at(24)),
        40..=124 if head.len() >= 30 => (u16_at(26), u16_at(28)),
        _ => return false,
    };
    planes == Some(1) && bits.is_some_and(|bits| [1, 4, 8, 16, 24, 32].contains(&bits))
}
