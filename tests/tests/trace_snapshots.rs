//! An insta snapshot of the trace of every experiment × protocol × variant
//! run, and of the JSON matrix. Review changes with `cargo insta review`.

mod common;

#[test]
fn every_run_has_a_pinned_trace() {
    for run in common::runs() {
        let name = format!("exp{}_{}_{}", run.experiment, run.protocol, run.variant);
        insta::assert_snapshot!(name, run.trace.to_text());
    }
}

#[test]
fn a_filtered_trace_is_pinned_with_the_helper() {
    // Experiment 3 on Raft without its message events: the elections,
    // votes, commits and faults, not the 468 message lines.
    let run = common::run(3, common::RAFT, "default");
    let kept = sim_core::TraceFilter::new().without_messages();
    assert!(kept.to_text(&run.trace).lines().count() < run.trace.len() / 4);
    sim_core::assert_trace_snapshot!("exp3_raft_default_no_messages", &run.trace, kept);
}

#[test]
fn the_json_matrix_is_pinned() {
    let json = labs::matrix::to_json(common::runs());
    insta::assert_snapshot!(
        "matrix_json",
        serde_json::to_string_pretty(&json).expect("serializes")
    );
}

#[test]
fn running_the_matrix_twice_gives_identical_json_and_traces() {
    let again = labs::all_runs().expect("runs");
    let first = labs::matrix::to_json(common::runs()).to_string();
    let second = labs::matrix::to_json(&again).to_string();
    assert_eq!(first, second);
    for (a, b) in common::runs().iter().zip(&again) {
        assert_eq!(
            a.trace.to_text(),
            b.trace.to_text(),
            "exp{} {} {}",
            a.experiment,
            a.protocol,
            a.variant
        );
    }
}

#[test]
fn every_trace_round_trips_through_json_lines() {
    for run in common::runs() {
        let parsed = sim_core::Trace::parse_jsonl(&run.trace.to_jsonl()).expect("parses");
        assert_eq!(parsed, run.trace.to_events());
    }
}

#[test]
fn the_committed_markdown_matrix_matches_a_fresh_run() {
    let committed = include_str!("../../docs/matrix.md");
    assert_eq!(committed, labs::matrix::to_markdown(common::runs()));
}
