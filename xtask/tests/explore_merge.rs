//! `cargo xtask explore --merge`: a sweep split into shards merges back
//! into exactly the table one run over the same seeds prints, and a shard
//! that is missing, given twice, cut short, or from another version or
//! seed range is an error naming the file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .env("MINIDIST_REEXEC", "0")
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("xtask runs")
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("minidist-merge-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a directory");
    d
}

/// The sweep of `async` over 12 schedules, in `n` shards, one file each.
fn shards(d: &Path, n: u64, schedules: &str) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let out = xtask(&[
                "explore",
                "--protocol",
                "async",
                "--schedules",
                schedules,
                "--jsonl",
                "--shard",
                &format!("{i}/{n}"),
            ]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let path = d.join(format!("shard-{i}-of-{n}.jsonl"));
            std::fs::write(&path, &out.stdout).expect("written");
            path
        })
        .collect()
}

fn merge(files: &[PathBuf]) -> Output {
    let mut args = vec!["explore".to_owned(), "--merge".to_owned()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    xtask(&args)
}

fn refused(out: &Output, says: &[&str]) {
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    for s in says {
        assert!(err.contains(s), "{s:?} not in {err}");
    }
}

#[test]
fn four_shards_merge_into_the_single_run_s_table_counterexamples_included() {
    let d = dir("equal");
    let files = shards(&d, 4, "12");
    let single = xtask(&["explore", "--protocol", "async", "--schedules", "12"]);
    let merged = merge(&files);
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&merged.stdout),
        String::from_utf8_lossy(&single.stdout)
    );
    assert!(
        String::from_utf8_lossy(&single.stdout).contains("violated"),
        "the sample has counterexamples to merge"
    );
    // The files' order does not matter.
    let reversed: Vec<PathBuf> = files.iter().rev().cloned().collect();
    assert_eq!(merge(&reversed).stdout, merged.stdout);
}

#[test]
fn a_missing_duplicated_truncated_or_foreign_shard_is_an_error_naming_the_file() {
    let d = dir("bad");
    let files = shards(&d, 3, "6");
    // Missing.
    refused(&merge(&files[..2]), &["shard 2/3 is missing"]);
    // Given twice.
    let twice = vec![
        files[0].clone(),
        files[1].clone(),
        files[2].clone(),
        files[1].clone(),
    ];
    refused(&merge(&twice), &["shard-1-of-3.jsonl", "was given already"]);
    // Cut short: the last line half written, or whole lines missing.
    let text = std::fs::read_to_string(&files[2]).expect("read");
    let cut = d.join("cut.jsonl");
    std::fs::write(&cut, &text[..text.len() / 2]).expect("written");
    refused(
        &merge(&[files[0].clone(), files[1].clone(), cut.clone()]),
        &["cut.jsonl"],
    );
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&cut, format!("{}\n", lines[..lines.len() - 5].join("\n"))).expect("written");
    refused(
        &merge(&[files[0].clone(), files[1].clone(), cut.clone()]),
        &["cut.jsonl", "cut short"],
    );
    // Another version.
    let other = d.join("other-version.jsonl");
    std::fs::write(&other, text.replace("\"version\":\"", "\"version\":\"9.")).expect("written");
    refused(
        &merge(&[files[0].clone(), files[1].clone(), other]),
        &["other-version.jsonl", "made by version 9."],
    );
    // Another seed range.
    let more = shards(&dir("more"), 3, "9");
    refused(
        &merge(&[files[0].clone(), files[1].clone(), more[2].clone()]),
        &["shard-2-of-3.jsonl", "another sweep"],
    );
}
