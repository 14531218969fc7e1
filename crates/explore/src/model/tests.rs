//! The model checker on real protocols: determinism across workers,
//! deduplication that hides nothing, replayable shortest paths.

use proto_raft::{RaftConfig, RaftGroup};
use replication::{AckLevel, ReadLevel, ReplicationGroup};

use super::*;
use crate::test_configs::{async_primary, isr, raft, wal};

fn small(jobs: usize, dedup: bool) -> Bounds {
    Bounds {
        depth: 3,
        faults: 1,
        writes: 1,
        reads: 0,
        pinned_reads: false,
        max_states: 1_000_000,
        jobs,
        dedup,
        view: StateView::Complete,
    }
}

fn statuses(v: &ModelVerdict) -> Vec<(Property, Status, Option<usize>)> {
    v.properties
        .iter()
        .map(|(p, s, f)| (*p, *s, f.as_ref().map(|f| f.path.len())))
        .collect()
}

#[test]
fn one_worker_or_two_explore_the_same_states_and_give_the_same_verdicts() {
    for config in [isr(), raft()] {
        let one = check(&config, &small(1, true), &|_, _| {}).expect("checks");
        let two = check(&config, &small(2, true), &|_, _| {}).expect("checks");
        assert_eq!((one.distinct, one.generated), (two.distinct, two.generated));
        assert_eq!(one.properties, two.properties, "{}", config.key());
        assert!(one.complete && one.distinct > 30, "{}", one.bound_text());
    }
}

#[test]
fn deduplication_hides_no_verdict() {
    for config in [isr(), raft()] {
        let with = check(&config, &small(2, true), &|_, _| {}).expect("checks");
        let without = check(&config, &small(2, false), &|_, _| {}).expect("checks");
        assert!(without.distinct > with.distinct, "the tree is larger");
        assert_eq!(statuses(&with), statuses(&without), "{}", config.key());
    }
}

#[test]
fn a_path_replays_from_its_id_to_the_same_state() {
    let config = isr();
    let path = vec![
        Step::Write {
            client: 0,
            key: 0,
            value: 1,
        },
        Step::Deliver(0),
        Step::Crash(NodeRef::At(0), true),
        Step::Wait(1),
    ];
    let id = ReplayId::of_path(&config, path.clone());
    let text = id.to_string();
    assert_eq!(text, "isr.all_isr.linearizable.default-m-w0.d0.p0.t");
    let parsed: ReplayId = text.parse().expect("parses");
    assert_eq!(parsed, id);
    let base = schedule(&config, Vec::new()).expect("a schedule");
    let a = rebuild(&config, &base, &path).expect("runs");
    let b = rebuild(&config, &base, &path).expect("runs");
    let fp =
        |r: &Runner<'_>| replication::state_fingerprint(r.group().steerable().expect("steers"));
    assert_eq!(fp(&a), fp(&b), "the same path gives the same state");
    let shorter = rebuild(&config, &base, &path[..3]).expect("runs");
    assert_ne!(fp(&a), fp(&shorter), "a tick changes the state");
}

#[test]
fn a_group_that_cannot_be_steered_is_an_error_naming_it() {
    let config = Configuration::new(
        "plain",
        AckLevel::Quorum,
        ReadLevel::Linearizable,
        "default",
        |build: &crate::Build| {
            let raft = RaftGroup::new(RaftConfig::default().with_seed(build.seed))?;
            Ok(Box::new(crate::altered::Altered::new(raft)) as Box<dyn ReplicationGroup>)
        },
    );
    let err = check(&config, &small(1, true), &|_, _| {}).expect_err("not steerable");
    assert!(
        err.to_string().contains("plain offers no steerable run"),
        "{err}"
    );
}

