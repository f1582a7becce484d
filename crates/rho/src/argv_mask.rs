//! A key given with `--api-key` is masked in rho's own argument memory once the command line is
//! parsed, so `/proc/<rho>/cmdline` — readable by every process of the machine, the commands
//! rho runs included — shows `--api-key ****` instead of the key.
//!
//! glibc passes `argc` and `argv` to the functions of `.init_array`; one of them keeps the
//! pointer, and [`mask_api_key`] overwrites the value's bytes in place (the kernel reads
//! `cmdline` from exactly that memory). The key is visible between `exec` and the mask, well
//! under a millisecond; the environment (`ANTHROPIC_API_KEY`…) is the way to avoid even that.

use std::ffi::{CStr, c_char, c_int};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// The flag whose value is masked.
const FLAG: &[u8] = b"--api-key";

static ARGC: AtomicUsize = AtomicUsize::new(0);
static ARGV: AtomicPtr<*mut c_char> = AtomicPtr::new(std::ptr::null_mut());

/// Keeps glibc's `argv` (runs before `main`).
extern "C" fn capture(argc: c_int, argv: *mut *mut c_char, _envp: *mut *mut c_char) {
    ARGC.store(usize::try_from(argc).unwrap_or(0), Ordering::Relaxed);
    ARGV.store(argv, Ordering::Relaxed);
}

#[used]
#[unsafe(link_section = ".init_array")]
static CAPTURE: extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) = capture;

/// Overwrites every `--api-key` value in the process's argument memory with `*`. Call it after
/// the arguments are parsed (the standard library reads them from the same memory).
pub fn mask_api_key() {
    let argv = ARGV.load(Ordering::Relaxed);
    let argc = ARGC.load(Ordering::Relaxed);
    if argv.is_null() {
        return;
    }
    let mut mask_next = false;
    for index in 1..argc {
        // SAFETY: glibc's `argv` holds `argc` valid NUL-terminated strings for the life of the
        // process; nothing else in rho writes to them.
        let arg = unsafe { *argv.add(index) };
        if arg.is_null() {
            break;
        }
        // SAFETY: see above.
        let bytes = unsafe { CStr::from_ptr(arg) }.to_bytes();
        if bytes == b"--" {
            break;
        }
        let value_at = if mask_next {
            Some(0)
        } else if bytes.starts_with(FLAG) && bytes.get(FLAG.len()) == Some(&b'=') {
            Some(FLAG.len() + 1)
        } else {
            None
        };
        mask_next = bytes == FLAG;
        if let Some(start) = value_at {
            // SAFETY: writes inside the string's own bytes, before its NUL.
            unsafe { std::ptr::write_bytes(arg.add(start), b'*', bytes.len() - start) };
        }
    }
}
