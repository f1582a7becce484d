//! The secrets deny list: files the file tools never read or write unless explicitly allowed.

use std::path::Path;

use globset::{Glob, GlobBuilder, GlobMatcher};

/// The default deny globs. A glob without `/` matches a file name; one with `/` matches the
/// end of the path (`.aws/credentials` matches `/home/me/.aws/credentials`).
pub const DEFAULT_SECRET_GLOBS: &[&str] = &[
    ".env*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".aws/credentials",
    ".docker/config.json",
    ".kube/config",
    ".config/gh/hosts.yml",
];

/// A glob that does not compile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Invalid secret glob \"{glob}\": {message}")]
pub struct SecretGlobError {
    /// The glob as given.
    pub glob: String,
    /// The parser's message.
    pub message: String,
}

/// One compiled glob and its source text.
#[derive(Clone, Debug)]
struct SecretGlob {
    text: String,
    matcher: GlobMatcher,
}

impl SecretGlob {
    fn new(text: &str) -> Result<Self, SecretGlobError> {
        let pattern = if text.contains('/') {
            format!("**/{}", text.trim_start_matches('/'))
        } else {
            text.to_owned()
        };
        let glob: Glob = GlobBuilder::new(&pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| SecretGlobError {
                glob: text.to_owned(),
                message: e.kind().to_string(),
            })?;
        Ok(SecretGlob {
            text: text.to_owned(),
            matcher: glob.compile_matcher(),
        })
    }

    fn matches(&self, path: &Path) -> bool {
        if self.text.contains('/') {
            self.matcher.is_match(path)
        } else {
            path.file_name()
                .is_some_and(|name| self.matcher.is_match(Path::new(name)))
        }
    }
}

/// Deny globs and the explicit allow globs that override them.
#[derive(Clone, Debug)]
pub struct SecretRules {
    deny: Vec<SecretGlob>,
    allow: Vec<SecretGlob>,
}

impl Default for SecretRules {
    /// [`DEFAULT_SECRET_GLOBS`], nothing allowed.
    fn default() -> Self {
        // The defaults are constants that compile; a failure would drop that glob, not panic.
        SecretRules {
            deny: DEFAULT_SECRET_GLOBS
                .iter()
                .filter_map(|glob| SecretGlob::new(glob).ok())
                .collect(),
            allow: Vec::new(),
        }
    }
}

impl SecretRules {
    /// Rules denying `deny` (replacing the defaults) except what `allow` matches.
    pub fn new<D, A>(deny: D, allow: A) -> Result<Self, SecretGlobError>
    where
        D: IntoIterator,
        D::Item: AsRef<str>,
        A: IntoIterator,
        A::Item: AsRef<str>,
    {
        let compile = |globs: Vec<String>| {
            globs
                .iter()
                .map(|glob| SecretGlob::new(glob))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(SecretRules {
            deny: compile(deny.into_iter().map(|g| g.as_ref().to_owned()).collect())?,
            allow: compile(allow.into_iter().map(|g| g.as_ref().to_owned()).collect())?,
        })
    }

    /// The defaults plus `extra_deny`, minus what `allow` matches (the settings' shape).
    pub fn with_defaults<D, A>(extra_deny: D, allow: A) -> Result<Self, SecretGlobError>
    where
        D: IntoIterator,
        D::Item: AsRef<str>,
        A: IntoIterator,
        A::Item: AsRef<str>,
    {
        let deny: Vec<String> = DEFAULT_SECRET_GLOBS
            .iter()
            .map(|g| (*g).to_owned())
            .chain(extra_deny.into_iter().map(|g| g.as_ref().to_owned()))
            .collect();
        SecretRules::new(deny, allow)
    }

    /// The deny glob `path` matches, unless an allow glob matches it too.
    pub fn denied_by(&self, path: &Path) -> Option<&str> {
        if self.allow.iter().any(|glob| glob.matches(path)) {
            return None;
        }
        self.deny
            .iter()
            .find(|glob| glob.matches(path))
            .map(|glob| glob.text.as_str())
    }
}
