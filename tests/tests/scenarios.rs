//! Scenario files (`crates/labs/scenarios/*.txt`, see the `scenario` crate):
//! each matches its expected blocks on every protocol, `--rewrite`
//! round-trips, a malformed file is `file:line: message`, and the matrix
//! runs are the variant parts of the seven experiment files
//! (`labs::experiments`), each computed from the answers it recorded.

use std::path::PathBuf;

use scenario::{Registry, Scenario};

fn registry() -> Registry {
    labs::registry()
}

fn scenario_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/labs/scenarios")
}

/// Every scenario file, sorted by name, with its text.
fn scenario_files() -> Vec<(String, String)> {
    let files = txt_files(&scenario_dir(), "crates/labs/scenarios");
    assert!(files.len() >= 2, "the example and experiment 2 are there");
    files
}

/// The `.txt` files in `dir`, sorted, each named `shown/FILE` with its text.
fn txt_files(dir: &std::path::Path, shown: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{shown}: {e}"))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .map(|path| {
            let name = format!(
                "{shown}/{}",
                path.file_name().expect("a file name").to_string_lossy()
            );
            let text = std::fs::read_to_string(&path).expect("readable scenario");
            (name, text)
        })
        .collect();
    files.sort();
    files
}

/// The hands-on exercises of `docs/exercises.md` as scenario files.
fn exercise_files() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/exercises");
    txt_files(&dir, "docs/exercises")
}

#[test]
fn every_hands_on_exercise_is_a_scenario_file_that_matches_its_expected_output() {
    let files = exercise_files();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "docs/exercises/async-backlog.txt",
            "docs/exercises/isr-min-insync.txt",
            "docs/exercises/raft-majority.txt",
            "docs/exercises/wal-promote.txt",
        ]
    );
    for (name, text) in files {
        let s = parsed(&name, &text);
        let outputs = scenario::run_protocols(&s, &labs::BUILTIN, &registry());
        assert_eq!(
            scenario::render(&s, &outputs, true, &registry()),
            text,
            "{name} differs from this run (accept with `cargo xtask run {name} --rewrite`)"
        );
    }
}

#[test]
fn the_exercise_files_show_the_reference_answers() {
    let text = |name: &str| {
        exercise_files()
            .into_iter()
            .find(|(n, _)| n.ends_with(name))
            .map(|(_, t)| t)
            .unwrap_or_else(|| panic!("{name}"))
    };
    // async 3: exactly backlog_size missed writes resynchronise partially.
    let backlog = text("async-backlog.txt");
    assert!(backlog.contains("async: replica-1: role=replica offset=4 catch-up=partial"));
    assert!(backlog.contains("async: replica-1: role=replica offset=5 catch-up=full"));
    // wal 2: promoting the cut-off asynchronous standby loses the write.
    let promote = text("wal-promote.txt");
    assert!(promote.contains("wal: value=v node=standby-1 offset=1 (LEADER)"));
    assert!(promote.contains("wal: value=<none> node=standby-2 offset=0 (LEADER)"));
    // raft 3: five nodes (`nodes=5`) survive two cut-off followers, not three.
    let majority = text("raft-majority.txt");
    assert!(majority.contains("raft: value=v2 node=node-2 offset=3 (LINEARIZABLE)"));
    assert!(majority.contains("raft: unknown offset=4 (QUORUM)"));
    assert!(majority.contains("heard 2 of 5 nodes"));
}

