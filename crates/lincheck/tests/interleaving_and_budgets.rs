//! How a check spends its effort: partitions side by side, budgets of
//! steps, memory and time, and what it reports about each partition.

use std::time::Duration;

use lincheck::synthetic::{CasRegister, RegisterShape, register_history, synthetic_history};
use lincheck::{
    CheckOptions, CheckResult, KvInput, KvModel, KvOutput, Limit, Model, Operation,
    PartitionOutcome, SLICE_STEPS, Verdict, check,
};

type KvOp = Operation<KvInput, KvOutput>;

fn put(id: u64, call: u64, ret: u64, key: &str, value: &str) -> KvOp {
    Operation::completed(id, id, call, ret, KvInput::put(key, value), KvOutput::Ok)
}

fn get(id: u64, call: u64, ret: u64, key: &str, value: Option<&str>) -> KvOp {
    let output = KvOutput::Value(value.map(str::to_string));
    Operation::completed(id, id, call, ret, KvInput::get(key), output)
}

/// On key `"a"`, `n` concurrent writes and a read of a value none wrote:
/// every subset of the writes is searched before the read is refuted.
fn expensive(n: u64, first_id: u64) -> Vec<KvOp> {
    let mut ops: Vec<KvOp> = (0..n)
        .map(|i| put(first_id + i, 0, 1_000, "a", &format!("v{i}")))
        .collect();
    ops.push(get(first_id + n, 0, 1_000, "a", Some("ghost")));
    ops
}

/// On key `"b"`: a read that misses a write completed before it.
fn stale_read(first_id: u64) -> Vec<KvOp> {
    vec![
        put(first_id, 0, 2, "b", "1"),
        get(first_id + 1, 3, 4, "b", None),
    ]
}

fn run(history: &[KvOp], options: &CheckOptions) -> CheckResult {
    match check(&KvModel, history, options) {
        Ok(result) => result,
        Err(e) => panic!("invalid history: {e}"),
    }
}

#[test]
fn a_cheap_violation_is_found_without_finishing_an_expensive_partition_before_it() {
    let mut history = expensive(20, 0);
    history.extend(stale_read(100));
    let result = run(&history, &CheckOptions::default());
    let explanation = result.violation().expect("the stale read");
    assert_eq!(explanation.partition.as_deref(), Some("b"));
    let a = result.partition(Some("a")).expect("partition a");
    assert_eq!(a.outcome, PartitionOutcome::Stopped);
    // One slice, not the millions of steps "a" would take to the end.
    assert_eq!(a.stats.steps, SLICE_STEPS);
    let b = result.partition(Some("b")).expect("partition b");
    assert_eq!(b.outcome, PartitionOutcome::Violated);
    assert!(b.stats.steps < 10);
}

#[test]
fn of_partitions_refuted_in_the_same_round_the_first_in_key_order_is_reported() {
    let mut history = stale_read(0);
    history.extend([put(10, 0, 2, "a", "1"), get(11, 3, 4, "a", Some("2"))]);
    let result = run(&history, &CheckOptions::default());
    assert_eq!(
        result.violation().and_then(|e| e.partition.as_deref()),
        Some("a")
    );
    assert!(
        result
            .partitions
            .iter()
            .all(|p| p.outcome == PartitionOutcome::Violated)
    );
}

#[test]
fn a_partition_out_of_steps_makes_the_verdict_unknown_only_if_none_is_refuted() {
    let options = CheckOptions::default().with_max_steps(500);
    let mut history = expensive(12, 0);
    history.extend([put(100, 0, 2, "b", "1"), get(101, 3, 4, "b", Some("1"))]);
    let result = run(&history, &options);
    assert_eq!(
        result.verdict,
        Verdict::Unknown {
            partition: Some("a".to_string()),
            steps: 500,
            limit: Limit::Steps,
        }
    );
    assert_eq!(
        result.partition(Some("b")).map(|p| p.outcome),
        Some(PartitionOutcome::Linearizable)
    );

    let mut history = expensive(12, 0);
    history.extend(stale_read(100));
    let result = run(&history, &options);
    assert_eq!(
        result.violation().and_then(|e| e.partition.as_deref()),
        Some("b")
    );
}

#[test]
fn a_memory_budget_stops_a_partition_whose_cache_outgrows_it() {
    let history = expensive(14, 0);
    let options = CheckOptions::default().with_max_memory(64 << 10);
    let result = run(&history, &options);
    let Verdict::Unknown { limit, steps, .. } = result.verdict else {
        panic!("expected unknown, got {}", result.verdict);
    };
    assert_eq!(limit, Limit::Memory);
    let a = &result.partitions[0];
    assert_eq!(a.stats.steps, steps);
    // It stops at the first configuration past the budget.
    assert!(a.stats.memory_bytes > 64 << 10);
    assert!(a.stats.memory_bytes < 128 << 10, "{}", a.stats.memory_bytes);
    // The same budget is plenty for an easy history.
    let easy = synthetic_history(3, 200, 3, 2);
    assert!(run(&easy, &options).is_linearizable());
}

