//! The EXIF orientation of a JPEG or WebP file, read the way Pi reads it before resizing.
//!
//! Pi looks only at JPEG (the first APP1 segment) and WebP (the `EXIF` chunk) and ignores other
//! formats' metadata; anything unreadable counts as orientation 1 (no transform).

use image::metadata::Orientation;

/// The orientation to apply to the decoded pixels of `bytes`.
pub(super) fn orientation(bytes: &[u8]) -> Orientation {
    Orientation::from_exif(exif_orientation(bytes)).unwrap_or(Orientation::NoTransforms)
}

/// The EXIF orientation value 1–8 (1 when absent or unreadable).
fn exif_orientation(bytes: &[u8]) -> u8 {
    let tiff_start = if bytes.starts_with(&[0xFF, 0xD8]) {
        jpeg_tiff_offset(bytes)
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        webp_tiff_offset(bytes)
    } else {
        None
    };
    tiff_start.map_or(1, |start| orientation_from_tiff(bytes, start))
}

/// The byte at `at`, or `None` past the end.
fn byte(bytes: &[u8], at: usize) -> Option<u8> {
    bytes.get(at).copied()
}

/// Where the TIFF header starts inside the first APP1 segment, if that segment is EXIF.
fn jpeg_tiff_offset(bytes: &[u8]) -> Option<usize> {
    let mut offset = 2;
    while offset + 1 < bytes.len() {
        if bytes[offset] != 0xFF {
            return None;
        }
        let marker = bytes[offset + 1];
        if marker == 0xFF {
            // Fill byte before a marker.
            offset += 1;
            continue;
        }
        if marker == 0xE1 {
            let segment_start = offset + 4;
            if segment_start + 6 > bytes.len() || !has_exif_header(bytes, segment_start) {
                return None;
            }
            return Some(segment_start + 6);
        }
        if offset + 4 > bytes.len() {
            return None;
        }
        let length = usize::from(u16::from_be_bytes([bytes[offset + 2], bytes[offset + 3]]));
        offset += 2 + length;
    }
    None
}

/// Where the TIFF header of the WebP `EXIF` chunk starts (after an optional `Exif\0\0`).
fn webp_tiff_offset(bytes: &[u8]) -> Option<usize> {
    let mut offset: usize = 12;
    while offset.checked_add(8).is_some_and(|end| end <= bytes.len()) {
        let id = &bytes[offset..offset + 4];
        let size = u32::from_le_bytes([
            bytes[offset + 4],
            bytes[offset + 5],
            bytes[offset + 6],
            bytes[offset + 7],
        ]);
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let data_start = offset + 8;
        if id == b"EXIF" {
            if data_start.saturating_add(size) > bytes.len() {
                return None;
            }
            let prefixed = size >= 6 && has_exif_header(bytes, data_start);
            return Some(if prefixed { data_start + 6 } else { data_start });
        }
        // RIFF chunks are padded to an even size.
        offset = data_start.saturating_add(size).saturating_add(size % 2);
    }
    None
}

/// Whether `Exif\0\0` starts at `offset`.
fn has_exif_header(bytes: &[u8], offset: usize) -> bool {
    bytes.get(offset..offset + 6) == Some(b"Exif\0\0".as_slice())
}

/// The orientation tag (0x0112) of the first IFD of the TIFF structure at `tiff_start`.
fn orientation_from_tiff(bytes: &[u8], tiff_start: usize) -> u8 {
    if tiff_start + 8 > bytes.len() {
        return 1;
    }
    let little_endian = bytes[tiff_start] == 0x49 && bytes[tiff_start + 1] == 0x49;
    let read16 = |at: usize| -> Option<u16> {
        let pair = [byte(bytes, at)?, byte(bytes, at + 1)?];
        Some(if little_endian {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        })
    };
    let quad = [
        bytes[tiff_start + 4],
        bytes[tiff_start + 5],
        bytes[tiff_start + 6],
        bytes[tiff_start + 7],
    ];
    let ifd_offset = if little_endian {
        u32::from_le_bytes(quad)
    } else {
        u32::from_be_bytes(quad)
    };
    let ifd_start = tiff_start.saturating_add(usize::try_from(ifd_offset).unwrap_or(usize::MAX));
    if ifd_start.saturating_add(2) > bytes.len() {
        return 1;
    }
    let entries = read16(ifd_start).unwrap_or(0);
    for index in 0..usize::from(entries) {
        let entry = ifd_start + 2 + index * 12;
        if entry + 12 > bytes.len() {
            return 1;
        }
        if read16(entry) == Some(0x0112) {
            return match read16(entry + 8) {
                Some(value @ 1..=8) => value as u8,
                _ => 1,
            };
        }
    }
    1
}
