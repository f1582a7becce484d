//! The environment of every process rho starts for the model (bash, and later hooks, codemode
//! and MCP stdio servers): rho's own environment, scrubbed of keys. The setting
//! `toolEnvironment` is `{inherit: "all"|"core"|"none", exclude: [globs], set: {name: value}}`.
//!
//! - `inherit` (default `all`): which of rho's variables are candidates; `core` is the few a
//!   shell needs (`HOME`, `PATH`, `USER`, the locale, `TERM`, …), `none` starts empty.
//! - `exclude` (default `*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, case-insensitive): the
//!   candidates dropped. Given, it replaces those globs; the variables the model catalog reads a
//!   key from are dropped whatever it says.
//! - `set`: variables set last; `${NAME}` in a value is rho's own `NAME` (empty if unset), so a
//!   user can hand one token to tools on purpose.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// The globs `exclude` defaults to.
pub const DEFAULT_EXCLUDED: [&str; 4] = ["*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*"];

/// What `inherit: "core"` keeps (and the `LC_*` locale variables).
const CORE: [&str; 12] = [
    "HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "LANG", "TERM", "TZ", "TMPDIR", "TEMP",
    "TMP",
];

/// `toolEnvironment.inherit`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inherit {
    /// Every variable of rho's environment.
    #[default]
    All,
    /// The few a shell needs.
    Core,
    /// None.
    None,
}

/// `toolEnvironment` as a settings file has it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolEnvironmentSettings {
    /// `inherit`.
    pub inherit: Option<Inherit>,
    /// `exclude`.
    pub exclude: Option<Vec<String>>,
    /// `set`.
    pub set: Option<BTreeMap<String, String>>,
}

/// An `exclude` glob that does not compile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Invalid toolEnvironment.exclude glob \"{glob}\": {message}")]
pub struct ToolEnvironmentError {
    /// The glob as given.
    pub glob: String,
    /// The parser's message.
    pub message: String,
}

/// The rule, compiled.
#[derive(Clone, Debug)]
pub struct ToolEnvironment {
    inherit: Inherit,
    exclude: GlobSet,
    key_variables: Vec<String>,
    set: BTreeMap<String, String>,
}

impl Default for ToolEnvironment {
    /// Everything inherited but the default globs.
    fn default() -> Self {
        // The default globs are constants that compile (a test checks).
        ToolEnvironment::new(&ToolEnvironmentSettings::default(), &[]).unwrap_or(ToolEnvironment {
            inherit: Inherit::All,
            exclude: GlobSet::empty(),
            key_variables: Vec::new(),
            set: BTreeMap::new(),
        })
    }
}

impl ToolEnvironment {
    /// The rule of `settings`, dropping `key_variables` (the catalog's key variables) always.
    pub fn new(
        settings: &ToolEnvironmentSettings,
        key_variables: &[&str],
    ) -> Result<ToolEnvironment, ToolEnvironmentError> {
        let globs: Vec<String> = match &settings.exclude {
            Some(globs) => globs.clone(),
            None => DEFAULT_EXCLUDED.iter().map(|g| (*g).to_owned()).collect(),
        };
        let mut builder = GlobSetBuilder::new();
        for glob in &globs {
            let compiled = GlobBuilder::new(glob)
                .case_insensitive(true)
                .build()
                .map_err(|e| ToolEnvironmentError {
                    glob: glob.clone(),
                    message: e.kind().to_string(),
                })?;
            builder.add(compiled);
        }
        let exclude = builder.build().map_err(|e| ToolEnvironmentError {
            glob: globs.join(", "),
            message: e.to_string(),
        })?;
        Ok(ToolEnvironment {
            inherit: settings.inherit.unwrap_or_default(),
            exclude,
            key_variables: key_variables.iter().map(|k| (*k).to_owned()).collect(),
            set: settings.set.clone().unwrap_or_default(),
        })
    }