#[test]
fn a_fired_timer_is_one_step_of_the_search_and_replays() {
    let config = raft();
    let base = schedule(&config, Vec::new()).expect("a schedule");
    let root = rebuild(&config, &base, &[]).expect("runs");
    let leader = root.group().leader().expect("a leader after the warm-up");
    let ids = root.group().node_ids();
    let follower = ids.iter().position(|id| *id != leader).expect("a follower");
    let node = Bounds::default();
    let at = Used::default();
    let fire = Step::Fire(NodeRef::At(u8::try_from(follower).expect("small")));
    assert!(
        enabled_steps(&config, &root, at, &node, false).contains(&fire),
        "every alive node's timer can be fired"
    );
    let fired = rebuild(&config, &base, std::slice::from_ref(&fire)).expect("runs");
    let held = fired.group().steerable().expect("steers").held();
    assert!(
        held.iter()
            .any(|h| h.from == follower && h.label.contains("vote")),
        "the fired follower asks for votes at once: {held:?}"
    );
    let id = ReplayId::of_path(&config, vec![fire]);
    assert_eq!(
        id.to_string().parse::<ReplayId>().expect("parses"),
        id,
        "a fired timer has a replay code"
    );
}

#[test]
fn a_state_rebuilt_from_the_runs_along_its_path_is_the_state_replayed_from_scratch() {
    for config in [isr(), raft()] {
        let base = schedule(&config, Vec::new()).expect("a schedule");
        let root = Runner::start(&config, &base, RunOptions::SWEEP).expect("a root");
        let path = vec![
            Step::Write {
                client: 0,
                key: 0,
                value: 1,
            },
            Step::Deliver(0),
            Step::Wait(1),
            Step::Crash(NodeRef::At(1), true),
            Step::Deliver(0),
        ];
        let fp = |r: &Runner<'_>| {
            fingerprint(
                r,
                &Used {
                    writes: 1,
                    reads: 0,
                    faults: 1,
                },
                StateView::Complete,
            )
        };
        // The path, and a sibling of its last step, in one arena: the
        // sibling is rebuilt from the runs kept along the path.
        let mut arena: Vec<(u32, Step)> = Vec::new();
        for (k, step) in path.iter().enumerate() {
            arena.push((if k == 0 { u32::MAX } else { k as u32 - 1 }, *step));
        }
        arena.push((path.len() as u32 - 2, Step::Wait(1)));
        let sibling: Vec<Step> = path[..path.len() - 1]
            .iter()
            .copied()
            .chain([Step::Wait(1)])
            .collect();
        let mut prefix = Prefix::default();
        for (chain, steps) in [
            ((0..path.len() as u32).collect::<Vec<_>>(), &path),
            (
                (0..path.len() as u32 - 1)
                    .chain([path.len() as u32])
                    .collect(),
                &sibling,
            ),
        ] {
            let kept = prefix.rebuild(&root, &arena, &chain).expect("runs");
            let fresh = rebuild(&config, &base, steps).expect("runs");
            assert_eq!(fp(&kept), fp(&fresh), "{}", config.key());
            assert_eq!(kept.history(), fresh.history());
        }
    }
}

/// The checker's first schedule for `bounds` (a client per operation).
fn with_clients(config: &Configuration, bounds: &Bounds) -> Schedule {
    first_schedule(config, bounds).expect("a steerable group")
}

/// Every state of the first two levels, each with the path to it.
fn states_within_two_steps<'a>(
    config: &'a Configuration,
    root: &Runner<'a>,
    bounds: &Bounds,
) -> Vec<Runner<'a>> {
    let mut level = vec![(root.fork().expect("forks"), Used::default())];
    let mut all = Vec::new();
    for depth in 0..2 {
        let mut next = Vec::new();
        for (run, used) in &level {
            for step in enabled_steps(config, run, *used, bounds, false) {
                let mut child = run.fork().expect("forks");
                child.apply(depth, &step, RunOptions::SWEEP);
                next.push((child, used.after(&step)));
            }
        }
        all.extend(level.drain(..).map(|(run, _)| run));
        level = next;
    }
    all.extend(level.into_iter().map(|(run, _)| run));
    all
}

#[test]
fn a_step_made_only_to_be_fingerprinted_is_checked_where_the_invariants_remember() {
    // Raft's invariants read the state alone: a step the search only
    // fingerprints leaves them to the state's rebuild. ISR's checker
    // remembers what it verified (monotonicity across checks): there the
    // check runs on every step as it is made.
    for (config, stateless) in [
        (raft(), true),
        (isr(), false),
        (async_primary(), true),
        (wal(), true),
    ] {
        let base = with_clients(&config, &Bounds::default());
        let run = Runner::start(&config, &base, RunOptions::SWEEP).expect("a root");
        let steer = run.group().steerable().expect("steerable");
        assert_eq!(
            steer.invariants_are_stateless(),
            stateless,
            "{}",
            config.key()
        );
    }
}

