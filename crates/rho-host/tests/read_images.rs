//! The `read` tool on image files (pi-reference §6.1): magic-byte detection, Pi's auto-resize,
//! the dimension, omitted and non-vision notes. Images are generated in the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use image::codecs::gif::GifEncoder;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};
use rho_agent::ToolOutput;
use rho_ai::faux::FauxProvider;
use rho_ai::{ContentBlock, ImageContent};
use rho_host::tools::ReadTool;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A smooth RGB gradient: compresses well, so PNG stays the chosen encoding.
fn gradient(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        Rgb([
            (x % 256) as u8,
            (y % 256) as u8,
            ((x / 256 + y / 256) * 40) as u8,
        ])
    })
}

/// Pseudo-random pixels (a fixed LCG): PNG cannot compress them, JPEG can.
fn noise(width: u32, height: u32) -> RgbaImage {
    let mut state: u32 = 12345;
    RgbaImage::from_fn(width, height, |_, _| {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let [a, b, c, _] = state.to_be_bytes();
        Rgba([a, b, c, 255])
    })
}

fn png_bytes(image: &RgbImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_with_encoder(PngEncoder::new(&mut bytes))
        .unwrap();
    bytes
}

fn jpeg_bytes(image: &RgbImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_with_encoder(JpegEncoder::new_with_quality(&mut bytes, 90))
        .unwrap();
    bytes
}

fn gif_bytes(image: &RgbImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    let rgba = DynamicImage::ImageRgb8(image.clone()).into_rgba8();
    GifEncoder::new(&mut bytes)
        .encode(
            &rgba,
            image.width(),
            image.height(),
            image::ExtendedColorType::Rgba8,
        )
        .unwrap();
    bytes
}

fn webp_bytes(image: &RgbImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_with_encoder(WebPEncoder::new_lossless(&mut bytes))
        .unwrap();
    bytes
}

/// A JPEG with an EXIF APP1 segment (big-endian TIFF, one IFD entry) right after SOI.
fn with_exif_orientation(jpeg: &[u8], orientation: u8) -> Vec<u8> {
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    tiff.extend_from_slice(&[0, 1]); // one entry
    tiff.extend_from_slice(&[0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0]);
    tiff.extend_from_slice(&[0, 0, 0, 0]); // no next IFD
    let mut segment = b"Exif\0\0".to_vec();
    segment.extend_from_slice(&tiff);
    let length = u16::try_from(segment.len() + 2).unwrap();
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(&segment);
    out.extend_from_slice(&jpeg[2..]);
    out
}