    /// Whether rho's variable `name` reaches tools.
    pub fn passes(&self, name: &OsStr) -> bool {
        let Some(name) = name.to_str() else {
            // A name that is not UTF-8 cannot be matched against the globs: it stays out.
            return false;
        };
        let inherited = match self.inherit {
            Inherit::All => true,
            Inherit::Core => CORE.contains(&name) || name.starts_with("LC_"),
            Inherit::None => false,
        };
        inherited
            && !self.exclude.is_match(name)
            && !self.key_variables.iter().any(|key| key == name)
    }

    /// The environment tools get, from rho's own `vars`.
    pub fn apply(
        &self,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        let vars: Vec<(OsString, OsString)> = vars.into_iter().collect();
        let lookup = |name: &str| {
            vars.iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let mut out: Vec<(OsString, OsString)> = vars
            .iter()
            .filter(|(name, _)| {
                self.passes(name) && !self.set.contains_key(&*name.to_string_lossy())
            })
            .cloned()
            .collect();
        for (name, value) in &self.set {
            out.push((name.into(), expand(value, &lookup).into()));
        }
        out
    }
}

/// `${NAME}` replaced by `lookup(NAME)`; anything else kept as written.
fn expand(value: &str, lookup: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(end) = rest[start + 2..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(&lookup(&rest[start + 2..start + 2 + end]));
        rest = &rest[start + 2 + end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    fn names(out: &[(OsString, OsString)]) -> Vec<String> {
        out.iter()
            .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
            .collect()
    }

    #[test]
    fn keys_are_dropped_by_default_and_the_catalog_names_always() {
        let env = [
            ("PATH", "/bin"),
            ("ANTHROPIC_API_KEY", "sk-a"),
            ("github_token", "gh"),
            ("DB_PASSWORD", "pw"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("HF_TOKEN", "hf"),
            ("EDITOR", "vi"),
        ];
        let default = ToolEnvironment::default();
        assert_eq!(
            names(&default.apply(vars(&env))),
            ["PATH=/bin", "EDITOR=vi"]
        );

        let settings = ToolEnvironmentSettings {
            inherit: Some(Inherit::All),
            exclude: Some(vec![]),
            set: Some(BTreeMap::from([(
                "GH".to_owned(),
                "${github_token}!".to_owned(),
            )])),
        };
        let open = ToolEnvironment::new(&settings, &["ANTHROPIC_API_KEY"]).unwrap_or_default();
        assert_eq!(
            names(&open.apply(vars(&env))),
            [
                "PATH=/bin",
                "github_token=gh",
                "DB_PASSWORD=pw",
                "AWS_SECRET_ACCESS_KEY=aws",
                "HF_TOKEN=hf",
                "EDITOR=vi",
                "GH=gh!"
            ]
        );
    }

    #[test]
    fn core_keeps_what_a_shell_needs_and_none_keeps_nothing() {
        let env = [("PATH", "/bin"), ("LC_ALL", "C"), ("EDITOR", "vi")];
        let core = ToolEnvironmentSettings {
            inherit: Some(Inherit::Core),
            ..ToolEnvironmentSettings::default()
        };
        let core = ToolEnvironment::new(&core, &[]).unwrap_or_default();
        assert_eq!(names(&core.apply(vars(&env))), ["PATH=/bin", "LC_ALL=C"]);
        let none = ToolEnvironmentSettings {
            inherit: Some(Inherit::None),
            ..ToolEnvironmentSettings::default()
        };
        let none = ToolEnvironment::new(&none, &[]).unwrap_or_default();
        assert!(none.apply(vars(&env)).is_empty());
        let bad = ToolEnvironmentSettings {
            exclude: Some(vec!["a[".to_owned()]),
            ..ToolEnvironmentSettings::default()
        };
        assert_eq!(
            ToolEnvironment::new(&bad, &[]).err().map(|e| e.glob),
            Some("a[".to_owned())
        );
    }
}
