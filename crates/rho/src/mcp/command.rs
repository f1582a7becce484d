//! `rho mcp add|remove|list|login|logout`: configure and check MCP servers and sign in to OAuth
//! servers without starting a session, with Pi 1.6's options, wording and exit codes (0, or 1
//! on any failure) — agents run it through bash to set servers up and check an `mcp.json` they
//! wrote; the user only approves access in the browser.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use rho_mcp::edit::{add_server, remove_server};
use rho_mcp::{McpConfig, Scope};
use rho_models::{ProcessEnvironment, rho_home};
use serde_json::{Map, Value};

const HELP: &str = "Usage:
  rho mcp add <server> [options] -- <command> [args...]
  rho mcp add <server> [options] --url <url>
  rho mcp remove <server> [-l]
  rho mcp list [--json]
  rho mcp login <server> [-l] [--timeout <seconds>]
  rho mcp logout <server> [-l]

Configure and check MCP servers and sign in to OAuth servers without starting a session.
Reads RHO_HOME/mcp.json (default ~/.rho/mcp.json) and, in trusted projects, .rho/mcp.json.

Commands:
  add <server>            Add or replace a server in mcp.json
  remove <server>         Remove a server from mcp.json
  list                    Show state, tools, and errors (exits 1 on failure)
  login <server>          Sign in through the browser
  logout <server>         Delete the stored OAuth credentials

Options for add, remove, login, and logout:
  -l, --local             Use .rho/mcp.json in the current project instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send \"Authorization: Bearer ${NAME}\"
  --oauth-client-id <id>  Pre-registered OAuth client id
  --oauth-client-secret <secret>
                          OAuth client secret (may be ${NAME} or !command)
  --oauth-callback-port <port>
                          Fixed OAuth callback port
  --oauth-client-name <name>
                          Client name sent when registering with the OAuth server
  --oauth-client-registration <mode>
                          auto (default), cimd, or dcr
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt

Other options:
  --json                  Print the list as JSON
  --timeout <seconds>     Time limit for the whole sign-in (default: 300)";

const HELP_HINT: &str = "Use \"rho mcp --help\" for usage.";

/// The options that only make sense for one kind of server.
const HTTP_ONLY: [&str; 7] = [
    "header",
    "bearer-token-env-var",
    "oauth-client-id",
    "oauth-client-secret",
    "oauth-callback-port",
    "oauth-client-name",
    "oauth-client-registration",
];
const STDIO_ONLY: [&str; 2] = ["env", "cwd"];

/// How an option takes its value.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Flag,
    Value,
    List,
}

/// Parsed arguments: positionals, single values and repeated ones, by option name.
#[derive(Default)]
struct Parsed {
    positional: Vec<String>,
    values: Vec<(String, Option<String>)>,
    lists: Vec<(String, String)>,
}