#[test]
fn a_node_count_setting_names_the_new_nodes_and_is_checked() {
    // Literal ids of the grown groups parse after `config nodes=5` (and
    // only there); out-of-range counts are errors naming `nodes`.
    let text = "config nodes=5\n\ncrash node=replica-4\n\ncrash node=standby-4\n\n\
                isolate node=follower-4\n\n\
                crash node=node-5\n\nconfig nodes=12\n";
    let s = parsed("nodes.txt", text);
    let outputs = scenario::run_protocols(&s, &labs::BUILTIN, &registry());
    let shown = scenario::render(&s, &outputs, true, &registry());
    assert!(
        shown.contains("async: ok\nwal,isr,raft: error: unknown node replica-4"),
        "{shown}"
    );
    assert!(shown.contains("wal: ok"), "{shown}");
    assert!(shown.contains("raft: ok"), "{shown}");
    assert!(
        shown.contains(
            "error: invalid configuration `nodes`: `nodes=12`: this protocol's group has 2 to 9 nodes"
        ),
        "{shown}"
    );
    let e = scenario::parse("f.txt", "crash node=replica-4\n", &registry())
        .expect_err("replica-4 is not a node of the default groups");
    assert!(e.message.contains("unknown node `replica-4`"), "{e}");
}

fn parsed(name: &str, text: &str) -> Scenario {
    scenario::parse(name, text, &registry()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_scenario_file_matches_its_expected_output_on_every_protocol() {
    for (name, text) in scenario_files() {
        let s = parsed(&name, &text);
        let outputs = scenario::run_protocols(&s, &labs::BUILTIN, &registry());
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
        let outputs = scenario::run_protocols(&s, &labs::BUILTIN, &registry());
        assert_eq!(
            scenario::render(&s, &outputs, true, &registry()),
            text,
            "{name}"
        );
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
        let rewritten = scenario::render(
            &s,
            &scenario::run_protocols(&s, &labs::BUILTIN, &registry()),
            true,
            &registry(),
        );
        std::fs::write(&copy, &rewritten).expect("write the copy");
        let reread = std::fs::read_to_string(&copy).expect("read the copy");
        let again = parsed(&name, &reread);
        let outputs = scenario::run_protocols(&again, &labs::BUILTIN, &registry());
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
    let stale = text.replace("raft: value=v node=node-3 offset=3", "raft: value=STALE");
    assert_ne!(stale, text);
    let s = parsed(&name, &stale);
    let outputs = scenario::run_protocols(&s, &[labs::BUILTIN[3]], &registry());
    let differences = scenario::differences(&s, &outputs);
    assert!(!differences.is_empty());
    let shown = differences[0].to_string();
    assert!(shown.contains(&format!("{name}:")), "{shown}");
    assert!(shown.contains("- value=STALE"), "{shown}");
    assert_eq!(scenario::render(&s, &outputs, true, &registry()), text);
}

/// Each `(text, line, message)`: parsing `text` fails at `line` with an
/// error that is `bad.txt:LINE: …` and contains `message`.
fn assert_each_is_a_file_line_error(cases: &[(&str, usize, &str)]) {
    for &(text, line, message) in cases {
        let err = scenario::parse("bad.txt", text, &registry()).expect_err(text);
        let shown = err.to_string();
        assert_eq!(err.line, line, "{shown}");
        assert!(shown.starts_with(&format!("bad.txt:{line}: ")), "{shown}");
        assert!(shown.contains(message), "{shown}");
    }
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
        (
            "tick\n\ncrash node=follower-7\n",
            3,
            "`follower-7`: the groups here have at most 2 followers",
        ),
        (
            "config protocols=raft nodes=5\n\ncrash node=follower-5\n",
            3,
            "at most 4 followers",
        ),
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
        (
            "tick\nheal node=leader\n",
            2,
            "`heal node=leader` follows the directive on line 1 directly: every directive is a case of its own",
        ),
        ("tick\nnot a directive\n", 2, "expected `----`"),
    ];
    assert_each_is_a_file_line_error(&cases);
}

#[test]
fn a_malformed_part_or_label_is_a_file_line_message() {
    let cases = [
        ("config protocols=wal,etcd\n", 1, "unknown protocol `etcd`"),
        ("config variant=two words\n", 1, "unknown argument `words`"),
        ("config variant=a-b\n", 1, "letters, digits and `_`"),
        (
            "config synchronous_standby_names=\"FIRST x (standby-1)\"\n",
            1,
            "synchronous_standby_names",
        ),
        ("config synchronous_commit=local\n", 1, "synchronous_commit"),
        ("config as=x\n", 1, "unknown argument `as` for `config`"),
        ("tick as=t\n", 1, "unknown argument `as` for `tick`"),
        (
            "read key=k level=LOCAL as=r\n\nread key=k level=LOCAL as=r\n",
            3,
            "the name `r` is already used",
        ),
        (
            "read key=k level=LOCAL as=r\n\ngate node=leader write=r\n",
            3,
            "no `write … as=r` above",
        ),
        (
            "write key=k value=v level=weak as=w\n\nconfig\n\ngate node=leader write=w\n",
            5,
            "since the last config",
        ),
        (
            "write key=k value=v level=weak repeat=0\n",
            1,
            "from 1 to 10000",
        ),
        ("probe\n", 1, "`probe` needs `node=`"),
        (
            "fenced node=leader\n",
            1,
            "unknown argument `node` for `fenced`",
        ),
    ];
    assert_each_is_a_file_line_error(&cases);
}

/// Experiment `n`'s file from `labs::experiments::FILES`.
fn experiment_file(n: u8) -> labs::experiments::ExperimentFile {
    labs::experiments::FILES
        .into_iter()
        .find(|f| f.number == n)
        .expect("seven experiment files")
}

#[test]
fn every_matrix_run_is_its_parts_run_within_the_whole_file() {
    // The matrix runs each variant part alone; running the whole file gives
    // the same cells in the same order, so no part leans on the one before.
    for file in labs::experiments::FILES {
        for protocol in labs::BUILTIN {
            let whole =
                labs::experiments::observations(file.number, file.path, file.text, protocol)
                    .unwrap_or_else(|e| panic!("{}: {e}", file.path));
            let alone: Vec<(String, String)> = labs::run_specs(protocol)
                .iter()
                .filter(|spec| spec.experiment == file.number)
                .map(|spec| {
                    let run = spec.run().expect("the part runs");
                    (run.variant.to_owned(), run.cell())
                })
                .collect();
            let whole: Vec<(String, String)> =
                whole.into_iter().map(|(v, o)| (v, o.cell())).collect();
            assert_eq!(whole, alone, "{} on {protocol}", file.path);
            assert!(
                !alone.is_empty(),
                "{protocol} has a run of every experiment"
            );
        }
    }
}

#[test]
fn a_part_without_a_label_its_experiment_reads_is_an_error_naming_the_label() {
    let file = experiment_file(3);
    let text = file.text.replacen("fenced as=fenced", "fenced", 1);
    assert_ne!(text, file.text);
    let err = labs::experiments::observations(3, file.path, &text, labs::BUILTIN[1])
        .expect_err("the default part lost its `fenced` record");
    let shown = err.to_string();
    assert!(shown.contains("as=fenced"), "{shown}");
    assert!(shown.contains("wal variant default"), "{shown}");
}

#[test]
fn an_edited_experiment_file_changes_the_cell_it_computes() {
    // The cell is read from what the part observed: write a different value
    // and the experiment-2 cell reports it.
    let file = experiment_file(2);
    let text = file
        .text
        .replace("value=v level=strong as=ack", "value=w level=strong as=ack");
    let cells =
        labs::experiments::observations(2, file.path, &text, labs::BUILTIN[3]).expect("runs");
    assert_eq!(cells[0].0, "default");
    assert_eq!(cells[0].1.cell(), "survived (new leader node-3 reads w)");
}

#[test]
fn a_part_for_some_protocols_prints_nothing_on_the_others() {
    let text = "config protocols=wal variant=x\n\ntick\n\nconfig\n\ntick\n";
    let s = parsed("t.txt", text);
    let outputs = scenario::run_protocols(&s, &labs::BUILTIN, &registry());
    assert_eq!(outputs[1].1[1], vec!["tick=1".to_owned()]);
    assert!(outputs[3].1[0].is_empty());
    assert!(outputs[3].1[1].is_empty());
    assert_eq!(outputs[3].1[3].len(), 1, "the next part runs");
    let rendered = scenario::render(&s, &outputs, false, &registry());
    assert!(rendered.contains("tick\n----\nwal: tick=1\n"), "{rendered}");
    // The rendered file round-trips: skipped protocols are not differences.
    let again = parsed("t.txt", &rendered);
    assert!(scenario::differences(&again, &outputs).is_empty());
}

#[test]
fn write_repeat_makes_n_writes_and_stops_at_the_first_refusal() {
    let text = "write key=k value=v level=weak repeat=3\n\nsummary fields=data\n\n\
                isolate node=follower-1\n\nisolate node=follower-2\n\n\
                write key=k value=x level=strong repeat=2\n";
    let s = parsed("t.txt", text);
    let wal = scenario::run(&s, labs::BUILTIN[1], &registry());
    assert_eq!(
        wal[0],
        vec!["3 writes, the last acked offset=3 (LEADER)".to_owned()]
    );
    assert!(
        wal[1].iter().any(|l| l.contains("data={k=v3}")),
        "{:?}",
        wal[1]
    );
    let raft = scenario::run(&s, labs::BUILTIN[3], &registry());
    assert!(
        raft[4][0].starts_with("write 1 of 2: unknown offset="),
        "{:?}",
        raft[4]
    );
}

#[test]
fn a_part_whose_group_cannot_be_built_is_an_error_saying_why() {
    let text = "config variant=broken min_insync=9\n\nwrite key=k value=v level=strong as=ack\n";
    let err = labs::experiments::observations(2, "t.txt", text, labs::BUILTIN[2])
        .expect_err("isr refuses min.insync 9 with 3 replicas");
    let shown = err.to_string();
    assert!(shown.contains("isr variant broken"), "{shown}");
    assert!(shown.contains("could not be built"), "{shown}");
    assert!(shown.contains("min_insync"), "{shown}");
}

#[test]
fn a_crashed_raft_node_s_summary_shows_the_log_it_kept_not_only_an_empty_state() {
    // node-1 holds entry 2 in its log but had not applied it when it
    // crashed: its applied state is empty, its log is not.
    let text = "config protocols=raft\n\nwrite key=k value=v level=QUORUM\n\n\
                crash node=follower-1\n\nsummary fields=alive,offset,data\n";
    let s = parsed("crash.txt", text);
    let outputs = scenario::run_protocols(&s, &labs::BUILTIN, &registry());
    let shown = scenario::render(&s, &outputs, true, &registry());
    assert!(
        shown.contains(
            "raft: node-1: down offset=0 data={} (crashed; its state line: term 1, log 2, commit 0)"
        ),
        "{shown}"
    );
    assert!(
        shown.contains("raft: node-2: up offset=2 data={k=v}\n"),
        "{shown}"
    );
}

#[test]
fn async_takes_retention_as_its_backlog_like_wal_and_isr() {
    let part = |retention: u32| {
        format!(
            "config protocols=async retention={retention}\n\ncrash node=replica-1\n\n\
             write key=k value=v level=LEADER repeat=5\n\nrestart node=replica-1\n\n\
             run-until-idle\n\nprobe node=replica-1\n"
        )
    };
    let shown = |text: &str| {
        let s = parsed("retention.txt", text);
        let outputs = scenario::run_protocols(&s, &labs::BUILTIN, &registry());
        scenario::render(&s, &outputs, true, &registry())
    };
    assert!(shown(&part(4)).contains("async: replica-1: role=replica offset=5 catch-up=full"));
    assert!(shown(&part(5)).contains("async: replica-1: role=replica offset=5 catch-up=partial"));
    let both = shown("config protocols=async retention=4 backlog=5\n");
    assert!(
        both.contains(
            "invalid configuration `retention`: `retention=4` and `backlog=5` name the same setting"
        ),
        "{both}"
    );
    let raft = shown("config retention=3\n");
    assert!(
        raft.contains("async,wal,isr: ok\nraft: ok; ignored: retention (async, wal, isr only)"),
        "{raft}"
    );
}
