//! Generated histories: linearizable as generated, violated once corrupted.

use lincheck::{
    CheckOptions, KvInput, KvModel, KvOutput, Verdict, check, synthetic::synthetic_history,
};

#[test]
fn a_synthetic_history_of_10000_ops_5_clients_10_keys_is_linearizable() {
    let history = synthetic_history(42, 10_000, 5, 10);
    assert_eq!(history.len(), 10_000);
    assert_eq!(
        check(&KvModel, &history, &CheckOptions::default()).map(|r| r.verdict),
        Ok(Verdict::Linearizable)
    );
}

#[test]
fn synthetic_histories_of_many_seeds_and_shapes_are_linearizable() {
    for seed in 0..20 {
        for (clients, keys) in [(1, 1), (3, 1), (8, 2), (5, 10)] {
            let history = synthetic_history(seed, 400, clients, keys);
            let result = check(&KvModel, &history, &CheckOptions::default()).map(|r| r.verdict);
            assert_eq!(
                result,
                Ok(Verdict::Linearizable),
                "seed {seed}, {clients}x{keys}"
            );
        }
    }
}

#[test]
fn flipping_one_read_value_in_a_synthetic_history_is_a_violation() {
    let mut history = synthetic_history(42, 10_000, 5, 10);
    let Some(read) = history.iter_mut().skip(5_000).find(|op| {
        matches!(op.input, KvInput::Get { .. })
            && matches!(op.output, Some(KvOutput::Value(Some(_))))
    }) else {
        panic!("a synthetic history of 10,000 operations has reads");
    };
    read.output = Some(KvOutput::value("never-written"));
    let (id, key) = (read.id, read.input.key().to_string());

    let result = check(&KvModel, &history, &CheckOptions::default()).map(|r| r.verdict);
    let Ok(Verdict::Violation(explanation)) = result else {
        panic!("expected a violation, got {result:?}");
    };
    assert_eq!(explanation.partition.as_deref(), Some(key.as_str()));
    assert_eq!(explanation.unplaceable.id, id);
}

#[test]
fn replacing_a_read_with_an_overwritten_value_is_a_violation() {
    // A read that returned a value, flipped to the value of a put on the
    // same key that was overwritten by another put completed before the
    // read was called: stale, not invented.
    let history = synthetic_history(9, 2_000, 5, 3);
    let mut found = None;
    'reads: for (r, read) in history.iter().enumerate() {
        let KvInput::Get { key } = &read.input else {
            continue;
        };
        let puts_before = history.iter().filter(|op| {
            matches!(&op.input, KvInput::Put { key: k, .. } if k == key)
                && op.ret.is_some_and(|t| t < read.call)
        });
        for old in puts_before {
            // `newer` overwrote `old` for certain: called after old returned,
            // returned before the read was called.
            let overwritten = history.iter().any(|newer| {
                matches!(&newer.input, KvInput::Put { key: k, .. } if k == key)
                    && newer.call > old.ret.unwrap_or(u64::MAX)
                    && newer.ret.is_some_and(|t| t < read.call)
            });
            if overwritten && let KvInput::Put { value, .. } = &old.input {
                found = Some((r, value.clone()));
                break 'reads;
            }
        }
    }
    let Some((r, stale)) = found else {
        panic!("the history should contain a read with an overwritten value before it");
    };
    let mut history = history;
    history[r].output = Some(KvOutput::value(stale));
    let result = check(&KvModel, &history, &CheckOptions::default()).map(|r| r.verdict);
    let Ok(Verdict::Violation(explanation)) = result else {
        panic!("expected a violation, got {result:?}");
    };
    assert_eq!(explanation.unplaceable.id, history[r].id);
}
