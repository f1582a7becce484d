//! Writes the library's list of targets, one per file in `src/bin/`, so that a new target is
//! one new file; and declares the `fuzzing` cfg that `cargo afl build` sets.

use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rustc-check-cfg=cfg(fuzzing)");
    println!("cargo::rerun-if-changed=src/bin");
    let bin = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("src/bin");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&bin)? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == "rs")
            && let Some(stem) = path.file_stem().and_then(|stem| stem.to_str())
        {
            names.push(stem.to_owned());
        }
    }
    names.sort();
    let mut out = String::new();
    for name in &names {
        let file = bin.join(format!("{name}.rs"));
        writeln!(
            out,
            "#[path = {:?}]\npub mod {name};",
            file.display().to_string()
        )?;
    }
    out.push_str("/// Every target, by name: its binary's and its corpus directory's.\n");
    out.push_str("pub const TARGETS: &[Target] = &[\n");
    for name in &names {
        writeln!(out, "    Target {{ name: {name:?}, run: {name}::run }},")?;
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out_dir.join("targets.rs"), out)?;
    Ok(())
}
