//! Unpredictable names for temporary files and directories.

use std::hash::{BuildHasher, Hasher};

/// 64 unpredictable bits from the standard library's randomly keyed hasher, mixed with `salt`,
/// the process id and the clock: enough for a unique name (the caller still creates it with
/// `O_EXCL` and retries with another salt), no RNG crate needed.
pub fn u64(salt: u64) -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(salt);
    hasher.write_u32(std::process::id());
    if let Ok(elapsed) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(elapsed.as_nanos());
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_draws_differ() {
        assert_ne!(super::u64(0), super::u64(0));
    }
}