impl Parsed {
    fn has(&self, name: &str) -> bool {
        self.values.iter().any(|(n, _)| n == name) || self.lists.iter().any(|(n, _)| n == name)
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    fn list(&self, name: &str) -> impl Iterator<Item = &str> {
        self.lists
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Pi's option parser: `--name value` options, `-l` for `--local`; `--` ends the options, and so
/// does reaching `max_positionals` positionals (so `add <server> <command> --flag` passes
/// `--flag` to the command).
fn parse(
    args: &[String],
    known: &[(&str, Kind)],
    max_positionals: usize,
) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut index = 0;
    while index < args.len() {
        let typed = &args[index];
        let arg = if typed == "-l" { "--local" } else { typed };
        if arg == "--" || parsed.positional.len() >= max_positionals {
            let from = if arg == "--" { index + 1 } else { index };
            parsed.positional.extend(args[from..].iter().cloned());
            break;
        }
        let Some(name) = arg.strip_prefix("--") else {
            parsed.positional.push(arg.to_owned());
            index += 1;
            continue;
        };
        let Some((_, kind)) = known.iter().find(|(n, _)| *n == name) else {
            return Err(format!("Unknown option {typed}.\n{HELP_HINT}"));
        };
        if *kind == Kind::Flag {
            parsed.values.push((name.to_owned(), None));
            index += 1;
            continue;
        }
        let Some(value) = args.get(index + 1) else {
            return Err(format!("{arg} needs a value."));
        };
        match kind {
            Kind::List => parsed.lists.push((name.to_owned(), value.clone())),
            _ => parsed.values.push((name.to_owned(), Some(value.clone()))),
        }
        index += 2;
    }
    Ok(parsed)
}

/// Runs `rho mcp …` with the arguments after `mcp`; returns the exit code.
pub fn main(args: impl Iterator<Item = OsString>) -> u8 {
    let args: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
    match run(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{message}");
            1
        }
    }
}

fn run(args: &[String]) -> Result<u8, String> {
    let Some(command) = args.first() else {
        println!("{HELP}");
        return Ok(0);
    };
    if command == "help" || args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{HELP}");
        return Ok(0);
    }
    let home = rho_home(&ProcessEnvironment)
        .ok_or_else(|| "cannot locate RHO_HOME: set RHO_HOME or HOME".to_owned())?;
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let places = Places {
        global: home.join("mcp.json"),
        project: cwd.join(".rho").join("mcp.json"),
        trusted: rho_host::trust::TrustStore::new(&home)
            .get(&cwd)
            .ok()
            .flatten()
            == Some(true),
        home,
        cwd,
    };
    let rest = &args[1..];
    match command.as_str() {
        "add" => add(rest, &places),
        "remove" => remove(rest, &places),
        "list" => {
            let parsed = parse(rest, &[("json", Kind::Flag)], usize::MAX)?;
            if !parsed.positional.is_empty() {
                return Err(format!("Usage: rho mcp list [--json]\n{HELP_HINT}"));
            }
            super::list::list(&places, parsed.has("json"))
        }
        "login" | "logout" => {
            let login = command == "login";
            let mut known = vec![("local", Kind::Flag)];
            if login {
                known.push(("timeout", Kind::Value));
            }
            let parsed = parse(rest, &known, usize::MAX)?;
            let [name] = parsed.positional.as_slice() else {
                return Err(format!(
                    "Usage: rho mcp {command} <server> [-l]\n{HELP_HINT}"
                ));
            };
            super::login::login_or_logout(
                &places,
                login,
                name,
                parsed.has("local"),
                parsed.value("timeout"),
            )
        }
        other => Err(format!("Unknown mcp command \"{other}\".\n{HELP_HINT}")),
    }
}

/// Where the files are, and whether the project's applies.
pub(super) struct Places {
    pub home: PathBuf,
    pub cwd: PathBuf,
    /// `RHO_HOME/mcp.json`.
    pub global: PathBuf,
    /// `.rho/mcp.json` of the working directory.
    pub project: PathBuf,
    /// Whether the trust store trusts the project.
    pub trusted: bool,
}

impl Places {
    /// The note for a project file that is skipped because the project is not trusted.
    pub fn untrusted_note(&self) -> Option<String> {
        (!self.trusted && self.project.exists()).then(|| {
            format!(
                "{} is ignored because the project is not trusted. Start rho in the project to trust it.",
                self.project.display()
            )
        })
    }

    fn file(&self, local: bool) -> (&Path, Scope) {
        if local {
            (&self.project, Scope::Project)
        } else {
            (&self.global, Scope::Global)
        }
    }
}

/// `KEY=VALUE` pairs of a repeatable option, in order.
fn pairs<'a>(
    option: &str,
    values: impl Iterator<Item = &'a str>,
) -> Result<Map<String, Value>, String> {
    let mut map = Map::new();
    for pair in values {
        match pair.split_once('=') {
            Some((key, value)) if !key.is_empty() => {
                map.insert(key.to_owned(), value.into());
            }
            _ => return Err(format!("--{option} expects KEY=VALUE, got \"{pair}\".")),
        }
    }
    Ok(map)
}

