//! The same recorded stream split into any chunks (one byte each, random sizes, cuts inside the
//! CRLF framing) folds into the same events and the same final message as when it arrives whole.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{FIXTURES, Folded, fixture_body, fold, fold_chunks};
use proptest::prelude::*;
use rho_ai::AssistantMessageEvent;
use rho_testkit::fold::split;

/// The events as JSON with every timestamp zeroed (each fold stamps its message when it
/// starts), plus the outcome's debug text.
fn comparable(folded: &Folded) -> (Vec<serde_json::Value>, String) {
    let events = folded
        .events
        .iter()
        .map(|event| {
            let mut json = serde_json::to_value(event).unwrap();
            for key in ["partial", "message", "error"] {
                if let Some(message) = json.get_mut(key) {
                    message["timestamp"] = 0.into();
                }
            }
            json
        })
        .collect();
    let zeroed = |message: &rho_ai::AssistantMessage| rho_ai::AssistantMessage {
        timestamp: 0,
        ..message.clone()
    };
    let outcome = match &folded.outcome {
        Ok(message) => format!("{:?}", zeroed(message)),
        Err((failure, partial)) => format!("{failure:?} {:?}", zeroed(partial)),
    };
    (events, outcome)
}

#[test]
fn every_fixture_fed_one_byte_at_a_time_folds_like_the_whole_body() {
    for name in FIXTURES {
        let body = fixture_body(name);
        let whole = fold(&body);
        assert!(
            matches!(
                whole.events.last(),
                Some(AssistantMessageEvent::Done { .. })
            ),
            "{name}"
        );
        let bytewise = fold_chunks(body.chunks(1));
        assert_eq!(comparable(&bytewise), comparable(&whole), "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_chunking_of_any_fixture_folds_like_the_whole_body(
        fixture in 0..FIXTURES.len(),
        sizes in prop::collection::vec(1usize..300, 1..40),
    ) {
        let body = fixture_body(FIXTURES[fixture]);
        let whole = fold(&body);
        let chunked = fold_chunks(split(&body, &sizes));
        prop_assert_eq!(comparable(&chunked), comparable(&whole));
    }
}
