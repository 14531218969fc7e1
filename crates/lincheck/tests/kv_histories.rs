//! Hand-written key/value histories with known verdicts.

use lincheck::{
    CheckOptions, Explanation, HistoryError, KvInput, KvModel, KvOutput, Limit, Model, Next,
    Operation, Verdict, check,
};

type KvOp = Operation<KvInput, KvOutput>;

fn put(id: u64, call: u64, ret: u64, key: &str, value: &str) -> KvOp {
    Operation::completed(id, id, call, ret, KvInput::put(key, value), KvOutput::Ok)
}

fn get(id: u64, call: u64, ret: u64, key: &str, value: Option<&str>) -> KvOp {
    let output = KvOutput::Value(value.map(str::to_string));
    Operation::completed(id, id, call, ret, KvInput::get(key), output)
}

fn unknown_put(id: u64, call: u64, key: &str, value: &str) -> KvOp {
    Operation::unknown(id, id, call, KvInput::put(key, value))
}

fn verdict(history: &[KvOp]) -> Verdict {
    match check(&KvModel, history, &CheckOptions::default()) {
        Ok(result) => result.verdict,
        Err(e) => panic!("test history is invalid: {e}"),
    }
}

fn violation(history: &[KvOp]) -> Explanation {
    match verdict(history) {
        Verdict::Violation(explanation) => explanation,
        other => panic!("expected a violation, got {other:?}"),
    }
}

#[test]
fn stale_read_after_a_completed_write_is_a_violation_naming_key_and_read() {
    let history = [
        put(1, 0, 2, "k", "v1"),
        put(2, 3, 5, "k", "v2"),
        get(3, 6, 8, "k", Some("v1")),
    ];
    let explanation = violation(&history);
    assert_eq!(explanation.partition.as_deref(), Some("k"));
    assert_eq!(explanation.unplaceable.id, 3);
    let prefix: Vec<u64> = explanation.prefix.iter().map(|s| s.op.id).collect();
    assert_eq!(prefix, vec![1, 2]);
    assert_eq!(explanation.state, "\"v2\"");
    let text = explanation.to_string();
    assert!(text.contains("partition \"k\""), "{text}");
    assert!(text.contains("cannot place next: op 3"), "{text}");
    assert!(text.contains("get(\"k\") -> \"v1\""), "{text}");
}

#[test]
fn a_read_overlapping_the_write_may_see_either_value() {
    for seen in [Some("v1"), Some("v2")] {
        let history = [
            put(1, 0, 2, "k", "v1"),
            put(2, 3, 8, "k", "v2"),
            get(3, 4, 6, "k", seen),
        ];
        assert_eq!(verdict(&history), Verdict::Linearizable, "{seen:?}");
    }
}

#[test]
fn two_concurrent_writes_are_accepted_in_either_order() {
    for (first, second) in [("v1", "v2"), ("v2", "v1")] {
        let history = [
            put(1, 0, 5, "k", "v1"),
            put(2, 1, 6, "k", "v2"),
            get(3, 7, 8, "k", Some(second)),
        ];
        assert_eq!(verdict(&history), Verdict::Linearizable, "last {second}");
        // Once both writes have completed only one of them is current, so
        // two later reads cannot see first one value, then the other.
        let both = [
            put(1, 0, 5, "k", "v1"),
            put(2, 1, 6, "k", "v2"),
            get(3, 7, 8, "k", Some(first)),
            get(4, 9, 10, "k", Some(second)),
        ];
        assert_eq!(violation(&both).unplaceable.id, 4);
    }
}

#[test]
fn reads_during_concurrent_writes_may_see_them_in_either_order() {
    for (a, b) in [("v1", "v2"), ("v2", "v1")] {
        let history = [
            put(1, 0, 20, "k", "v1"),
            put(2, 0, 20, "k", "v2"),
            get(3, 1, 2, "k", Some(a)),
            get(4, 3, 4, "k", Some(b)),
        ];
        assert_eq!(verdict(&history), Verdict::Linearizable, "{a} then {b}");
    }
}

