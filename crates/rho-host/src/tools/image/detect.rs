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
}

impl ImageMime {
    /// The MIME type, e.g. `image/png`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageMime::Jpeg => "image/jpeg",
            ImageMime::Png => "image/png",
            ImageMime::Gif => "image/gif",
            ImageMime::Webp => "image/webp",
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
    None
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
