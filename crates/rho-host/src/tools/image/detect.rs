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

/// The UTF-8 byte order mark, which `file-type` skips before sniffing again.
const BOM: &[u8] = &[0xEF, 0xBB, 0xBF];
/// The PNG signature.
const PNG_SIGNATURE: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// The supported image type of a file whose first bytes are `bytes`, or `None` for text.
///
/// Only the first [`SNIFF_BYTES`] of `bytes` are looked at, so callers may pass the whole file.
/// The checks are those of `file-type` (which Pi uses) for the four supported types, in its
/// order: a leading UTF-8 BOM is skipped, JPEG-LS (`FF D8 FF F7`) is not JPEG, and a PNG with an
/// `acTL` chunk before its first `IDAT` is an animated PNG (`image/apng`), which is not supported.
pub fn detect_image_mime(bytes: &[u8]) -> Option<ImageMime> {
    let mut head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    // `file-type` gives up on fewer than two bytes.
    if head.len() < 2 {
        return None;
    }
    while let Some(rest) = head.strip_prefix(BOM) {
        head = rest;
    }
    if head.starts_with(b"GIF") {
        return Some(ImageMime::Gif);
    }
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        // Bytes past the end read as zero in `file-type`'s buffer, so a 3-byte file is JPEG.
        return (head.get(3) != Some(&0xF7)).then_some(ImageMime::Jpeg);
    }
    if head.starts_with(PNG_SIGNATURE) {
        return png_kind(head);
    }
    if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP".as_slice()) {
        return Some(ImageMime::Webp);
    }
    if head.starts_with(b"BM") && is_bmp(head) {
        return Some(ImageMime::Bmp);
    }
    None
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

/// Walks the PNG chunks within the sniffed bytes: `IDAT` first means PNG, `acTL` first means APNG.
fn png_kind(head: &[u8]) -> Option<ImageMime> {
    let size = head.len();
    let mut position = PNG_SIGNATURE.len();
    loop {
        // `file-type` fails with "End-Of-Stream" when a chunk header is cut off here; a file this
        // short is no readable image either, so it is called PNG and then omitted as undecodable.
        let Some(header) = head.get(position..position + 8) else {
            return Some(ImageMime::Png);
        };
        let length = i32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        let Ok(length) = usize::try_from(length) else {
            // A negative (invalid) chunk length: `file-type` gives no type at all.
            return None;
        };
        match &header[4..8] {
            b"IDAT" => return Some(ImageMime::Png),
            b"acTL" => return None,
            _ => {}
        }
        // Skipping past the end stops at the end, as the tokenizer does.
        position = (position + 8)
            .saturating_add(length)
            .saturating_add(4)
            .min(size);
        if position + 8 >= size {
            return Some(ImageMime::Png);
        }
    }
}