#[test]
fn touching_intervals_are_concurrent() {
    // The write returns at tick 5, the read is called at tick 5: the
    // recorder cannot order them, so the read may precede the write.
    let history = [put(1, 0, 5, "k", "v1"), get(2, 5, 6, "k", None)];
    assert_eq!(verdict(&history), Verdict::Linearizable);
    // One tick later the write has certainly happened.
    let history = [put(1, 0, 5, "k", "v1"), get(2, 6, 7, "k", None)];
    assert_eq!(violation(&history).unplaceable.id, 2);
}

#[test]
fn a_read_of_a_value_never_written_is_a_violation() {
    let history = [put(1, 0, 2, "k", "v1"), get(2, 0, 9, "k", Some("ghost"))];
    let explanation = violation(&history);
    assert_eq!(explanation.partition.as_deref(), Some("k"));
    assert_eq!(explanation.unplaceable.id, 2);
}

#[test]
fn an_unknown_write_may_be_seen_by_a_later_read() {
    let history = [unknown_put(1, 0, "k", "v1"), get(2, 5, 6, "k", Some("v1"))];
    assert_eq!(verdict(&history), Verdict::Linearizable);
}

#[test]
fn an_unknown_write_may_never_be_seen() {
    let history = [unknown_put(1, 0, "k", "v1"), get(2, 5, 6, "k", None)];
    assert_eq!(verdict(&history), Verdict::Linearizable);
}

#[test]
fn an_unknown_write_may_take_effect_long_after_its_client_gave_up() {
    let history = [
        unknown_put(1, 0, "k", "v1"),
        get(2, 5, 6, "k", None),
        get(3, 50, 51, "k", Some("v1")),
    ];
    assert_eq!(verdict(&history), Verdict::Linearizable);
}

#[test]
fn an_unknown_write_seen_then_unseen_without_another_write_is_a_violation() {
    let history = [
        unknown_put(1, 0, "k", "v1"),
        get(2, 5, 6, "k", Some("v1")),
        get(3, 7, 8, "k", None),
    ];
    let explanation = violation(&history);
    assert_eq!(explanation.unplaceable.id, 3);
    let prefix: Vec<u64> = explanation.prefix.iter().map(|s| s.op.id).collect();
    assert_eq!(prefix, vec![1, 2]);
}

#[test]
fn an_unknown_write_cannot_take_effect_before_its_call() {
    let history = [get(1, 0, 1, "k", Some("v1")), unknown_put(2, 5, "k", "v1")];
    assert_eq!(violation(&history).unplaceable.id, 1);
}

#[test]
fn an_unknown_read_constrains_nothing() {
    let unknown_get = Operation::unknown(2, 2, 1, KvInput::get("k"));
    let history = [
        put(1, 0, 2, "k", "v1"),
        unknown_get,
        get(3, 3, 4, "k", Some("v1")),
    ];
    assert_eq!(verdict(&history), Verdict::Linearizable);
}

/// `n` writes of distinct values all concurrent with one read of a value
/// none of them wrote: the search must try every subset of writes before
/// it can conclude.
fn hard_history(n: u64) -> Vec<KvOp> {
    let mut history: Vec<KvOp> = (0..n)
        .map(|i| put(i, 0, 100, "k", &format!("v{i}")))
        .collect();
    history.push(get(n, 0, 100, "k", Some("ghost")));
    history
}

#[test]
fn a_budget_too_small_for_the_history_yields_unknown() {
    let history = hard_history(12);
    let options = CheckOptions::default().with_max_steps(1_000);
    let result = check(&KvModel, &history, &options).map(|r| r.verdict);
    assert_eq!(
        result,
        Ok(Verdict::Unknown {
            partition: Some("k".to_string()),
            steps: 1_000,
            limit: Limit::Steps,
        })
    );
    // With the default budget the same history is decided.
    assert_eq!(violation(&history).unplaceable.id, 12);
}

