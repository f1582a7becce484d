//! The dist profile's link order: `link-order.txt` (written by `bench/order.py`) lists the
//! functions rho runs on its common paths; lld places them together at the start of `.text`,
//! so a run faults in a few windows of code instead of most of the executable. Other profiles
//! (tests, debug, release) link as usual.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=link-order.txt");
    let order = Path::new(env!("CARGO_MANIFEST_DIR")).join("link-order.txt");
    // rustc links with its own lld on this target (since 1.90); other targets use other linkers.
    let lld = std::env::var("TARGET").is_ok_and(|t| t == "x86_64-unknown-linux-gnu");
    let dist = std::env::var_os("OUT_DIR").is_some_and(|out| {
        Path::new(&out)
            .ancestors()
            .any(|dir| dir.file_name().is_some_and(|name| name == "dist"))
    });
    if lld && dist && order.is_file() {
        println!(
            "cargo:rustc-link-arg-bin=rho=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        // Functions renamed or gone since the file was written are skipped, not errors.
        println!("cargo:rustc-link-arg-bin=rho=-Wl,--no-warn-symbol-ordering");
    }
}