async fn read_with(tool: ReadTool, path: &str) -> ToolOutput {
    tool.read_file(&json!({ "path": path }), &CancellationToken::new())
        .await
        .unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// The expected `[text, image]` result with no details, and Pi 1.6's `structuredContent`.
fn image_result(text: &str, data: String, mime_type: &str) -> ToolOutput {
    ToolOutput {
        structured_content: Some(
            json!({"type": "image", "data": data, "mimeType": mime_type, "note": text}),
        ),
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

/// The expected text-only result: the text is also its `structuredContent`.
fn text_result(text: impl Into<String>) -> ToolOutput {
    let text = text.into();
    ToolOutput {
        structured_content: Some(json!(text)),
        ..ToolOutput::text(text)
    }
}

/// The attached image, decoded: (format, width, height).
fn attached(output: &ToolOutput) -> (ImageFormat, u32, u32) {
    let ContentBlock::Image(image) = &output.content[1] else {
        panic!("second block is not an image: {:?}", output.content);
    };
    let bytes = STANDARD.decode(&image.data).unwrap();
    let format = image::guess_format(&bytes).unwrap();
    let decoded = image::load_from_memory(&bytes).unwrap();
    (format, decoded.width(), decoded.height())
}

fn text_of(output: &ToolOutput) -> &str {
    output.content[0].as_text().unwrap()
}

#[tokio::test]
async fn a_png_named_txt_is_sent_unchanged_as_an_image() {
    let dir = tempfile::tempdir().unwrap();
    let png = png_bytes(&gradient(4, 3));
    write(dir.path(), "x.txt", &png);
    let output = read_with(ReadTool::new(dir.path()), "x.txt").await;
    assert_eq!(
        output,
        image_result(
            "Read image file [image/png]",
            STANDARD.encode(&png),
            "image/png"
        )
    );
}

#[tokio::test]
async fn jpeg_gif_and_webp_are_detected_by_their_bytes_whatever_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let picture = gradient(5, 4);
    let cases = [
        ("a.dat", jpeg_bytes(&picture), "image/jpeg"),
        ("b", gif_bytes(&picture), "image/gif"),
        ("c.jpg", webp_bytes(&picture), "image/webp"),
    ];
    for (name, bytes, mime) in cases {
        write(dir.path(), name, &bytes);
        let output = read_with(ReadTool::new(dir.path()), name).await;
        let text = format!("Read image file [{mime}]");
        assert_eq!(output, image_result(&text, STANDARD.encode(&bytes), mime));
    }
}

#[tokio::test]
async fn a_text_file_named_png_is_read_as_text() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x.png", b"not an image\n");
    let output = read_with(ReadTool::new(dir.path()), "x.png").await;
    assert_eq!(output, text_result("not an image\n"));
}

#[tokio::test]
async fn an_animated_png_or_a_jpeg_ls_header_is_read_as_text() {
    let dir = tempfile::tempdir().unwrap();
    // Signature, then an acTL chunk before any IDAT: file-type calls this image/apng.
    let mut apng = b"\x89PNG\r\n\x1a\n".to_vec();
    apng.extend_from_slice(&[0, 0, 0, 8]);
    apng.extend_from_slice(b"acTL\0\0\0\x01\0\0\0\0\0\0\0\0");
    write(dir.path(), "a.png", &apng);
    let output = read_with(ReadTool::new(dir.path()), "a.png").await;
    assert_eq!(
        output,
        text_result(String::from_utf8_lossy(&apng).into_owned())
    );

    write(dir.path(), "l.jpg", b"\xFF\xD8\xFF\xF7 jpeg-ls");
    let output = read_with(ReadTool::new(dir.path()), "l.jpg").await;
    assert_eq!(
        output,
        text_result("\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD} jpeg-ls")
    );
}

#[tokio::test]
async fn a_wide_png_is_fitted_into_2000_pixels_with_the_dimension_note() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "wide.png", &png_bytes(&gradient(3000, 1000)));
    let output = read_with(ReadTool::new(dir.path()), "wide.png").await;
    assert_eq!(
        text_of(&output),
        "Read image file [image/png]\n[Image: original 3000x1000, displayed at 2000x667. Multiply coordinates by 1.50 to map to original image.]"
    );
    assert_eq!(output.details, None);
    assert_eq!(attached(&output), (ImageFormat::Png, 2000, 667));
}

#[tokio::test]
async fn the_scale_in_the_note_rounds_an_exact_half_up_like_javascript() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "w.png", &png_bytes(&gradient(2250, 10)));
    let output = read_with(ReadTool::new(dir.path()), "w.png").await;
    // 2250 / 2000 = 1.125 exactly; toFixed(2) gives 1.13 where round-half-even would give 1.12.
    assert_eq!(
        text_of(&output),
        "Read image file [image/png]\n[Image: original 2250x10, displayed at 2000x9. Multiply coordinates by 1.13 to map to original image.]"
    );
    assert_eq!(attached(&output), (ImageFormat::Png, 2000, 9));
}

