//! However the network cuts a body into pieces, the fold is the same.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{FIXTURES, Folded, comparable, fixture_body, fold_in_pieces, model};
use proptest::prelude::*;
use rho_ai::AssistantMessage;

fn without_timestamp(mut message: AssistantMessage) -> AssistantMessage {
    message.timestamp = 0;
    message
}

fn assert_same_fold(a: Folded, b: Folded, name: &str) {
    assert_eq!(comparable(&a.events), comparable(&b.events), "{name}");
    assert_eq!(
        without_timestamp(a.message),
        without_timestamp(b.message),
        "{name}"
    );
}

#[test]
fn one_byte_pieces_fold_every_fixture_like_one_piece() {
    let model = model("openai", "gpt-4o");
    for name in FIXTURES {
        let body = fixture_body(name);
        assert_same_fold(
            fold_in_pieces(&model, &body, &[1]),
            fold_in_pieces(&model, &body, &[]),
            name,
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_pieces_fold_like_one_piece(
        fixture in 0..FIXTURES.len(),
        sizes in prop::collection::vec(1usize..200, 1..16),
    ) {
        let name = FIXTURES[fixture];
        let model = model("openai", "gpt-4o");
        let body = fixture_body(name);
        assert_same_fold(
            fold_in_pieces(&model, &body, &sizes),
            fold_in_pieces(&model, &body, &[]),
            name,
        );
    }
}
