//! `cargo xtask explore`, run as a user would.

use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("xtask runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts that `output` is a usage error (exit 2) whose message says
/// `words`.
fn assert_usage_error(output: &Output, words: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains(words), "{words:?} missing in: {err}");
}

#[test]
fn the_verdicts_do_not_depend_on_the_number_of_threads() {
    let args = |jobs: &'static str| {
        [
            "explore",
            "--protocol",
            "isr",
            "--schedules",
            "60",
            "--json",
            "--jobs",
            jobs,
        ]
    };
    let one = xtask(&args("1"));
    let two = xtask(&args("2"));
    assert!(one.status.success() && two.status.success());
    assert_eq!(stdout(&one), stdout(&two));
    let json: serde_json::Value = serde_json::from_str(&stdout(&one)).expect("JSON");
    let verdicts = json["verdicts"].as_array().expect("verdicts");
    assert!(!verdicts.is_empty());
    for v in verdicts {
        for field in [
            "protocol",
            "ack",
            "read",
            "config",
            "property",
            "status",
            "schedules",
        ] {
            assert!(!v[field].is_null(), "{field} in {v}");
        }
    }
}

#[test]
fn a_counterexample_replays_with_its_schedule_history_and_trace() {
    let out = xtask(&[
        "explore",
        "--replay",
        "async.leader.leader.default-s0-154.157",
    ]);
    assert!(out.status.success());
    let text = stdout(&out);
    for part in [
        "## profile",
        "## schedule",
        "## verdict",
        "## history",
        "## trace",
        "violated:",
        // A step names the node it acted on as the trace does.
        "crash leader (power loss): ok (primary)",
    ] {
        assert!(text.contains(part), "{part} missing in:\n{text}");
    }
}

#[test]
fn a_checker_path_replays_with_the_knob_values_its_id_names() {
    let out = xtask(&[
        "explore",
        "--replay",
        "raft.quorum.linearizable.default-m:max_append_entries=1-w0.d0",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("2 steps; nemesis") && text.contains("knobs: max_append_entries=1"),
        "{text}"
    );
    // A knob the row does not have is a usage error naming it.
    let out = xtask(&[
        "explore",
        "--replay",
        "raft.quorum.linearizable.default-m:lag_timeout=3-w0",
    ]);
    assert_usage_error(
        &out,
        "has no knob `lag_timeout` (its knobs: max_append_entries)",
    );
}

#[test]
fn bad_replay_ids_and_filters_are_usage_errors() {
    for args in [
        &["explore", "--replay", "nonsense"][..],
        &["explore", "--replay", "nope.leader.leader.default-s0-1"],
        &[
            "explore",
            "--replay",
            "raft.quorum.linearizable.default-m:x-w0",
        ],
        &["explore", "--protocol", "raft", "--ack", "all_isr"],
        &["explore", "--shard", "3/2"],
        &["explore", "--json", "--write", "x.md"],
    ] {
        let out = xtask(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// The whole table (about 30,000 schedules) in an optimized build: `.ci/run`
/// runs it as `cargo xtask explore --check docs/guarantees.md`; here it is
/// opt-in (`cargo test -p xtask --test explore_cli -- --ignored`), since a
/// debug build takes minutes.
#[test]
#[ignore = "minutes in a debug build; .ci/run runs cargo xtask explore --check"]
fn the_committed_guarantees_match_a_fresh_sweep() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guarantees.md");
    let out = xtask(&["explore", "--check", path]);
    assert!(out.status.success(), "{}", stdout(&out));
}

#[test]
fn a_replay_prints_every_node_s_state_line_at_a_tick_or_at_the_end() {
    // The guide's debugger session: node-2 slow, an ALL_ISR write, ticks.
    let id = "isr.all_isr.linearizable.default-m-l1.w0.d0.t.t.q1.d0";
    let at = xtask(&["explore", "--replay", id, "--at", "32"]);
    assert!(
        at.status.success(),
        "{}",
        String::from_utf8_lossy(&at.stderr)
    );
    let text = stdout(&at);
    let section = text
        .split("## state at tick 32\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no state section:\n{text}"));
    assert!(
        section.contains("node-1  leader  epoch 1  LEO 1  HW 0  ISR {node-1,node-2,node-3}"),
        "{section}"
    );
    assert!(
        section.contains("node-2  follower  epoch 1  LEO 0  HW 0  durable 0  slow yes"),
        "{section}"
    );
    let end = xtask(&["explore", "--replay", id, "--state"]);
    assert!(
        stdout(&end).contains("## state at tick "),
        "{}",
        stdout(&end)
    );
    let late = xtask(&["explore", "--replay", id, "--at", "999"]);
    assert_usage_error(&late, "--at 999: the run ended at tick");
}

#[test]
fn check_knob_values_build_the_rows_that_have_the_knob_and_skip_the_rest_aloud() {
    let out = xtask(&[
        "check",
        "--protocol",
        "isr",
        "--read",
        "linearizable",
        "--knob",
        "lag_timeout=3",
        "--depth",
        "0",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("isr.all_isr.linearizable.default [lag_timeout=3]: all 1 distinct states"),
        "{text}"
    );
    let err = stderr(&out);
    assert!(
        err.contains("skipped isr.all_isr.linearizable.fetch_elr_no_flush")
            && !text.contains("fetch_elr_no_flush"),
        "{err}"
    );
    // No row with the knob: a usage error naming the knobs there are.
    let out = xtask(&["check", "--protocol", "async", "--knob", "lag_timeout=3"]);
    assert_usage_error(&out, "has no knob `lag_timeout`");
}

/// `check` on ISR's leader/leader rows with `extra`: its output, once it
/// succeeded.
fn check_isr_leader(extra: &[&str]) -> String {
    let mut args = vec![
        "check",
        "--protocol",
        "isr",
        "--ack",
        "leader",
        "--read",
        "leader",
    ];
    args.extend_from_slice(extra);
    let out = xtask(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn check_swarm_walks_say_so_and_need_walks() {
    let text = check_isr_leader(&["--depth", "4", "--walks", "20", "--swarm"]);
    assert!(
        text.contains("on 20 random swarm walks of 4 steps (seed 0)"),
        "{text}"
    );
    // Without --walks there is nothing to swarm: a usage error.
    let out = xtask(&["check", "--protocol", "isr", "--swarm"]);
    assert_usage_error(&out, "--walks");
}

#[test]
fn check_with_the_nodes_view_says_it_is_not_exhaustive() {
    let text = check_isr_leader(&["--setting", "default", "--depth", "3", "--view", "nodes"]);
    assert!(
        text.contains(
            "distinct states without their messages in flight (not exhaustive) within 3 steps"
        ),
        "{text}"
    );
    // A walk judges every state it meets: there is nothing to merge.
    let out = xtask(&[
        "check",
        "--protocol",
        "isr",
        "--view",
        "nodes",
        "--walks",
        "5",
    ]);
    assert_usage_error(&out, "--walks");
    let out = xtask(&["check", "--protocol", "isr", "--view", "messages"]);
    assert_usage_error(&out, "unknown view `messages`");
}
