//! The secrets deny list: files the file tools never read or write unless explicitly allowed.

use std::path::Path;
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

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

/// Globs, parsed (so a bad one is an error at load) and compiled on first use: compiling them
/// into matchers costs more than a whole short run, and most runs never touch a file path.
#[derive(Clone, Debug, Default)]
struct GlobList {
    /// The globs as given, in order; the first match names the rule.
    texts: Vec<String>,
    globs: Vec<Glob>,
    compiled: OnceLock<Compiled>,
}

/// One set for globs matched against the file name, one for those matched against the path.
#[derive(Clone, Debug)]
struct Compiled {
    names: GlobSet,
    name_index: Vec<usize>,
    paths: GlobSet,
    path_index: Vec<usize>,
}

impl GlobList {
    fn new(texts: Vec<String>) -> Result<Self, SecretGlobError> {
        let globs = texts
            .iter()
            .map(|text| {
                let pattern = if is_path_glob(text) {
                    format!("**/{}", text.trim_start_matches('/'))
                } else {
                    text.clone()
                };
                GlobBuilder::new(&pattern)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| SecretGlobError {
                        glob: text.clone(),
                        message: e.kind().to_string(),
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(GlobList {
            texts,
            globs,
            compiled: OnceLock::new(),
        })
    }

    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| {
            let mut names = (GlobSetBuilder::new(), Vec::new());
            let mut paths = (GlobSetBuilder::new(), Vec::new());
            for (index, (text, glob)) in self.texts.iter().zip(&self.globs).enumerate() {
                let (builder, indices) = if is_path_glob(text) {
                    &mut paths
                } else {
                    &mut names
                };
                builder.add(glob.clone());
                indices.push(index);
            }
            // Every glob parsed at load; building a set of parsed globs fails only past the
            // regex size limit, which a deny list of file globs does not reach.
            let build =
                |builder: GlobSetBuilder| builder.build().unwrap_or_else(|_| GlobSet::empty());
            Compiled {
                names: build(names.0),
                name_index: names.1,
                paths: build(paths.0),
                path_index: paths.1,
            }
        })
    }

    /// The first glob, in the given order, that `path` matches.
    fn first_match(&self, path: &Path) -> Option<&str> {
        if self.texts.is_empty() {
            return None;
        }
        let compiled = self.compiled();
        let by_name = path.file_name().into_iter().flat_map(|name| {
            compiled
                .names
                .matches(Path::new(name))
                .into_iter()
                .map(|i| compiled.name_index[i])
        });
        let by_path = compiled
            .paths
            .matches(path)
            .into_iter()
            .map(|i| compiled.path_index[i]);
        by_name
            .chain(by_path)
            .min()
            .map(|index| self.texts[index].as_str())
    }
}

/// A glob with `/` matches the end of the path; one without, the file name.
fn is_path_glob(text: &str) -> bool {
    text.contains('/')
}

/// Deny globs and the explicit allow globs that override them.
#[derive(Clone, Debug)]
pub struct SecretRules {
    deny: GlobList,
    allow: GlobList,
}

impl Default for SecretRules {
    /// [`DEFAULT_SECRET_GLOBS`], nothing allowed.
    fn default() -> Self {
        // The defaults are constants that parse (a test checks); a failure would deny nothing
        // extra rather than panic.
        let defaults = DEFAULT_SECRET_GLOBS
            .iter()
            .map(|g| (*g).to_owned())
            .collect();
        SecretRules {
            deny: GlobList::new(defaults).unwrap_or_default(),
            allow: GlobList::default(),
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
        Ok(SecretRules {
            deny: GlobList::new(deny.into_iter().map(|g| g.as_ref().to_owned()).collect())?,
            allow: GlobList::new(allow.into_iter().map(|g| g.as_ref().to_owned()).collect())?,
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

    /// The secret files in a home directory's usual places: its own entries, `.ssh/`, and the
    /// directories the path globs name (`.aws/` for `.aws/credentials`). Where a hard link in
    /// the workspace could lead.
    pub(crate) fn files_in_home(&self, home: &Path) -> Vec<std::path::PathBuf> {
        let mut dirs = vec![home.to_path_buf(), home.join(".ssh")];
        for text in self.deny.texts.iter().filter(|text| is_path_glob(text)) {
            let literal_dir = text
                .trim_start_matches('/')
                .rsplit_once('/')
                .map(|(dir, _)| dir)
                .filter(|dir| !dir.contains(['*', '?', '[', '{']));
            dirs.extend(literal_dir.map(|dir| home.join(dir)));
        }
        dirs.sort();
        dirs.dedup();
        dirs.iter()
            .filter_map(|dir| std::fs::read_dir(dir).ok())
            .flat_map(|entries| entries.flatten().map(|entry| entry.path()))
            .filter(|path| self.denied_by(path).is_some())
            .collect()
    }

    /// The deny glob `path` matches, unless an allow glob matches it too.
    pub fn denied_by(&self, path: &Path) -> Option<&str> {
        if self.allow.first_match(path).is_some() {
            return None;
        }
        self.deny.first_match(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_glob_parses_and_the_first_matching_one_names_the_rule() {
        assert!(
            GlobList::new(
                DEFAULT_SECRET_GLOBS
                    .iter()
                    .map(|g| (*g).to_owned())
                    .collect()
            )
            .is_ok()
        );
        let rules = SecretRules::default();
        let cases = [
            ("/p/.env.local", Some(".env*")),
            ("/p/certs/server.pem", Some("*.pem")),
            ("/home/me/.ssh/id_ed25519.pub", Some("id_ed25519*")),
            ("/home/me/.aws/credentials", Some(".aws/credentials")),
            ("/p/aws/credentials", None),
            ("/p/.kube/config", Some(".kube/config")),
            ("/p/src/main.rs", None),
            ("/p/env.txt", None),
        ];
        for (path, rule) in cases {
            assert_eq!(rules.denied_by(Path::new(path)), rule, "{path}");
        }
    }

    #[test]
    fn an_allow_glob_overrides_and_a_bad_glob_is_an_error_naming_it() {
        let rules = SecretRules::with_defaults(["*.secret"], [".env.example"])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rules.denied_by(Path::new("/p/.env.example")), None);
        assert_eq!(rules.denied_by(Path::new("/p/.env")), Some(".env*"));
        assert_eq!(rules.denied_by(Path::new("/p/a.secret")), Some("*.secret"));
        let error = SecretRules::new(["a[b"], Vec::<String>::new())
            .err()
            .map(|e| e.glob);
        assert_eq!(error.as_deref(), Some("a[b"));
    }
}
