//! Route 6: hangs and floods — FIFOs in the workspace, a huge one-line file read with a small
//! range, an image whose header claims 11000×11000 pixels, and a command printing 70 MB.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::json;

use super::harness::{Arena, bash, call, sandbox_ready};

#[test]
fn fifos_are_refused_at_once_by_every_file_tool() {
    let arena = Arena::new();
    let fifo = arena.project.join("pipe");
    let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let turns = vec![vec![
        call("read", json!({"path": "pipe"})),
        call("write", json!({"path": "pipe", "content": "x"})),
        call(
            "edit",
            json!({"path": "pipe", "edits": [{"oldText": "a", "newText": "b"}]}),
        ),
        call("grep", json!({"pattern": "x", "path": "pipe"})),
        call("grep", json!({"pattern": "x"})),
    ]];
    let run = arena.attack(&[], &[], turns);
    let refusal = format!(
        "Path {} is a FIFO (named pipe), not a regular file; the file tools only read and write regular files.",
        fifo.display()
    );
    let results = run.results();
    for (text, is_error) in &results[..4] {
        assert!(*is_error && text.contains(&refusal), "{text}");
    }
    // Walking past a FIFO is fine: it is skipped with its error, not waited on.
    assert!(run.measured.elapsed < super::harness::TIME_BOUND);
}

#[test]
fn a_huge_file_and_a_huge_image_are_read_in_bounded_memory() {
    let arena = Arena::new();
    // 512 MiB on one line (sparse: no disk is used).
    let big = std::fs::File::create(arena.project.join("big.txt")).unwrap();
    big.set_len(512 * 1024 * 1024).unwrap();
    drop(big);
    std::fs::write(arena.project.join("huge.png"), png_header(11_000, 11_000)).unwrap();
    let turns = vec![vec![
        call("read", json!({"path": "big.txt", "offset": 1, "limit": 1})),
        call("read", json!({"path": "big.txt"})),
        call("read", json!({"path": "huge.png"})),
    ]];
    // The harness fails the run past 256 MiB of peak RSS.
    let run = arena.attack(&[], &[], turns);
    assert_eq!(run.results().len(), 3);
}

/// A PNG signature and an IHDR chunk claiming `width`×`height` 8-bit RGBA pixels, then IEND:
/// what a decoder reads first.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for chunk in [ihdr, b"IEND".to_vec()] {
        png.extend(u32::try_from(chunk.len() - 4).unwrap().to_be_bytes());
        png.extend(&chunk);
        png.extend(crc32(&chunk).to_be_bytes());
    }
    png
}

/// The PNG chunk CRC (CRC-32, IEEE).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn a_flood_of_output_is_saved_privately_capped_and_not_writable_by_tools() {
    if !sandbox_ready() {
        return;
    }
    let arena = Arena::new();
    let turns = vec![vec![bash("head -c 70000000 /dev/zero | tr '\\0' a; echo")]];
    let run = arena.attack(&[], &[], turns);
    let end = run
        .events
        .iter()
        .find(|e| e["type"] == "tool_execution_end")
        .unwrap();
    let path = PathBuf::from(
        end["result"]["details"]["fullOutputPath"]
            .as_str()
            .unwrap_or_else(|| panic!("{end}")),
    );
    let file_mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    let dir_mode = std::fs::metadata(path.parent().unwrap())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!((file_mode, dir_mode), (0o600, 0o700));
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(
        (rho_gate::MAX_OUTPUT_FILE_BYTES..=rho_gate::MAX_OUTPUT_FILE_BYTES + 100).contains(&size),
        "{size}"
    );
    let text = path.display().to_string();
    // The model may read the file it is told about, not write it.
    let turns = vec![vec![
        call("read", json!({"path": text, "limit": 1})),
        call("write", json!({"path": text, "content": "x"})),
        bash(&format!("echo x > '{text}'")),
    ]];
    let run = arena.attack(&[], &[], turns);
    let results = run.results();
    assert!(!results[0].1, "{results:?}");
    assert!(results[1].1 && results[2].1, "{results:?}");
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        size,
        "the output file was written"
    );
    std::fs::remove_file(path).unwrap();
}