#[test]
fn a_violation_on_one_key_is_reported_for_that_key_while_others_are_fine() {
    let history = [
        put(1, 0, 2, "a", "1"),
        get(2, 3, 4, "a", Some("1")),
        put(3, 0, 2, "b", "1"),
        put(4, 3, 4, "b", "2"),
        get(5, 5, 6, "b", Some("1")),
        put(6, 0, 9, "c", "1"),
        get(7, 1, 2, "c", None),
    ];
    let explanation = violation(&history);
    assert_eq!(explanation.partition.as_deref(), Some("b"));
    assert_eq!(explanation.unplaceable.id, 5);
    assert_eq!(explanation.partition_ops, 3);
    assert!(
        explanation
            .prefix
            .iter()
            .all(|s| s.op.id == 3 || s.op.id == 4)
    );

    // Without the bad read every key is fine.
    let fixed: Vec<KvOp> = history.iter().filter(|op| op.id != 5).cloned().collect();
    assert_eq!(verdict(&fixed), Verdict::Linearizable);
}

#[test]
fn the_order_of_the_history_does_not_matter() {
    let mut history = vec![
        put(1, 0, 2, "k", "v1"),
        put(2, 3, 5, "k", "v2"),
        get(3, 6, 8, "k", Some("v1")),
    ];
    history.reverse();
    assert_eq!(violation(&history).unplaceable.id, 3);
}

#[test]
fn an_empty_history_is_linearizable() {
    assert_eq!(verdict(&[]), Verdict::Linearizable);
}

#[test]
fn an_invalid_history_is_refused_not_checked() {
    let history = [put(1, 0, 2, "k", "v1"), get(1, 3, 4, "k", None)];
    assert_eq!(
        check(&KvModel, &history, &CheckOptions::default()).map(|r| r.verdict),
        Err(HistoryError::DuplicateId { id: 1 })
    );
}

/// A register whose write may be lost: nondeterministic by design.
struct LossyRegister;

impl Model for LossyRegister {
    type State = u8;
    type Input = Option<u8>; // Some(v) = write v, None = read
    type Output = u8; // the value read (ignored for a write)

    fn init(&self) -> u8 {
        0
    }

    fn step(&self, state: &u8, input: &Option<u8>, output: Option<&u8>) -> Next<u8> {
        match (input, output) {
            (Some(v), _) => Next::AnyOf(vec![*state, *v]),
            (None, Some(seen)) if seen == state => Next::Unchanged,
            (None, Some(_)) => Next::Illegal,
            (None, None) => Next::Unchanged,
        }
    }
}

#[test]
fn a_nondeterministic_model_has_every_next_state_tried() {
    let op = |id, call, ret, input, output| Operation::completed(id, 0, call, ret, input, output);
    // The write of 1 took effect (second choice) then the read sees it.
    let history = [op(1, 0, 1, Some(1), 0), op(2, 2, 3, None, 1)];
    assert_eq!(
        check(&LossyRegister, &history, &CheckOptions::default()).map(|r| r.verdict),
        Ok(Verdict::Linearizable)
    );
    // The write was lost (first choice) and the read sees the old value.
    let history = [op(1, 0, 1, Some(1), 0), op(2, 2, 3, None, 0)];
    assert_eq!(
        check(&LossyRegister, &history, &CheckOptions::default()).map(|r| r.verdict),
        Ok(Verdict::Linearizable)
    );
    // Neither choice explains a read of 2.
    let history = [op(1, 0, 1, Some(1), 0), op(2, 2, 3, None, 2)];
    let result = check(&LossyRegister, &history, &CheckOptions::default()).map(|r| r.verdict);
    assert!(
        matches!(&result, Ok(Verdict::Violation(e)) if e.partition.is_none() && e.unplaceable.id == 2),
        "{result:?}"
    );
}
