//! Chain replication registered with the laboratory by one line: it gets a
//! matrix column, scenario outputs and explorer verdicts, all computed from
//! runs, exactly as the built-in four do.

use explore::SweepOptions;
use labs::Protocol;
use proto_chain::ChainRegistration;

/// The one registration line.
fn registry() -> labs::Registry {
    labs::registry().with(Protocol::new(&ChainRegistration))
}

fn chain() -> Protocol {
    registry().named("chain").expect("registered")
}

#[test]
fn the_matrix_has_a_chain_column_computed_from_its_runs() {
    let runs = labs::all_runs_in(&registry()).expect("every experiment runs");
    let chain_runs: Vec<&labs::Run> = runs.iter().filter(|r| r.protocol == chain()).collect();
    assert!(
        chain_runs.len() == 7,
        "chain runs one part of every experiment (the unlisted or first default part): {}",
        chain_runs.len()
    );
    let markdown = labs::matrix::to_markdown(&runs);
    println!("{markdown}");
    let header = markdown
        .lines()
        .find(|l| l.contains("| async |"))
        .expect("a header row");
    assert!(header.trim_end().ends_with("| chain |"), "{header}");
    // Experiment 6 writes at the weak level (acknowledged by the head) and
    // reads before the write travels: the head is fresh, and the tail —
    // which alone answers LINEARIZABLE — does not hold it yet.
    let reads = labs::matrix::read_matrix(&runs);
    let (_, levels) = reads
        .iter()
        .find(|(p, _)| *p == chain())
        .expect("chain ran experiment 6");
    assert_eq!(
        levels,
        &[
            ("LOCAL", "stale"),
            ("LEADER", "fresh"),
            ("LINEARIZABLE", "stale")
        ]
    );
    // Experiment 2: a write the tail acknowledged survives the head's crash.
    let crash = runs
        .iter()
        .find(|r| r.protocol == chain() && r.experiment == 2)
        .expect("chain ran experiment 2");
    assert!(crash.cell().starts_with("survived"), "{}", crash.cell());
    // The built-in columns did not change.
    let builtin = labs::matrix::to_markdown(&labs::all_runs().expect("runs"));
    let committed = include_str!("../../../docs/matrix.md");
    assert_eq!(builtin, committed, "docs/matrix.md is the built-in matrix");
}

#[test]
fn a_scenario_file_runs_on_chain_beside_the_builtin_protocols() {
    let registry = registry();
    let text = "write key=k value=v level=strong\n\nread key=k level=authority\n\n\
                write key=k value=w level=TAIL\n\nfenced\n";
    let parsed = scenario::parse("t.txt", text, &registry).expect("parses");
    let outputs = scenario::run_protocols(&parsed, registry.protocols(), &registry);
    let rendered = scenario::render(&parsed, &outputs, false, &registry);
    println!("{rendered}");
    assert!(
        rendered.contains("chain: acked offset=1 (TAIL)"),
        "{rendered}"
    );
    assert!(
        rendered.contains("chain: value=v node=chain-3 offset=1 (TAIL)"),
        "{rendered}"
    );
    // Chain's own name for its strong write, in a scenario file: the
    // protocols without that name say so; nothing falls back to a weaker
    // level.
    assert!(
        rendered.contains("chain: acked offset=2 (TAIL)"),
        "{rendered}"
    );
    assert!(
        rendered.contains("error: isr has no write level called TAIL"),
        "{rendered}"
    );
}