#[tokio::test]
async fn the_exif_orientation_of_a_jpeg_is_applied_before_fitting() {
    let dir = tempfile::tempdir().unwrap();
    // Stored 2400x100, orientation 6 (rotate 90° clockwise): the picture is 100x2400.
    let jpeg = with_exif_orientation(&jpeg_bytes(&gradient(2400, 100)), 6);
    write(dir.path(), "tall.jpg", &jpeg);
    let output = read_with(ReadTool::new(dir.path()), "tall.jpg").await;
    assert_eq!(
        text_of(&output),
        "Read image file [image/png]\n[Image: original 100x2400, displayed at 83x2000. Multiply coordinates by 1.20 to map to original image.]"
    );
    assert_eq!(attached(&output), (ImageFormat::Png, 83, 2000));
}

#[tokio::test]
async fn an_image_too_large_as_png_is_sent_as_jpeg_at_the_same_size() {
    let dir = tempfile::tempdir().unwrap();
    let mut png = Vec::new();
    noise(300, 300)
        .write_with_encoder(PngEncoder::new(&mut png))
        .unwrap();
    write(dir.path(), "noise.png", &png);
    let tool = ReadTool::new(dir.path()).with_image_max_bytes(200_000);
    let output = read_with(tool, "noise.png").await;
    assert_eq!(
        text_of(&output),
        "Read image file [image/jpeg]\n[Image: original 300x300, displayed at 300x300. Multiply coordinates by 1.00 to map to original image.]"
    );
    assert_eq!(attached(&output), (ImageFormat::Jpeg, 300, 300));
    let ContentBlock::Image(image) = &output.content[1] else {
        unreachable!()
    };
    assert!(image.data.len() < 200_000, "{}", image.data.len());
}

#[tokio::test]
async fn an_image_that_cannot_be_shrunk_enough_is_omitted_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x.png", &png_bytes(&gradient(40, 30)));
    let tool = ReadTool::new(dir.path()).with_image_max_bytes(8);
    let output = read_with(tool, "x.png").await;
    assert_eq!(
        output,
        text_result(
            "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]"
        )
    );
}

#[tokio::test]
async fn a_non_vision_model_gets_the_image_and_is_named_in_the_details() {
    let dir = tempfile::tempdir().unwrap();
    let png = png_bytes(&gradient(4, 3));
    write(dir.path(), "x.png", &png);
    let mut model = FauxProvider::new().model();
    model.input = vec!["text".into()];
    let args = json!({"path": "x.png"});
    let cancel = CancellationToken::new();
    let output = ReadTool::new(dir.path())
        .read_file_for(&args, &cancel, Some(&model))
        .await
        .unwrap();
    // Pi 1.6: no note in the text any more; details name the model.
    assert_eq!(
        output,
        ToolOutput {
            details: Some(json!({"imageUnsupportedByModel": "faux-1"})),
            ..image_result(
                "Read image file [image/png]",
                STANDARD.encode(&png),
                "image/png"
            )
        }
    );

    // An image omitted anyway leaves no details.
    let output = ReadTool::new(dir.path())
        .with_image_max_bytes(8)
        .read_file_for(&args, &cancel, Some(&model))
        .await
        .unwrap();
    assert_eq!(
        output,
        text_result(
            "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]"
        )
    );
}

#[tokio::test]
async fn without_auto_resize_a_large_image_is_sent_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let png = png_bytes(&gradient(3000, 1000));
    write(dir.path(), "wide.png", &png);
    let tool = ReadTool::new(dir.path()).with_auto_resize_images(false);
    let output = read_with(tool, "wide.png").await;
    assert_eq!(
        output,
        image_result(
            "Read image file [image/png]",
            STANDARD.encode(&png),
            "image/png"
        )
    );
}

#[tokio::test]
async fn an_undecodable_image_is_omitted() {
    let dir = tempfile::tempdir().unwrap();
    let mut broken = png_bytes(&gradient(4, 3));
    broken.truncate(40);
    write(dir.path(), "broken.png", &broken);
    let output = read_with(ReadTool::new(dir.path()), "broken.png").await;
    assert_eq!(
        output,
        text_result(
            "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]"
        )
    );
}

#[test]
fn the_default_limit_is_pi_s_four_and_a_half_mebibytes() {
    assert_eq!(rho_host::tools::image::DEFAULT_MAX_BASE64_BYTES, 4_718_592);
    assert_eq!(rho_host::tools::image::DEFAULT_MAX_DIMENSION, 2000);
}