#[test]
fn a_time_budget_of_zero_leaves_every_partition_unknown() {
    let history = synthetic_history(3, 200, 3, 2);
    let options = CheckOptions::default().with_max_time(Duration::ZERO);
    let result = run(&history, &options);
    assert!(matches!(
        result.verdict,
        Verdict::Unknown {
            limit: Limit::Time,
            ..
        }
    ));
    assert!(
        result
            .partitions
            .iter()
            .all(|p| p.outcome == PartitionOutcome::OutOfBudget(Limit::Time))
    );
}

#[test]
fn the_result_with_its_statistics_is_the_same_on_every_run() {
    let history = register_history(
        4,
        RegisterShape {
            ops: 2_000,
            ..RegisterShape::default()
        },
    );
    let options = CheckOptions::default().with_witness(true);
    let first = check(&CasRegister, &history, &options);
    let second = check(&CasRegister, &history, &options);
    assert_eq!(first, second);
    let stats = first.map(|r| r.stats()).unwrap_or_default();
    assert!(stats.steps > 0 && stats.configurations > 0 && stats.model_states > 1);
    assert!(stats.configurations + stats.cache_hits <= stats.steps);
}

/// Replays `order` (ids) against `model`: every operation with a return
/// is in it once, each may come first given real time, and each step is
/// legal.
fn is_a_linearization<M: Model>(
    model: &M,
    ops: &[Operation<M::Input, M::Output>],
    order: &[u64],
) -> bool {
    let placed: Vec<&Operation<M::Input, M::Output>> = order
        .iter()
        .filter_map(|id| ops.iter().find(|op| op.id == *id))
        .collect();
    let returned = ops.iter().filter(|op| op.ret.is_some());
    if placed.len() != order.len() || !returned.clone().all(|op| order.contains(&op.id)) {
        return false;
    }
    for (i, later) in placed.iter().enumerate() {
        // Nothing placed after `later` returned before `later` was called.
        if placed[i + 1..]
            .iter()
            .any(|op| op.ret.is_some_and(|ret| ret < later.call))
        {
            return false;
        }
    }
    let mut state = model.init();
    for op in placed {
        match model
            .step(&state, &op.input, op.output.as_ref())
            .into_states(&state)
            .first()
        {
            Some(next) => state = next.clone(),
            None => return false,
        }
    }
    true
}

#[test]
fn a_witness_is_a_linearization_of_each_partition() {
    let history = synthetic_history(8, 1_000, 5, 4);
    let options = CheckOptions::default().with_witness(true);
    let result = run(&history, &options);
    assert_eq!(result.partitions.len(), 4);
    for report in &result.partitions {
        let key = report.partition.as_deref().expect("keyed");
        let ops: Vec<KvOp> = history
            .iter()
            .filter(|op| op.input.key() == key)
            .cloned()
            .collect();
        let order = report.witness.as_deref().expect("a witness");
        assert_eq!(order.len(), ops.len(), "{key}");
        assert!(is_a_linearization(&KvModel, &ops, order), "{key}");
    }
    // Not asked for, not given.
    let plain = run(&history, &CheckOptions::default());
    assert!(plain.partitions.iter().all(|p| p.witness.is_none()));
}

#[test]
fn a_witness_leaves_out_writes_that_never_returned_and_never_took_effect() {
    let history = [
        put(1, 0, 1, "k", "a"),
        Operation::unknown(2, 2, 2, KvInput::put("k", "lost")),
        get(3, 3, 4, "k", Some("a")),
    ];
    let options = CheckOptions::default().with_witness(true);
    let result = run(&history, &options);
    assert_eq!(result.partitions[0].witness.as_deref(), Some(&[1, 3][..]));
}

#[test]
fn candidates_are_tried_read_only_first_then_in_call_order_never_returned_last() {
    // Three overlapping writes that return in another order than they
    // were called, a read inside them all, and a write called first that
    // never returned: any order is a linearization, so the witness is the
    // first one tried (and the write that never returned is not needed).
    let history = [
        Operation::unknown(5, 5, 0, KvInput::put("k", "lost")),
        put(1, 0, 10, "k", "a"),
        put(2, 1, 5, "k", "b"),
        put(3, 2, 7, "k", "c"),
        get(4, 3, 4, "k", None),
    ];
    let options = CheckOptions::default().with_witness(true);
    let result = run(&history, &options);
    let report = &result.partitions[0];
    assert_eq!(report.witness.as_deref(), Some(&[4, 1, 2, 3][..]));
    assert_eq!(report.stats.steps, 4);
}

#[test]
fn a_write_order_told_by_the_calls_is_found_without_searching_the_timed_out_ones() {
    // The shape of Porcupine's etcd_067: writes of 2 and 4 overlap, the
    // write of 4 returns first, and a read after both sees 4, so 2 took
    // effect first, as it was called first. Eight writes that timed out
    // before are still pending. Earliest-return first placed 4 first and,
    // before giving it up, tried every subset of the eight in every state
    // (10,509 steps); in call order the first path tried succeeds.
    let mut history: Vec<KvOp> = (0..8)
        .map(|i| Operation::unknown(i, 10 + i, i, KvInput::put("k", format!("t{i}"))))
        .collect();
    history.extend([
        put(20, 20, 23, "k", "2"),
        put(21, 21, 22, "k", "4"),
        get(22, 24, 25, "k", Some("4")),
    ]);
    let result = run(&history, &CheckOptions::default());
    assert!(result.is_linearizable());
    let steps = result.stats().steps;
    assert!(steps < 20, "{steps} steps");
}