#[test]
fn the_ends_and_probes_answered_from_the_memo_are_the_ends_judged_again() {
    // Every protocol: what a heal does is protocol logic (the asynchronous
    // primary's sentinel demotes a stale primary on any node's heal).
    for config in [isr(), raft(), async_primary(), wal()] {
        let bounds = Bounds {
            faults: 2,
            writes: 1,
            reads: 1,
            pinned_reads: true,
            ..Bounds::default()
        };
        let base = with_clients(&config, &bounds);
        let root = Runner::start(&config, &base, RunOptions::SWEEP).expect("a root");
        let memo = EndMemo::new();
        let states = states_within_two_steps(&config, &root, &bounds);
        // Twice over: the second time every end comes from the memo.
        for _ in 0..2 {
            for run in &states {
                let plain = run.fork().expect("forks").finish(&base, RunOptions::SWEEP);
                let memoised =
                    run.fork()
                        .expect("forks")
                        .judge_end(&base, RunOptions::SWEEP, &memo);
                assert_eq!(plain.checks, memoised, "{}", config.key());
            }
        }
        let [ends, end_hits, probed, probe_hits] = memo.counts();
        let n = states.len() as u64;
        assert!(
            ends < n && end_hits > n && probed < ends && probe_hits > 0,
            "{}: {n} states heal into {ends} runs ({end_hits} ends reused) and settle into {probed} groups ({probe_hits} probes reused)",
            config.key(),
        );
    }
}

#[test]
fn a_pinned_read_is_offered_at_every_node_and_goes_to_the_node_named() {
    let config = raft();
    let bounds = Bounds {
        pinned_reads: true,
        ..Bounds::default()
    };
    let base = with_clients(&config, &bounds);
    let root = rebuild(&config, &base, &[]).expect("runs");
    let offered: Vec<Step> = enabled_steps(&config, &root, Used::default(), &bounds, false)
        .into_iter()
        .filter(|s| matches!(s, Step::ReadVia { .. }))
        .collect();
    assert_eq!(offered.len(), 3, "one pinned read per node: {offered:?}");
    let plain = enabled_steps(&config, &root, Used::default(), &Bounds::default(), false);
    assert!(!plain.iter().any(|s| matches!(s, Step::ReadVia { .. })));
    let leader = root.group().leader().expect("a leader after the warm-up");
    let ids = root.group().node_ids();
    let follower = ids.iter().position(|id| *id != leader).expect("a follower");
    let read = Step::ReadVia {
        client: bounds.writes,
        node: NodeRef::At(u8::try_from(follower).expect("small")),
    };
    let run = rebuild(&config, &base, std::slice::from_ref(&read)).expect("runs");
    let op = run.history().last().expect("the read is in the history");
    // A LINEARIZABLE read at a follower is refused by Raft, not served by
    // the leader: it went where it was sent.
    assert_eq!(
        op.status,
        Some(replication::OutcomeStatus::Failed),
        "{op:?}"
    );
}

/// `isr.leader.local.default`: a write acknowledged by the leader alone is
/// lost when the leader loses power before a follower fetched it.
fn isr_leader_acks() -> Configuration {
    Configuration::new(
        "isr",
        AckLevel::Leader,
        ReadLevel::Local,
        "default",
        |build: &crate::Build| {
            let g =
                proto_isr::IsrGroup::new(proto_isr::IsrConfig::default().with_seed(build.seed))?;
            Ok(Box::new(g) as Box<dyn ReplicationGroup>)
        },
    )
}

/// The walk tests' bounds: walks of 8 steps, 2 faults, a write and a
/// read, on `jobs` workers.
fn bounds(jobs: usize) -> Bounds {
    Bounds {
        depth: 8,
        faults: 2,
        writes: 1,
        reads: 1,
        jobs,
        ..Bounds::default()
    }
}

