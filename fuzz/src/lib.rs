//! rho-fuzz: coverage-guided fuzz targets for every parser in rho that reads outside input.
//!
//! Each target is one file in `src/bin/`: a `run(&[u8])` that feeds the bytes to one parser
//! (and checks what the parser promises beyond not panicking), and [`main!`], which makes the
//! file an AFL binary under `cargo afl build` and a crash reproducer otherwise. This library
//! includes the same files as modules ([`TARGETS`]), so the corpus replay in `tests/` (run by
//! `cargo test`, and so by CI) calls every target in process. See `fuzz/README.md`.

// The target files name this crate's helpers as `rho_fuzz::…` whether they are compiled as
// binaries or as this library's modules.
extern crate self as rho_fuzz;

pub mod input;
pub mod providers;
mod replay;

pub use replay::{replay, replay_args};

/// One fuzz target.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// Its name: the binary's and the corpus directory's (`fuzz/corpus/<name>/`).
    pub name: &'static str,
    /// Feeds one input to the parser; panics on a bug.
    pub run: fn(&[u8]),
}

include!(concat!(env!("OUT_DIR"), "/targets.rs"));

/// The `main` of a target binary: AFL's persistent loop over `run` when built by `cargo afl
/// build`, otherwise `run` over each file (or directory of files) named on the command line, or
/// standard input.
#[macro_export]
macro_rules! main {
    ($run:path) => {
        #[cfg(fuzzing)]
        #[allow(dead_code)]
        fn main() {
            afl::fuzz!(|data: &[u8]| {
                $run(data);
            });
        }

        #[cfg(not(fuzzing))]
        #[allow(dead_code)]
        fn main() -> std::process::ExitCode {
            $crate::replay_args($run)
        }
    };
}
