//! rho-stdx: the one home of the small helpers every rho crate needs (in the spirit of
//! rust-analyzer's `stdx`): a helper lives here once instead of in five crates with small
//! differences.
//!
//! - [`sync::lock`]: a mutex guard that ignores poisoning (a panicking holder must not take
//!   every later caller down with it).
//! - [`js`]: numbers as JavaScript prints them, for output that matches Pi byte for byte.
//! - [`fs::write_atomic`]: replace a file so a crash leaves the old or the new contents.
//! - [`random::u64`]: unpredictable bits for unique temporary names.
//! - [`text::wildcard_match`]: `*` patterns over names.

pub mod fs;
pub mod js;
pub mod random;
pub mod sync;
pub mod text;