#[test]
fn sniffing_follows_pi_1_6s_signatures() {
    use rho_host::tools::image::{ImageMime, detect_image_mime};
    // Pi 1.6.0's detectSupportedImageMimeType on the same bytes (Node 22).
    let png = |chunks: &[u8]| [b"\x89PNG\r\n\x1a\n".as_slice(), chunks].concat();
    let cases: [(&[u8], Option<ImageMime>); 12] = [
        (b"\xEF\xBB\xBFGIF89a", None),
        (b"\xFF", None),
        (b"", None),
        (b"\xFF\xD8\xFF", Some(ImageMime::Jpeg)),
        (b"\xFF\xD8\xFF\xF7x", None),
        (b"RIFF\0\0\0\0WAVE", None),
        (b"RIFF\0\0\0\0WEBPVP8 ", Some(ImageMime::Webp)),
        (b"GIF87a", Some(ImageMime::Gif)),
        (b"GIF8", None),
        (b"GIF90a", None),
        (&png(b""), None),
        (&png(b"\0\0\0\x0dIHDR"), Some(ImageMime::Png)),
    ];
    for (bytes, expected) in cases {
        assert_eq!(detect_image_mime(bytes), expected, "{bytes:?}");
    }
    // A PNG signature 4100 bytes in is past the sniffed prefix.
    let mut late = vec![b' '; 4100];
    late.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    assert_eq!(detect_image_mime(&late), None);
}

/// A 3×2 24-bit BMP, every pixel red.
fn red_bmp() -> Vec<u8> {
    let (width, height) = (3u32, 2u32);
    let row: Vec<u8> = [0u8, 0, 255].repeat(width as usize);
    let padding = (4 - row.len() % 4) % 4;
    let mut pixels = Vec::new();
    for _ in 0..height {
        pixels.extend_from_slice(&row);
        pixels.extend(std::iter::repeat_n(0u8, padding));
    }
    let size = 14 + 40 + pixels.len() as u32;
    let mut bmp = b"BM".to_vec();
    bmp.extend(size.to_le_bytes());
    bmp.extend([0u8; 4]);
    bmp.extend(54u32.to_le_bytes());
    bmp.extend(40u32.to_le_bytes());
    bmp.extend(width.to_le_bytes());
    bmp.extend(height.to_le_bytes());
    bmp.extend(1u16.to_le_bytes());
    bmp.extend(24u16.to_le_bytes());
    bmp.extend(0u32.to_le_bytes());
    bmp.extend((pixels.len() as u32).to_le_bytes());
    bmp.extend([0u8; 16]);
    bmp.extend(pixels);
    bmp
}

#[tokio::test]
async fn a_bmp_is_sent_as_png_with_pis_conversion_hint() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "red.bmp", &red_bmp());
    // Pi 1.6.0's processImage on the same bytes: image/png, hint "[Image converted from image/bmp
    // to image/png.]", with and without auto-resize.
    for tool in [
        ReadTool::new(dir.path()),
        ReadTool::new(dir.path()).with_auto_resize_images(false),
    ] {
        let output = read_with(tool, "red.bmp").await;
        assert_eq!(
            output.content[0],
            ContentBlock::text(
                "Read image file [image/png]\n[Image converted from image/bmp to image/png.]"
            )
        );
        assert_eq!(attached(&output), (ImageFormat::Png, 3, 2));
    }
}

#[tokio::test]
async fn a_bmp_that_cannot_be_decoded_is_omitted_with_pis_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut bmp = red_bmp();
    bmp.truncate(60);
    write(dir.path(), "broken.bmp", &bmp);
    let output = read_with(ReadTool::new(dir.path()), "broken.bmp").await;
    assert_eq!(
        output,
        text_result(
            "Read image file [image/bmp]\n[Image omitted: could not be converted to a supported inline image format.]"
        )
    );
}