#[test]
fn the_explorer_judges_every_chain_row() {
    let configs: Vec<explore::Configuration> = labs::explore_configs_in(&registry())
        .into_iter()
        .filter(|c| c.protocol == "chain")
        .collect();
    assert_eq!(configs.len(), 3);
    let options = SweepOptions {
        schedules: 200,
        jobs: 2,
        ..SweepOptions::default()
    };
    let mut verdicts = Vec::new();
    for config in &configs {
        verdicts.extend(explore::sweep(config, &options).expect("sweeps"));
    }
    explore::set_command(proto_chain::COMMAND);
    let table = explore::table::markdown(&verdicts);
    println!("{table}");
    assert_eq!(
        table.lines().filter(|l| l.starts_with("| chain |")).count(),
        3
    );
    // Every replay command the table prints runs: this crate's binary is
    // the laboratory's command line with chain registered.
    let ids: Vec<&str> = table
        .split(" explore --replay ")
        .skip(1)
        .filter_map(|rest| rest.split('`').next())
        .collect();
    assert!(!ids.is_empty(), "{table}");
    assert!(table.contains(&format!("`{} explore --replay chain.", proto_chain::COMMAND)));
    for id in ids {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_proto-chain"))
            .args(["explore", "--replay", id])
            .output()
            .expect("the binary runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("violated"),
            "explore --replay {id}: {}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let row = |read: &str, ack: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("| chain | {ack} | {read} |")))
            .unwrap_or_else(|| panic!("a {ack}/{read} row"))
            .to_owned()
    };
    let cells = |line: String| -> Vec<String> {
        line.split(" | ")
            .map(|c| c.trim_matches(['|', ' ']).to_owned())
            .collect()
    };
    // Columns: protocol, ack, read, setting, durable, linearizable, invariants.
    // A LOCAL read of a node behind the tail can miss a write the tail
    // already acknowledged: not linearizable, found by the sweep.
    let local = cells(row("local", "all_isr"));
    assert!(local[5].starts_with("violated"), "{table}");
    // Reads at the tail of writes the tail acknowledged: durable and
    // linearizable over every schedule.
    let tail = cells(row("linearizable", "all_isr"));
    assert!(tail[4].starts_with("holds"), "{table}");
    assert_eq!(tail[5], "holds (200)", "{table}");
    // Invariants (the prefix property) are checked on every row and hold.
    for line in table.lines().filter(|l| l.starts_with("| chain |")) {
        assert_eq!(cells(line.to_owned())[6], "holds (200)", "{line}");
    }
}

/// Regression from the explorer (seed 132, a stale client): a tail the
/// master removed while it was cut off still believes it is the tail, and
/// used to answer a LINEARIZABLE read with a value older than a write the
/// new tail had acknowledged. Now only the master's tail answers.
#[test]
fn a_removed_tail_does_not_answer_a_linearizable_read() {
    use replication::{AckLevel, ClientOp, NodeId, OutcomeStatus, ReadLevel, ReplicationGroup};
    let ids: Vec<NodeId> = ["chain-1", "chain-2", "chain-3"].map(NodeId::new).to_vec();
    let mut g = proto_chain::ChainGroup::new(ids.clone(), 7).expect("group");
    g.isolate(&ids[2]).expect("isolate the tail");
    g.failover(None).expect("the master reconfigures");
    let w = g
        .submit(ClientOp::write(
            bytes::Bytes::from_static(b"k"),
            bytes::Bytes::from_static(b"v"),
            AckLevel::AllIsr,
        ))
        .expect("write");
    let done = g.await_completion(w).expect("completes");
    assert_eq!(done.outcome.status(), OutcomeStatus::Done);
    let r = g
        .submit(
            ClientOp::read(bytes::Bytes::from_static(b"k"), ReadLevel::Linearizable).at(&ids[2]),
        )
        .expect("submitted");
    let read = g.await_completion(r).expect("completes");
    assert_eq!(read.outcome.status(), OutcomeStatus::Failed, "{read:?}");
}

#[test]
fn the_model_checker_and_the_debugger_steer_chain_too() {
    let configs = labs::explore_configs_in(&registry());
    let config = configs
        .iter()
        .find(|c| c.protocol == "chain")
        .expect("a chain row");
    let bounds = explore::model::Bounds {
        depth: 4,
        faults: 1,
        writes: 1,
        reads: 0,
        pinned_reads: false,
        max_states: 100_000,
        jobs: 2,
        ..explore::model::Bounds::default()
    };
    let verdict = explore::model::check(config, &bounds, &|_, _| {}).expect("chain steers");
    // Its harness is the shared `Cluster`: the view without the messages
    // in flight merges states here too.
    let merged = explore::model::Bounds {
        view: explore::model::StateView::Nodes,
        ..bounds
    };
    let merged = explore::model::check(config, &merged, &|_, _| {}).expect("chain steers");
    assert!(
        merged.distinct < verdict.distinct,
        "{} < {}",
        merged.distinct,
        verdict.distinct
    );
    assert!(
        verdict.complete && verdict.distinct > 50,
        "{}",
        verdict.bound_text()
    );
    println!("{}: {}", verdict.config, verdict.bound_text());
    // The debugger: a write (sent down the chain at the next tick), its
    // first hop delivered, or a branch where the head crashed.
    let mut session = explore::debugger::Session::new(config).expect("a session");
    let wrote = session.act(0, "w0").expect("a write");
    let wrote = session.act(wrote, "t").expect("a tick");
    let view = session.view(wrote).expect("a view");
    assert!(
        view.actions.iter().any(|a| a.kind == "message"),
        "the write's first hop is held: {:?}",
        view.held
    );
    session.act(wrote, "d0").expect("delivered");
    session.act(wrote, "c0").expect("or the head crashed");
    assert_eq!(session.states()[wrote].children.len(), 2);
}

#[test]
fn nodes_that_return_while_the_chain_has_no_reachable_member_rejoin_when_it_has_one() {
    // The explorer's shortest *recovers* counterexample before the fix:
    // chain-1 and chain-2 lose power, chain-3 alone is the chain and
    // crashes; on recovery chain-1 and chain-2 came back first, found no
    // member to copy from, and never rejoined.
    let registry = registry();
    let configs = labs::explore_configs_in(&registry);
    let config = configs
        .iter()
        .find(|c| c.key() == "chain.all_isr.linearizable.default")
        .expect("the row");
    let id: explore::ReplayId = "chain.all_isr.linearizable.default-s7-120.124.129.131"
        .parse()
        .expect("an id");
    let (_, report) = explore::replay(config, &id).expect("it replays");
    assert_eq!(
        report.check(explore::Property::Recovers),
        &explore::Check::Holds,
        "{:?}",
        report.checks
    );
}