#[test]
fn walks_find_a_violation_shorten_it_and_answer_alike_on_one_worker_or_two() {
    let config = isr_leader_acks();
    let walks = walk::Walks {
        count: 400,
        seed: 7,
        swarm: false,
    };
    let one = walk::walk(&config, &bounds(1), &walks, &|_, _| {}).expect("walks");
    let two = walk::walk(&config, &bounds(2), &walks, &|_, _| {}).expect("walks");
    assert_eq!(one.properties, two.properties);
    assert_eq!((one.distinct, one.generated), (two.distinct, two.generated));
    assert!(
        one.bound_text()
            .contains("400 random walks of 8 steps (seed 7)")
    );
    let (_, status, finding) = &one.properties[0];
    assert_eq!(*status, Status::Violated, "{}", one.bound_text());
    let path = &finding.as_ref().expect("a path").path;
    let base = with_clients(&config, &bounds(1));
    let memo = EndMemo::new();
    let durable = |path: &[Step]| {
        let run = rebuild(&config, &base, path).expect("runs");
        matches!(
            judge(&base, &run, &memo).expect("judged")[0],
            Check::Violated(_)
        )
    };
    assert!(
        durable(path),
        "the shortened path still loses the write: {path:?}"
    );
    for i in 0..path.len() {
        let mut shorter = path.clone();
        shorter.remove(i);
        assert!(!durable(&shorter), "step {i} of {path:?} could go");
    }
}

#[test]
fn swarm_walks_answer_alike_on_one_worker_or_two_and_say_so() {
    let config = isr_leader_acks();
    let walks = |swarm| walk::Walks {
        count: 300,
        seed: 7,
        swarm,
    };
    let one = walk::walk(&config, &bounds(1), &walks(true), &|_, _| {}).expect("walks");
    let two = walk::walk(&config, &bounds(2), &walks(true), &|_, _| {}).expect("walks");
    assert_eq!(one.properties, two.properties);
    assert_eq!((one.distinct, one.generated), (two.distinct, two.generated));
    assert!(
        one.bound_text()
            .contains("300 random swarm walks of 8 steps (seed 7)")
    );
    // A swarm narrows what a walk does: other states than plain walks'.
    let plain = walk::walk(&config, &bounds(1), &walks(false), &|_, _| {}).expect("walks");
    assert_ne!(
        (one.distinct, one.generated),
        (plain.distinct, plain.generated)
    );
}

/// Raft's rules with one of them broken as a planted bug breaks it:
/// `read_quorum` off confirms a read index at once, without a quorum (the
/// planted `raft_read_without_quorum`); `old_terms` on commits an older
/// term's entry by counting its replicas (`raft_commit_old_term`, the
/// paper's Figure 8).
struct Broken {
    read_quorum: bool,
    old_terms: bool,
}

const NO_READ_QUORUM: Broken = Broken {
    read_quorum: false,
    old_terms: false,
};

/// Nothing broken: the reference rules, through the same knobs.
const REFERENCE: Broken = Broken {
    read_quorum: true,
    old_terms: false,
};

const COMMITS_OLD_TERMS: Broken = Broken {
    read_quorum: true,
    old_terms: true,
};

impl proto_raft::decisions::RaftDecisions for Broken {
    fn name(&self) -> &'static str {
        "broken"
    }
    fn grants_vote(&self, free: bool, candidate: (u64, u64), own: (u64, u64)) -> bool {
        proto_raft::decisions::Reference.grants_vote(free, candidate, own)
    }
    fn wins_election(&self, votes: usize, cluster: usize) -> bool {
        proto_raft::decisions::Reference.wins_election(votes, cluster)
    }
    fn continues_log(&self, prev_index: u64, prev_term: u64, own: Option<u64>) -> bool {
        proto_raft::decisions::Reference.continues_log(prev_index, prev_term, own)
    }
    fn commits(&self, entry_term: u64, current_term: u64) -> bool {
        self.old_terms || proto_raft::decisions::Reference.commits(entry_term, current_term)
    }
    fn read_confirmed(&self, acks: usize, cluster: usize) -> bool {
        !self.read_quorum || proto_raft::decisions::Reference.read_confirmed(acks, cluster)
    }
    fn grants_pre_vote(
        &self,
        above: bool,
        candidate: (u64, u64),
        own: (u64, u64),
        alive: bool,
    ) -> bool {
        proto_raft::decisions::Reference.grants_pre_vote(above, candidate, own, alive)
    }
}

