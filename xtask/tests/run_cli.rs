//! `cargo xtask run FILE [--protocol P] [--rewrite]`, run as a user would.

use std::path::PathBuf;
use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("xtask runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/labs/scenarios/example-split-brain.txt")
}

fn temp_file(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minidist-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

#[test]
fn run_prints_every_protocols_output_and_passes_on_the_example() {
    let path = example();
    let out = xtask(&["run", path.to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for row in ["async: ", "wal: ", "isr: ", "raft: "] {
        assert!(stdout.contains(row), "{row} missing:\n{stdout}");
    }
    assert_eq!(stdout, std::fs::read_to_string(&path).expect("example"));
}

#[test]
fn run_with_one_protocol_prints_only_its_rows() {
    let path = example();
    let out = xtask(&[
        "run",
        path.to_str().expect("utf-8 path"),
        "--protocol",
        "raft",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("raft: acked offset=2 (QUORUM)"), "{stdout}");
    for line in stdout.lines().filter(|l| !l.starts_with('#')) {
        assert!(
            !["async", "wal", "isr"]
                .iter()
                .any(|p| line.contains(&format!("{p}:"))),
            "{line}"
        );
    }
}

#[test]
fn rewrite_fills_in_a_user_scenario_and_a_rerun_matches() {
    let path = temp_file(
        "user.txt",
        "# mine\nwrite key=k value=v level=strong\n\ncrash node=leader\n\nfailover\n\nread key=k level=authority\n",
    );
    let p = path.to_str().expect("utf-8 path");
    let out = xtask(&["run", p]);
    assert_eq!(out.status.code(), Some(1), "no expectations yet");
    assert!(
        text(&out.stderr).contains("no expected output"),
        "{}",
        text(&out.stderr)
    );
    let out = xtask(&["run", p, "--rewrite"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rewritten = std::fs::read_to_string(&path).expect("rewritten");
    assert!(
        rewritten.contains("----\nasync: acked offset=1 (LEADER)"),
        "{rewritten}"
    );
    let out = xtask(&["run", p]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = xtask(&["run", p, "--rewrite"]);
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&path).expect("same"), rewritten);
}

#[test]
fn a_malformed_scenario_exits_1_with_file_line_message() {
    let path = temp_file("bad.txt", "tick\n\nisolate node=leader nodes=2\n");
    let p = path.to_str().expect("utf-8 path");
    let out = xtask(&["run", p]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("{p}:3: unknown argument `nodes` for `isolate`")),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn the_tour_of_directives_prints_what_it_expects_state_lines_and_trace_globs_included() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(["run", "crates/labs/scenarios/tour-of-directives.txt"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("xtask runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("isr: node-2: leader HW 2 ISR {node-2}"),
        "{text}"
    );
    assert!(
        text.contains("isr: #32 @3 isr_member_removed"),
        "the glob matched: {text}"
    );
    assert!(
        text.contains("no node shows a field `hw` (the fields: epoch, LEO, HW"),
        "{text}"
    );
}
