//! The `xtask` command line, run as a user would.

use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .expect("xtask runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn matrix_json_has_every_run_and_the_read_matrix() {
    let out = xtask(&["matrix", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("valid JSON");
    let runs = json["runs"].as_array().expect("runs array");
    assert_eq!(runs.len(), 34);
    for run in runs {
        for field in ["experiment", "protocol", "variant", "cell", "observed"] {
            assert!(!run[field].is_null(), "{field} missing in {run}");
        }
    }
    assert_eq!(json["read_matrix"]["isr"]["LINEARIZABLE"], "blocked");
    assert_eq!(json["read_matrix"]["raft"]["LINEARIZABLE"], "fresh");
}

#[test]
fn matrix_json_is_byte_identical_across_runs() {
    let a = xtask(&["matrix", "--json"]);
    let b = xtask(&["matrix", "--json"]);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn matrix_filters_by_protocol_and_experiment() {
    let out = xtask(&[
        "matrix",
        "--json",
        "--protocol",
        "raft",
        "--experiment",
        "6",
    ]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("valid JSON");
    let runs = json["runs"].as_array().expect("runs array");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["protocol"], "raft");
    assert_eq!(runs[0]["experiment"], 6);
}

#[test]
fn matrix_markdown_starts_with_the_table() {
    let out = xtask(&["matrix"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.contains("| # | experiment | async | wal | isr | raft |"),
        "{text}"
    );
    assert!(text.contains("| isr | stale | fresh | blocked |"), "{text}");
}

#[test]
fn matrix_check_fails_on_any_difference() {
    let dir = std::env::temp_dir().join(format!("minidist-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("good.md");
    assert!(
        xtask(&["matrix", "--write", good.to_str().expect("utf-8")])
            .status
            .success()
    );
    assert!(
        xtask(&["matrix", "--check", good.to_str().expect("utf-8")])
            .status
            .success()
    );
    let bad = dir.join("bad.md");
    let text = std::fs::read_to_string(&good)
        .expect("written")
        .replacen("fresh", "stale", 1);
    std::fs::write(&bad, text).expect("write");
    let out = xtask(&["matrix", "--check", bad.to_str().expect("utf-8")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("differs"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_protocol_is_a_clear_error() {
    let out = xtask(&["matrix", "--protocol", "paxos"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown protocol \"paxos\""));
}

#[test]
fn trace_prints_text_and_json_lines() {
    let text = xtask(&[
        "trace",
        "--experiment",
        "1",
        "--protocol",
        "isr",
        "--variant",
        "all_isr",
    ]);
    assert!(text.status.success());
    assert!(stdout(&text).starts_with("#0 @"));
    let jsonl = xtask(&[
        "trace",
        "--experiment",
        "1",
        "--protocol",
        "isr",
        "--variant",
        "all_isr",
        "--format",
        "jsonl",
    ]);
    assert!(jsonl.status.success());
    let events = sim_core::Trace::parse_jsonl(&stdout(&jsonl)).expect("parses");
    assert_eq!(events.len(), stdout(&text).lines().count());
}

#[test]
fn trace_of_an_unknown_variant_lists_the_available_ones() {
    let out = xtask(&[
        "trace",
        "--experiment",
        "4",
        "--protocol",
        "wal",
        "--variant",
        "nope",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("default") && err.contains("sync_standby"),
        "{err}"
    );
}
