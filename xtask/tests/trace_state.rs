//! `cargo xtask trace`'s state views (`--at`, `--state`) and its filters
//! (`--node`, `--kinds`, `--no-messages`), run as a user would.

use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("xtask runs")
}

fn ok(args: &[&str]) -> String {
    let out = xtask(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The cells of the table row that starts with `first` (split on runs of
/// two or more spaces, so empty cells vanish).
fn row<'a>(text: &'a str, first: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.starts_with(first))
        .unwrap_or_else(|| panic!("no row {first:?} in\n{text}"));
    line.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

const ISR3: [&str; 6] = ["trace", "--experiment", "3", "--protocol", "isr", "--at"];

#[test]
fn trace_at_a_tick_prints_every_nodes_state_line_with_leo_hw_and_the_isr() {
    let mut args = ISR3.to_vec();
    args.push("33");
    let text = ok(&args);
    assert!(text.starts_with("state at tick 33 "), "{text}");
    let header = row(&text, "node ");
    assert_eq!(
        header,
        [
            "node", "role", "epoch", "LEO", "HW", "ISR", "durable", "catch-up"
        ]
    );
    // The old leader, cut off: still believes it leads epoch 1, holds the
    // unacknowledged offset 2 above its HW 1.
    assert_eq!(
        row(&text, "node-1"),
        ["node-1", "leader", "1", "2", "1", "0"]
    );
    // The new leader has appended offset 2 but not yet committed it.
    assert_eq!(
        row(&text, "node-2"),
        [
            "node-2",
            "leader",
            "2",
            "2",
            "1",
            "{node-2,node-3}",
            "0",
            "streaming"
        ]
    );
    assert_eq!(
        row(&text, "node-3"),
        ["node-3", "follower", "2", "1", "1", "0", "incremental"]
    );
    // One tick later the ISR has confirmed it.
    args.pop();
    args.push("34");
    let later = ok(&args);
    assert_eq!(row(&later, "node-2")[4], "2");
}

#[test]
fn trace_state_prints_a_row_per_node_and_tick_its_line_changed_marking_what_changed() {
    let text = ok(&["trace", "--experiment", "3", "--protocol", "isr", "--state"]);
    let ticks: Vec<&str> = text
        .lines()
        .skip(2)
        .filter_map(|l| l.split(' ').next())
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(ticks, ["0", "1", "2", "33", "34", "76", "77"], "{text}");
    // Healed at 76, the old leader learns it is a follower of epoch 2; at
    // 77 it is truncated to the new leader's log and its HW reaches 2.
    assert_eq!(
        row(&text, "76"),
        ["76", "node-1", "follower*", "2*", "2", "1", "0"]
    );
    assert!(
        text.lines()
            .any(|l| l.contains("node-1") && l.contains("2*") && l.contains("incremental*")),
        "{text}"
    );
    let only = ok(&[
        "trace",
        "--experiment",
        "3",
        "--protocol",
        "isr",
        "--state",
        "--node",
        "node-3",
    ]);
    assert!(only.lines().skip(2).all(|l| l.contains("node-3")), "{only}");
}

#[test]
fn no_messages_cuts_the_raft_minority_trace_to_its_non_message_lines() {
    let all = ok(&["trace", "--experiment", "3", "--protocol", "raft"]);
    let cut = ok(&[
        "trace",
        "--experiment",
        "3",
        "--protocol",
        "raft",
        "--no-messages",
    ]);
    let kept: Vec<&str> = all
        .lines()
        .filter(|l| !l.split(' ').nth(2).unwrap_or("").starts_with("message_"))
        .collect();
    assert_eq!(cut.lines().collect::<Vec<_>>(), kept);
    assert!(cut.lines().count() * 4 < all.lines().count(), "{cut}");
}

#[test]
fn node_and_kinds_filters_keep_the_events_that_name_the_node_or_have_the_kind() {
    let node = ok(&[
        "trace",
        "--experiment",
        "3",
        "--protocol",
        "isr",
        "--node",
        "node-3",
    ]);
    assert!(!node.is_empty());
    assert!(node.lines().all(|l| l.contains("=node-3")), "{node}");
    let kinds = ok(&[
        "trace",
        "--experiment",
        "3",
        "--protocol",
        "isr",
        "--kinds",
        "isr_member_*,node_healed",
    ]);
    let names: Vec<&str> = kinds.lines().filter_map(|l| l.split(' ').nth(2)).collect();
    assert_eq!(
        names,
        ["isr_member_removed", "node_healed", "isr_member_added"]
    );
}

#[test]
fn an_unknown_node_or_a_filter_with_a_state_view_is_a_usage_error() {
    let out = xtask(&[
        "trace",
        "--experiment",
        "3",
        "--protocol",
        "isr",
        "--node",
        "node-9",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no node `node-9`") && err.contains("node-1, node-2, node-3"),
        "{err}"
    );
    let out = xtask(&[
        "trace",
        "--experiment",
        "3",
        "--protocol",
        "isr",
        "--state",
        "--no-messages",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

const EXERCISE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs/exercises/isr-min-insync.txt"
);

#[test]
fn diagram_draws_a_part_of_any_scenario_file_with_its_state_notes() {
    let svg = ok(&["diagram", EXERCISE, "--protocol", "isr", "--part", "2"]);
    assert!(svg.starts_with("<?xml"), "{svg}");
    assert!(
        svg.contains("isr-min-insync.txt · isr · part 2"),
        "the title names the file and part"
    );
    assert!(svg.contains("note state-line"), "state notes are drawn");
    assert!(
        svg.contains(">HW 1 · ISR {1}<"),
        "the leader's HW and ISR change"
    );
    let out = xtask(&["diagram", EXERCISE, "--protocol", "isr", "--part", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has 2 part(s) that run on isr"));
}
