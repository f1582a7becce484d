//! The fuzz crate's tests: the replay of every target's corpus (CI's share of the fuzzing).

mod replay;