/// Raft's default row with `rules`, built as the registration builds it
/// (its settings, its knobs).
fn raft_with(rules: &'static Broken) -> Configuration {
    use replication::Registration;
    Configuration::new(
        "raft",
        AckLevel::Quorum,
        ReadLevel::Linearizable,
        "default",
        move |build: &crate::Build| {
            let mut settings = replication::Settings::default().with_seed(build.seed);
            for (knob, value) in &build.knobs {
                settings.set(*knob, value.clone());
            }
            let config = proto_raft::RaftRegistration::config(&settings)?.with_decisions(rules);
            Ok(Box::new(RaftGroup::new(config)?) as Box<dyn ReplicationGroup>)
        },
    )
    .with_transport(replication::Transport::Datagram)
    .with_knobs(proto_raft::RaftRegistration.explorer_knobs())
}

/// The verdicts at the end of replay id `id`'s path on `config`, built
/// with the knob values the id names.
fn judged(config: Configuration, id: &str) -> [Check; 5] {
    let id = id.parse::<ReplayId>().expect("parses");
    let config = config.with_knob_values(&id.knobs).expect("the row's knobs");
    let path = id.path.expect("a path");
    let base = schedule(&config, path.clone()).expect("a schedule");
    let run = rebuild(&config, &base, &path).expect("runs");
    judge(&base, &run, &EndMemo::new()).expect("judged")
}

#[test]
fn figure_8_shows_only_where_an_append_carries_fewer_entries_than_the_gap() {
    // The old leader's write, a rival elected without it, the old leader
    // elected again and copying its old entry alone (one entry an
    // AppendEntries) to a majority, which the rule counts as committed,
    // then the rival elected over it: 15 steps, no fault
    // (`docs/checking.md`).
    let path = "w0.e2.d4.d5.d4.e1.d7.d8.d8.d9.d9.d9.d7.e2.d10";
    // And the shortest path the checker finds with the messages in flight
    // left out of its states (`docs/planted.md`): 13 steps, the write
    // after the first election.
    let shortest = "e0.d3.w0.d2.d2.e1.d7.d7.d8.d9.d9.d9.e0";
    for path in [path, shortest] {
        let id = format!("raft.quorum.linearizable.default-m:max_append_entries=1-{path}");
        let one = judged(raft_with(&COMMITS_OLD_TERMS), &id);
        let Check::Violated(why) = &one[2] else {
            panic!("a committed entry is lost: {one:?}");
        };
        // Reported by the invariant checker, as in an optimized build
        // (not a debug assertion's panic).
        assert!(
            why.contains("state machine safety")
                && why.contains("committed entries are never truncated"),
            "{why}"
        );
        // The reference keeps it on the same path.
        let reference = judged(raft_with(&REFERENCE), &id);
        assert!(
            reference.iter().all(|c| *c == Check::Holds),
            "{reference:?}"
        );
    }
    // With the default batch the old entry travels with the new leader's
    // no-op: counting its replicas commits the no-op too, which is right.
    let batched = judged(
        raft_with(&COMMITS_OLD_TERMS),
        &format!("raft.quorum.linearizable.default-m-{path}"),
    );
    assert!(batched.iter().all(|c| *c == Check::Holds), "{batched:?}");
}

#[test]
fn a_pinned_read_at_a_deposed_leader_shows_a_read_confirmed_without_a_quorum() {
    // A follower's election, the new leader's first commit, then a read
    // at the old leader: the shortest path known (9 steps, `docs/checking.md`).
    let id = "raft.quorum.linearizable.default-m-e0.d3.d3.w0.d4.d5.d6.v1n1.d0";
    let Check::Violated(why) = judged(raft_with(&NO_READ_QUORUM), id)[1].clone() else {
        panic!("the stale read is served");
    };
    assert!(why.contains("c1 read k0 -> (absent)"), "{why}");
    assert_eq!(
        judged(raft(), id)[1],
        Check::Holds,
        "the reference refuses it"
    );
}

