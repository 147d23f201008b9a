//! The shared turn scenarios (`__test__/fixtures/turn-vectors.json`) against the engine's turn
//! scheduler; `__test__/turn-vectors.test.mjs` runs the same table through the Node driver, so
//! the two paths cannot drift.

use prism_engine::parallel::turn::{Step, TurnScheduler};
use serde_json::Value;

const VECTORS: &str = include_str!("../../../__test__/fixtures/turn-vectors.json");

/// The trace of a scenario: whenever the scheduler says wait, the call in flight that comes
/// first in `finish` finishes.
fn trace(concurrency: f64, exclusive: bool, finish: &[usize]) -> Vec<String> {
    let mut turn = TurnScheduler::new(concurrency, finish.len(), exclusive);
    let mut flying: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    loop {
        match turn.step() {
            Step::Start { index, .. } => {
                flying.push(index);
                out.push(format!("s{index}"));
            }
            Step::Wait => {
                let Some(pos) = finish.iter().position(|i| flying.contains(i)) else {
                    panic!("waiting with nothing in flight");
                };
                let index = finish[pos];
                flying.retain(|i| *i != index);
                assert_eq!(turn.complete(index), Ok(()));
                out.push(format!("f{index}"));
            }
            Step::Append { index, .. } => out.push(format!("a{index}")),
            Step::Done => return out,
        }
    }
}

#[test]
fn every_shared_turn_scenario_gives_its_trace() {
    let vectors: Value = serde_json::from_str(VECTORS).unwrap_or(Value::Null);
    let scenarios = vectors["scenarios"].as_array().cloned().unwrap_or_default();
    assert!(scenarios.len() >= 5);
    for s in scenarios {
        let finish: Vec<usize> = s["finish"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .map(|v| v as usize)
                    .collect()
            })
            .unwrap_or_default();
        let got = trace(
            s["toolConcurrency"].as_f64().unwrap_or(f64::NAN),
            s["exclusive"].as_bool().unwrap_or(false),
            &finish,
        );
        let want: Vec<String> = s["trace"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if std::env::var("PRISM_PRINT_TRACES").is_ok() {
            eprintln!(
                "{}: {}",
                s["name"],
                serde_json::to_string(&got).unwrap_or_default()
            );
            continue;
        }
        assert_eq!(got, want, "{}", s["name"]);
    }
}
