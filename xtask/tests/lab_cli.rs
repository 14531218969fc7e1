//! `cargo xtask lab`, run as a teacher and a student would — without
//! building a student crate (`.ci/run` builds and grades one, and
//! `lab calibrate` runs the grader's controls).

use std::path::PathBuf;
use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("xtask runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A directory that does not exist yet.
fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minidist-lab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn lab_start_writes_a_crate_on_this_checkout_and_refuses_to_overwrite_one() {
    let dir = fresh("start");
    let out = xtask(&["lab", "start", "raft", dir.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("lab grade"),
        "{}",
        text(&out.stdout)
    );
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the checkout")
        .display()
        .to_string();
    assert!(
        manifest.contains(&format!("{workspace}/crates/proto-raft")),
        "{manifest}"
    );
    assert!(manifest.contains("[workspace]"), "its own workspace");
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).expect("lib.rs");
    assert_eq!(lib, grader::skeleton(grader::Lab::Raft));
    assert!(lib.contains("todo!(\"stage 2: commits\")"));
    let main = std::fs::read_to_string(dir.join("src/main.rs")).expect("main.rs");
    assert!(
        main.contains("grader::Student::Raft(&raft_lab::Student)"),
        "{main}"
    );
    assert!(dir.join("scenarios/raft-4-prevote.txt").is_file());
    assert!(
        dir.join("Cargo.lock").is_file(),
        "the checkout's pinned versions"
    );
    let config = std::fs::read_to_string(dir.join(".cargo/config.toml")).expect("config");
    assert!(
        config.contains(&format!("{workspace}/target/lab")),
        "{config}"
    );

    let again = xtask(&["lab", "start", "raft", dir.to_str().expect("utf-8")]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("is not empty"),
        "{}",
        text(&again.stderr)
    );
    std::fs::remove_dir_all(&dir).expect("cleaned up");
}

#[test]
fn lab_grade_names_what_it_needs() {
    let out = xtask(&["lab", "grade"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("needs the lab crate's directory"),
        "{}",
        text(&out.stderr)
    );
    let dir = fresh("empty");
    std::fs::create_dir_all(&dir).expect("dir");
    let out = xtask(&["lab", "grade", dir.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("has no Cargo.toml"),
        "{}",
        text(&out.stderr)
    );
    let out = xtask(&["lab", "grade", dir.to_str().expect("utf-8"), "--stage", "0"]);
    assert_eq!(out.status.code(), Some(2), "stage 0 is a usage error");
    std::fs::remove_dir_all(&dir).expect("cleaned up");
}

#[test]
fn lab_stages_lists_each_stage_with_its_functions_and_checks() {
    let out = xtask(&["lab", "stages", "isr"]);
    assert!(out.status.success());
    let listed = text(&out.stdout);
    assert!(
        listed.contains("isr lab, stage 3: ISR shrink on lag"),
        "{listed}"
    );
    assert!(
        listed.contains("you write: caught_up, lagging, admits"),
        "{listed}"
    );
    assert!(listed.contains("scenario isr-3-min-insync.txt"), "{listed}");
    assert_eq!(
        listed.matches("explorer at ALL_ISR/LINEARIZABLE").count(),
        5
    );
}