fn add(args: &[String], places: &Places) -> Result<u8, String> {
    let usage = format!(
        "Usage: rho mcp add <server> [options] (--url <url> | -- <command> [args...])\n{HELP_HINT}"
    );
    let mut known = vec![
        ("local", Kind::Flag),
        ("url", Kind::Value),
        ("env", Kind::List),
        ("cwd", Kind::Value),
        ("header", Kind::List),
        ("exposure", Kind::Value),
        ("description", Kind::Value),
    ];
    known.extend(
        HTTP_ONLY
            .iter()
            .filter(|name| **name != "header")
            .map(|name| (*name, Kind::Value)),
    );
    let parsed = parse(args, &known, 2)?;
    let (name, command) = match parsed.positional.split_first() {
        Some((name, command)) => (name, command),
        None => return Err(usage),
    };
    let url = parsed.value("url");
    if url.is_none() == command.is_empty() {
        return Err(usage);
    }
    let (misplaced_from, kind) = match url {
        None => (&HTTP_ONLY[..], "HTTP servers (--url)"),
        Some(_) => (&STDIO_ONLY[..], "stdio servers"),
    };
    if let Some(option) = misplaced_from.iter().find(|o| parsed.has(o)) {
        return Err(format!("--{option} only applies to {kind}."));
    }
    let mut config = Map::new();
    match url {
        Some(url) => {
            config.insert("url".into(), url.into());
            let mut headers = pairs("header", parsed.list("header"))?;
            if let Some(variable) = parsed.value("bearer-token-env-var") {
                headers.insert(
                    "Authorization".into(),
                    format!("Bearer ${{{variable}}}").into(),
                );
            }
            if !headers.is_empty() {
                config.insert("headers".into(), Value::Object(headers));
            }
            let oauth = oauth_options(&parsed);
            if !oauth.is_empty() {
                config.insert("oauth".into(), Value::Object(oauth));
            }
        }
        None => {
            let (executable, arguments) = command.split_first().ok_or_else(|| usage.clone())?;
            config.insert("command".into(), executable.as_str().into());
            if !arguments.is_empty() {
                config.insert("args".into(), arguments.to_vec().into());
            }
            let env = pairs("env", parsed.list("env"))?;
            if !env.is_empty() {
                config.insert("env".into(), Value::Object(env));
            }
            if let Some(dir) = parsed.value("cwd") {
                config.insert("cwd".into(), dir.into());
            }
        }
    }
    for key in ["exposure", "description"] {
        if let Some(value) = parsed.value(key) {
            config.insert(key.into(), value.into());
        }
    }
    let validated = rho_mcp::config::validate(name, Value::Object(config))?;
    let local = parsed.has("local");
    let (path, scope) = places.file(local);
    let replaced = add_server(path, name, validated.raw().clone())
        .map_err(|e| format!("Could not update {}: {e}", path.display()))?;
    println!(
        "{} {} MCP server \"{name}\" in {}.",
        if replaced { "Replaced" } else { "Added" },
        scope.as_str(),
        path.display()
    );
    if local && !places.trusted {
        println!(
            "The project is not trusted, so {} is ignored until you start rho in the project and trust it.",
            path.display()
        );
    }
    // An HTTP server without an Authorization header may need a sign-in.
    if validated.uses_oauth() {
        println!("Check it with: rho mcp list. If it requires sign-in: rho mcp login {name}");
    } else {
        println!("Check it with: rho mcp list");
    }
    Ok(0)
}

/// The `oauth` object of `--oauth-*` options, in Pi's key order.
fn oauth_options(parsed: &Parsed) -> Map<String, Value> {
    let mut oauth = Map::new();
    let fields = [
        ("oauth-client-id", "clientId"),
        ("oauth-client-secret", "clientSecret"),
        ("oauth-callback-port", "callbackPort"),
        ("oauth-client-name", "clientName"),
        ("oauth-client-registration", "clientRegistration"),
    ];
    for (option, key) in fields {
        let Some(value) = parsed.value(option) else {
            continue;
        };
        let value = if key == "callbackPort" {
            // Pi converts with Number(): a non-number is then refused by validation.
            value
                .trim()
                .parse::<u64>()
                .map_or_else(|_| Value::from(value), Value::from)
        } else {
            value.into()
        };
        oauth.insert(key.into(), value);
    }
    oauth
}

fn remove(args: &[String], places: &Places) -> Result<u8, String> {
    let parsed = parse(args, &[("local", Kind::Flag)], usize::MAX)?;
    let [name] = parsed.positional.as_slice() else {
        return Err(format!("Usage: rho mcp remove <server> [-l]\n{HELP_HINT}"));
    };
    let (path, scope) = places.file(parsed.has("local"));
    let removed = remove_server(path, name)
        .map_err(|e| format!("Could not update {}: {e}", path.display()))?;
    if removed {
        println!(
            "Removed {} MCP server \"{name}\" from {}.",
            scope.as_str(),
            path.display()
        );
        return Ok(0);
    }
    let everything = McpConfig::load(&places.home, &places.cwd, true);
    let other = everything
        .servers
        .iter()
        .find(|s| &s.name == name && s.scope != scope);
    let hint = other.map_or_else(String::new, |other| {
        let fix = if other.scope == Scope::Project {
            "use --local"
        } else {
            "omit --local"
        };
        format!(" It is defined in {}; {fix}.", other.source.display())
    });
    Err(format!(
        "No {} MCP server named \"{name}\" in {}.{hint}",
        scope.as_str(),
        path.display()
    ))
}