#[test]
fn knob_values_reach_the_checked_runs_and_their_replay_ids() {
    let config = raft_with(&COMMITS_OLD_TERMS)
        .with_knob_values(&[("max_append_entries".to_string(), "1".to_string())])
        .expect("a knob of the row");
    assert_eq!(
        profile(&config, 3, &Bounds::default()).knobs,
        vec![("max_append_entries", "1".to_string())]
    );
    let id = ReplayId::of_path(&config, vec![Step::Fire(NodeRef::At(0))]);
    assert_eq!(
        id.to_string(),
        "raft.quorum.linearizable.default-m:max_append_entries=1-e0"
    );
    // A path's knobs must be the configuration's: replaying an id on a
    // configuration built otherwise is refused, naming both.
    let plain = raft_with(&COMMITS_OLD_TERMS);
    let Err(refused) = crate::replay(&plain, &id) else {
        panic!("replayed with other knobs");
    };
    assert!(
        refused.to_string().contains("max_append_entries=1"),
        "{refused}"
    );
    assert!(crate::replay(&config, &id).is_ok());
    // A knob the row does not have is an error naming it and the row's.
    let Err(unknown) = raft_with(&COMMITS_OLD_TERMS)
        .with_knob_values(&[("lag_timeout".to_string(), "3".to_string())])
    else {
        panic!("an unknown knob accepted");
    };
    let text = unknown.to_string();
    assert!(
        text.contains("no knob `lag_timeout`") && text.contains("its knobs: max_append_entries"),
        "{text}"
    );
    // A value the protocol refuses is refused when the group is built.
    let zero = raft_with(&COMMITS_OLD_TERMS)
        .with_knob_values(&[("max_append_entries".to_string(), "0".to_string())])
        .expect("a knob of the row");
    assert!(check(&zero, &Bounds::default(), &|_, _| {}).is_err());
}

#[test]
fn the_nodes_view_merges_states_that_differ_only_in_flight_and_says_it_is_not_exhaustive() {
    let config = raft();
    let bounds = |view| Bounds {
        depth: 4,
        faults: 0,
        writes: 1,
        reads: 0,
        view,
        ..small(2, true)
    };
    let complete = check(&config, &bounds(StateView::Complete), &|_, _| {}).expect("checks");
    let nodes = check(&config, &bounds(StateView::Nodes), &|_, _| {}).expect("checks");
    assert_eq!(complete.depth, nodes.depth);
    assert!(
        nodes.distinct < complete.distinct,
        "{} < {}",
        nodes.distinct,
        complete.distinct
    );
    assert!(complete.bound_text().starts_with("all "));
    assert!(
        nodes.bound_text().contains(
            "distinct states without their messages in flight (not exhaustive) within 4 steps"
        ),
        "{}",
        nodes.bound_text()
    );
    // The same answer on one worker.
    let one = check(
        &config,
        &Bounds {
            jobs: 1,
            ..bounds(StateView::Nodes)
        },
        &|_, _| {},
    )
    .expect("checks");
    assert_eq!(
        (one.distinct, one.generated, &one.properties),
        (nodes.distinct, nodes.generated, &nodes.properties)
    );
}

#[test]
fn random_walks_refuse_the_nodes_view_naming_it() {
    let bounds = Bounds {
        view: StateView::Nodes,
        ..small(1, true)
    };
    let walks = walk::Walks {
        count: 3,
        seed: 0,
        swarm: false,
    };
    let Err(refused) = walk::walk(&raft(), &bounds, &walks, &|_, _| {}) else {
        panic!("walked with the nodes view");
    };
    let text = refused.to_string();
    assert!(text.contains("view") && text.contains("`nodes`"), "{text}");
}

#[test]
fn a_view_is_named_as_the_cli_takes_it() {
    for view in [StateView::Complete, StateView::Nodes] {
        assert_eq!(view.name().parse::<StateView>(), Ok(view));
    }
    let refused = "messages".parse::<StateView>().expect_err("no such view");
    assert!(refused.contains("unknown view `messages`"), "{refused}");
}
