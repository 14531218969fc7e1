//! Scenario files (`crates/labs/scenarios/*.txt`, see `labs::scenario`):
//! each matches its expected blocks on every protocol, `--rewrite`
//! round-trips, a malformed file is `file:line: message`, and experiment 2
//! as a scenario shows the matrix's survived / lost outcomes.

use std::path::PathBuf;

use labs::Protocol;
use labs::scenario::{self, Scenario};

fn scenario_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/labs/scenarios")
}

/// Every scenario file, sorted by name, with its text.
fn scenario_files() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(scenario_dir())
        .expect("crates/labs/scenarios exists")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .map(|path| {
            let name = format!(
                "crates/labs/scenarios/{}",
                path.file_name().expect("a file name").to_string_lossy()
            );
            let text = std::fs::read_to_string(&path).expect("readable scenario");
            (name, text)
        })
        .collect();
    files.sort();
    assert!(files.len() >= 2, "the example and experiment 2 are there");
    files
}

fn parsed(name: &str, text: &str) -> Scenario {
    scenario::parse(name, text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_scenario_file_matches_its_expected_output_on_every_protocol() {
    for (name, text) in scenario_files() {
        let s = parsed(&name, &text);
        let outputs = scenario::run_protocols(&s, &Protocol::ALL);
        let differences = scenario::differences(&s, &outputs);
        let report: String = differences.iter().map(ToString::to_string).collect();
        assert!(
            differences.is_empty(),
            "{name} differs (- expected, + this run; accept with \
             `cargo xtask run {name} --rewrite`):\n{report}"
        );
    }
}

#[test]
fn committed_scenarios_are_in_the_canonical_form_rewrite_writes() {
    for (name, text) in scenario_files() {
        let s = parsed(&name, &text);
        let outputs = scenario::run_protocols(&s, &Protocol::ALL);
        assert_eq!(scenario::render(&s, &outputs, true), text, "{name}");
    }
}

#[test]
fn rewrite_of_a_scenario_without_expectations_round_trips() {
    let dir = std::env::temp_dir().join(format!("minidist-scenarios-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, text) in scenario_files() {
        // The directives alone: every `----` block dropped.
        let bare: String = {
            let mut out = String::new();
            let mut in_block = false;
            for line in text.lines() {
                if line == "----" {
                    in_block = true;
                } else if line.trim().is_empty() {
                    in_block = false;
                }
                if !in_block {
                    out.push_str(line);
                    out.push('\n');
                }
            }
            out
        };
        let copy = dir.join(name.replace('/', "_"));
        let s = parsed(&name, &bare);
        assert!(s.cases.iter().all(|c| c.expected.is_empty()));
        let rewritten = scenario::render(&s, &scenario::run_protocols(&s, &Protocol::ALL), true);
        std::fs::write(&copy, &rewritten).expect("write the copy");
        let reread = std::fs::read_to_string(&copy).expect("read the copy");
        let again = parsed(&name, &reread);
        let outputs = scenario::run_protocols(&again, &Protocol::ALL);
        assert!(scenario::differences(&again, &outputs).is_empty(), "{name}");
        assert_eq!(
            reread, text,
            "{name}: rewrite reproduces the committed file"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rewrite_of_one_protocol_keeps_the_other_protocols_rows() {
    let (name, text) = scenario_files()
        .into_iter()
        .find(|(n, _)| n.ends_with("02-crash-after-ack.txt"))
        .expect("experiment 2 scenario");
    let stale = text.replace("raft: value=v node=node-1 offset=3", "raft: value=STALE");
    assert_ne!(stale, text);
    let s = parsed(&name, &stale);
    let outputs = scenario::run_protocols(&s, &[Protocol::Raft]);
    let differences = scenario::differences(&s, &outputs);
    assert!(!differences.is_empty());
    let shown = differences[0].to_string();
    assert!(shown.contains(&format!("{name}:")), "{shown}");
    assert!(shown.contains("- value=STALE"), "{shown}");
    assert_eq!(scenario::render(&s, &outputs, true), text);
}

#[test]
fn a_malformed_scenario_is_a_file_line_message() {
    let cases = [
        ("tick\n\nwirte key=k\n", 3, "unknown directive `wirte`"),
        (
            "write key=k value=v level=STRONGEST\n",
            1,
            "unknown write level `STRONGEST`",
        ),
        (
            "read key=k level=authority nod=leader\n",
            1,
            "unknown argument `nod`",
        ),
        ("isolate node=primary-9\n", 1, "unknown node `primary-9`"),
        ("config quorum=2\n", 1, "unknown config setting `quorum`"),
        (
            "config pre_vote=yes\n",
            1,
            "`pre_vote=yes`: not `true` or `false`",
        ),
        ("config check_quorum=1\n", 1, "not `true` or `false`"),
        (
            "config min_replicas=-1\n",
            1,
            "`min_replicas=-1`: not a whole number",
        ),
        (
            "config snapshot_threshold=many\n",
            1,
            "`snapshot_threshold=many`: not a whole number",
        ),
        ("tick n=three\n", 1, "not a whole number"),
        ("lease-read key=k\n", 1, "`lease-read` needs `node=`"),
        ("lease-read node=leader\n", 1, "`lease-read` needs `key=`"),
        (
            "lease-read key=k node=leader level=LOCAL\n",
            1,
            "unknown argument `level` for `lease-read`",
        ),
        ("lease-read key=k node=node-9\n", 1, "unknown node `node-9`"),
        ("tick n=2000000\n", 1, "at most 1000000 ticks"),
        ("await op=w1\n", 1, "no `submit"),
        (
            "tick\n----\nasync: tick=1\nwal tick=1\n",
            4,
            "per-protocol block",
        ),
        ("write key=k level=weak\n", 1, "needs `value=`"),
        ("tick\nheal node=leader\n", 2, "expected `----`"),
    ];
    for (text, line, message) in cases {
        let err = scenario::parse("bad.txt", text).expect_err(text);
        let shown = err.to_string();
        assert_eq!(err.line, line, "{shown}");
        assert!(shown.starts_with(&format!("bad.txt:{line}: ")), "{shown}");
        assert!(shown.contains(message), "{shown}");
    }
}

/// The value the last `read` of each `config` part printed on `protocol`.
fn last_reads(s: &Scenario, outputs: &[Vec<String>]) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    for (case, output) in s.cases.iter().zip(outputs) {
        match case.text.split_whitespace().next() {
            Some("config") => parts.push(String::new()),
            Some("read") => {
                if let Some(last) = parts.last_mut() {
                    *last = output.join("\n");
                }
            }
            _ => {}
        }
    }
    parts
}

#[test]
fn crash_after_ack_scenario_shows_the_matrix_survived_and_lost_outcomes() {
    let (name, text) = scenario_files()
        .into_iter()
        .find(|(n, _)| n.ends_with("02-crash-after-ack.txt"))
        .expect("experiment 2 scenario");
    let s = parsed(&name, &text);
    for protocol in Protocol::ALL {
        let outputs = scenario::run_protocol(&s, protocol);
        let reads = last_reads(&s, &outputs);
        assert_eq!(reads.len(), 2, "{protocol}: a weak part and a strong part");
        let variants = labs::variants(protocol, 2);
        for (part, read) in reads.iter().enumerate() {
            // Part 0 is the weak level, part 1 the strong one; async and
            // raft use their default run for both (their other variants
            // change a setting, not the level).
            let variant = match (protocol, part) {
                (_, 0) => variants[0],
                (Protocol::Wal, _) => "quorum",
                (Protocol::Isr, _) => "all_isr",
                _ => variants[0],
            };
            let run = labs::run_one(protocol, 2, Some(variant)).expect("experiment 2 runs");
            let matrix = run.observed.as_crash_after_ack().expect("experiment 2");
            let survived = read.starts_with("value=v ");
            assert_eq!(
                survived,
                matrix.survived,
                "{protocol} {variant}: scenario read `{read}`, matrix cell `{}`",
                run.cell()
            );
        }
    }
}

/// The scenario file whose name ends with `suffix`, parsed.
fn scenario_named(suffix: &str) -> Scenario {
    let (name, text) = scenario_files()
        .into_iter()
        .find(|(n, _)| n.ends_with(suffix))
        .unwrap_or_else(|| panic!("{suffix} is a scenario file"));
    parsed(&name, &text)
}

/// Each `config` part of a run: its cases as (directive, output joined by
/// line breaks), in order.
fn parts(s: &Scenario, outputs: &[Vec<String>]) -> Vec<Vec<(String, String)>> {
    let mut parts: Vec<Vec<(String, String)>> = Vec::new();
    for (case, output) in s.cases.iter().zip(outputs) {
        if case.text.starts_with("config") || parts.is_empty() {
            parts.push(Vec::new());
        }
        if let Some(part) = parts.last_mut() {
            part.push((case.text.clone(), output.join("\n")));
        }
    }
    parts
}

/// The outputs of the cases of `part` whose directive starts with `prefix`.
fn outputs_of<'a>(part: &'a [(String, String)], prefix: &str) -> Vec<&'a str> {
    part.iter()
        .filter(|(d, _)| d.starts_with(prefix))
        .map(|(_, o)| o.as_str())
        .collect()
}

/// The value a read printed (`value=V node=…`): `Some(None)` for `<none>`,
/// `None` when the read was not served.
fn read_value(output: &str) -> Option<Option<String>> {
    let rest = output.strip_prefix("value=")?;
    let value = rest.split_whitespace().next()?;
    Some((value != "<none>").then(|| value.to_owned()))
}

fn text(value: Option<&bytes::Bytes>) -> Option<String> {
    value.map(|b| String::from_utf8_lossy(b).into_owned())
}

/// The matrix's observation of `experiment` for `protocol` and `variant`.
fn matrix_run(protocol: Protocol, experiment: u8, variant: &str) -> labs::Run {
    labs::run_one(protocol, experiment, Some(variant))
        .unwrap_or_else(|e| panic!("{protocol} {experiment} {variant}: {e}"))
}

#[test]
fn normal_replication_scenario_shows_the_matrix_follower_values_at_ack_and_after() {
    let s = scenario_named("01-normal-replication.txt");
    for protocol in Protocol::ALL {
        let outputs = scenario::run_protocol(&s, protocol);
        let parts = parts(&s, &outputs);
        assert_eq!(parts.len(), 2, "{protocol}: a weak part and a strong part");
        for (i, part) in parts.iter().enumerate() {
            let variant = match (protocol, i) {
                (Protocol::Wal, 0) => "leader",
                (Protocol::Wal, _) => "quorum",
                (Protocol::Isr, 0) => "leader",
                (Protocol::Isr, _) => "all_isr",
                _ => "default",
            };
            let run = matrix_run(protocol, 1, variant);
            let matrix = run.observed.as_normal().expect("experiment 1");
            let reads = outputs_of(part, "read key=k level=weak node=follower-1");
            assert_eq!(reads.len(), 2, "{protocol}: at the ack and after");
            let at_ack = read_value(reads[0]).expect("the follower serves LOCAL");
            let after = read_value(reads[1]).expect("the follower serves LOCAL");
            assert_eq!(
                (at_ack, after),
                (
                    text(matrix.follower_at_ack.as_ref()),
                    text(matrix.follower_after.as_ref())
                ),
                "{protocol} {variant}: matrix cell `{}`",
                run.cell()
            );
            let write = outputs_of(part, "write")[0];
            assert_eq!(
                write.starts_with("acked "),
                matrix.acked,
                "{protocol}: {write}"
            );
        }
    }
}

#[test]
fn slow_replica_scenario_shows_the_matrix_availability_and_staleness() {
    let s = scenario_named("04-slow-replica.txt");
    for protocol in Protocol::ALL {
        let outputs = scenario::run_protocol(&s, protocol);
        let parts = parts(&s, &outputs);
        assert_eq!(
            parts.len(),
            2,
            "{protocol}: defaults, then the follower counts"
        );
        for (i, part) in parts.iter().enumerate() {
            let variant = match (protocol, i) {
                (Protocol::Wal, 1) => "sync_standby",
                (Protocol::Isr, 1) => "min_insync_3",
                _ => "default",
            };
            let run = matrix_run(protocol, 4, variant);
            let matrix = run.observed.as_slow().expect("experiment 4");
            let write = outputs_of(part, "write")[0];
            let read = outputs_of(part, "read key=k level=weak node=follower-2")[0];
            let stale = read_value(read).expect("the cut-off follower serves LOCAL")
                != Some("v".to_owned());
            assert_eq!(
                (write.starts_with("acked "), stale),
                (matrix.write_available, matrix.slow_replica_stale),
                "{protocol} {variant}: write `{write}`, read `{read}`, matrix cell `{}`",
                run.cell()
            );
            if protocol == Protocol::Isr {
                let trace = outputs_of(part, "trace")[0];
                assert_eq!(
                    trace.contains("isr_member_removed node=node-3"),
                    matrix.membership.contains("removed from ISR"),
                    "{variant}: {trace}"
                );
            }
        }
    }
}

/// `stale`, `fresh`, `unsupported` or `blocked`, as experiment 6 classifies
/// a read of `v`.
fn read_outcome(output: &str) -> &'static str {
    match read_value(output) {
        Some(Some(v)) if v == "v" => "fresh",
        Some(_) => "stale",
        None if output.contains("does not support read level") => "unsupported",
        None if output.contains(" blocked ") => "blocked",
        None => panic!("not a read-level answer: {output}"),
    }
}

#[test]
fn read_levels_scenario_shows_the_matrix_stale_fresh_unsupported_blocked() {
    let s = scenario_named("06-read-levels.txt");
    for protocol in Protocol::ALL {
        let outputs = scenario::run_protocol(&s, protocol);
        let part = &parts(&s, &outputs)[0];
        let run = matrix_run(protocol, 6, "default");
        let matrix = run.observed.as_reads().expect("experiment 6");
        let seen: Vec<&str> = outputs_of(part, "read")
            .into_iter()
            .map(read_outcome)
            .collect();
        assert_eq!(
            seen,
            [
                matrix.local.name(),
                matrix.leader.name(),
                matrix.linearizable.name()
            ],
            "{protocol}: matrix cell `{}`",
            run.cell()
        );
    }
}

#[test]
fn minority_leader_scenario_shows_the_matrix_old_write_partition_reads_and_values_after_heal() {
    let s = scenario_named("03-minority-leader.txt");
    for protocol in Protocol::ALL {
        let outputs = scenario::run_protocol(&s, protocol);
        let parts = parts(&s, &outputs);
        assert_eq!(
            parts.len(),
            2,
            "{protocol}: defaults, then fencing settings"
        );
        for (i, part) in parts.iter().enumerate() {
            let variant = match (protocol, i) {
                (Protocol::Async, 1) => "min_replicas_1",
                (Protocol::Raft, 1) => "prevote",
                _ => "default",
            };
            let run = matrix_run(protocol, 3, variant);
            let matrix = run.observed.as_minority().expect("experiment 3");
            let writes = outputs_of(part, "write key=k value=");
            let old_write = outputs_of(part, "write key=k value=minority")[0];
            let new_write = outputs_of(part, "write key=k value=majority")[0];
            assert_eq!(writes.len(), 3, "{protocol}: base, minority, majority");
            let reads: Vec<Option<String>> = outputs_of(part, "read key=k level=LOCAL")
                .into_iter()
                .map(|r| read_value(r).expect("a LOCAL read is served"))
                .collect();
            assert_eq!(reads.len(), 4, "{protocol}: both sides, during and after");
            let seen = (
                old_write.starts_with("acked "),
                new_write.starts_with("acked "),
                reads,
            );
            let expected = (
                matrix.old_write_acked,
                matrix.new_write_acked,
                vec![
                    text(matrix.old_side_value.as_ref()),
                    text(matrix.new_side_value.as_ref()),
                    text(matrix.minority_value.as_ref()),
                    text(matrix.majority_value.as_ref()),
                ],
            );
            assert_eq!(
                seen,
                expected,
                "{protocol} {variant}: matrix cell `{}`",
                run.cell()
            );
        }
    }
}

/// The catch-up mode a reconnect's `trace` printed, in the matrix's words.
fn catch_up_mode(trace: &str) -> String {
    let first = trace.lines().next().unwrap_or_default();
    if let Some((_, rest)) = first.split_once("mode=\"") {
        return rest.split('"').next().unwrap_or_default().to_owned();
    }
    let kind = first.split_whitespace().nth(2).unwrap_or_default();
    match kind {
        "async_partial_sync_applied" => "partial",
        "async_full_sync_applied" | "wal_catchup_full" => "full",
        "wal_catchup_incremental" => "incremental",
        _ => panic!("no catch-up event in `{trace}`"),
    }
    .to_owned()
}

#[test]
fn reconnect_scenario_shows_the_matrix_catch_up_modes_inside_and_outside_retention() {
    let s = scenario_named("05-reconnect.txt");
    for protocol in Protocol::ALL {
        let outputs = scenario::run_protocol(&s, protocol);
        let part = &parts(&s, &outputs)[0];
        let run = matrix_run(protocol, 5, "default");
        let matrix = run.observed.as_reconnect().expect("experiment 5");
        let modes: Vec<String> = outputs_of(part, "trace")
            .into_iter()
            .map(catch_up_mode)
            .collect();
        assert_eq!(
            modes,
            [matrix.inside_window.clone(), matrix.outside_window.clone()],
            "{protocol}: matrix cell `{}`",
            run.cell()
        );
    }
}

/// What the LINEARIZABLE attempt at the old leader printed, in the
/// matrix's guard words: `unsupported`, the blocking guard's name, or
/// `served V`.
fn guard(output: &str) -> String {
    if output.contains("does not support read level") {
        return "unsupported".to_owned();
    }
    if let Some((_, rest)) = output.split_once(" blocked (") {
        return rest.split("): ").next().unwrap_or_default().to_owned();
    }
    match read_value(output) {
        Some(value) => format!("served {}", value.unwrap_or_else(|| "none".to_owned())),
        None => format!("error: {output}"),
    }
}

#[test]
fn split_brain_scenario_shows_the_matrix_old_local_current_side_and_guard() {
    let s = scenario_named("07-split-brain-read.txt");
    for protocol in Protocol::ALL {
        let outputs = scenario::run_protocol(&s, protocol);
        let parts = parts(&s, &outputs);
        assert_eq!(parts.len(), 2, "{protocol}: defaults, then CheckQuorum");
        for (i, part) in parts.iter().enumerate() {
            let variant = match (protocol, i) {
                (Protocol::Raft, 1) => "check_quorum",
                _ => "default",
            };
            let run = matrix_run(protocol, 7, variant);
            let matrix = run.observed.as_split_brain().expect("experiment 7");
            let old_local = read_value(outputs_of(part, "read key=k level=LOCAL")[0]);
            let current = read_value(outputs_of(part, "read key=k level=authority")[0]);
            assert_eq!(
                (old_local, current),
                (
                    Some(text(matrix.old_local.as_ref())),
                    Some(text(matrix.current.as_ref()))
                ),
                "{protocol} {variant}: matrix cell `{}`",
                run.cell()
            );
            // isr's guard is its own call, `lease-read`; the others' is a
            // LINEARIZABLE read addressed to the old leader.
            let attempt = if protocol == Protocol::Isr {
                outputs_of(part, "lease-read key=k node=old-leader")[0]
            } else {
                outputs_of(part, "read key=k level=LINEARIZABLE node=old-leader")[0]
            };
            assert_eq!(
                guard(attempt),
                matrix.guard,
                "{protocol} {variant}: `{attempt}`, matrix cell `{}`",
                run.cell()
            );
        }
    }
}
