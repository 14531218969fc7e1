//! A debugging session on real protocols: actions are the checker's,
//! branches stay, bad input changes nothing, paths replay.

use super::*;
use crate::test_configs::{isr, raft};

#[test]
fn going_back_and_choosing_otherwise_makes_a_branch_and_both_stay() {
    let config = isr();
    let mut s = Session::new(&config).expect("a session");
    let wrote = s.act(0, "w0").expect("a write");
    let delivered = s.act(wrote, "d0").expect("a delivery");
    let crashed = s.act(wrote, "c0").expect("a crash instead");
    assert_ne!(delivered, crashed);
    assert_eq!(s.states()[wrote].children, vec![delivered, crashed]);
    assert_eq!(
        s.act(wrote, "d0").expect("again"),
        delivered,
        "the same step, the same child"
    );
    assert_eq!(s.states().len(), 4);
    let view = s.view(crashed).expect("a view");
    assert!(view.lanes[0].crashed, "{:?}", view.lanes[0]);
    assert_eq!(view.path.len(), 2);
    assert!(view.replay.ends_with("-m-w0.c0"), "{}", view.replay);
}

#[test]
fn an_action_that_is_not_enabled_or_not_a_code_is_refused_and_changes_nothing() {
    let config = isr();
    let mut s = Session::new(&config).expect("a session");
    for bad in ["zz", "d99", "s0", ""] {
        let err = s.act(0, bad).expect_err(bad);
        assert!(err.to_string().contains("action"), "{bad}: {err}");
    }
    assert!(
        s.act(7, "t")
            .expect_err("no such state")
            .to_string()
            .contains("no state 7")
    );
    assert!(s.view(7).is_err());
    assert_eq!(s.states().len(), 1, "no state was added");
}

#[test]
fn every_action_offered_is_taken_and_the_checkers_steps_are_among_them() {
    let config = raft();
    let mut s = Session::new(&config).expect("a session");
    let view = s.view(0).expect("a view");
    let codes: Vec<&str> = view.actions.iter().map(|a| a.code.as_str()).collect();
    for code in [
        "t", "w0", "r9", "c0", "p0", "i0", "e0", "e1", "e2", "l1", "f2",
    ] {
        assert!(codes.contains(&code), "{code} in {codes:?}");
    }
    for action in &view.actions {
        s.act(0, &action.code)
            .unwrap_or_else(|e| panic!("{}: {e}", action.label));
    }
    assert_eq!(s.states()[0].children.len(), view.actions.len());
}

#[test]
fn a_fired_election_timer_shows_the_votes_asked_for_on_the_links() {
    let config = raft();
    let mut s = Session::new(&config).expect("a session");
    let root = s.view(0).expect("a view");
    let follower = root
        .lanes
        .iter()
        .position(|l| l.state.role != "leader")
        .expect("a follower");
    let fired = s.act(0, &format!("e{follower}")).expect("fired");
    let view = s.view(fired).expect("a view");
    assert!(
        view.held
            .iter()
            .any(|h| h.from == follower && h.label.contains("vote")),
        "{:?}",
        view.held
    );
    assert!(
        view.actions
            .iter()
            .any(|a| a.label.starts_with("deliver") && a.label.contains("vote")),
        "{:?}",
        view.actions
    );
    assert!(!view.events.is_empty(), "the step's trace events are shown");
}

#[test]
fn a_slow_follower_leaves_the_isr_as_ticks_pass() {
    let config = isr();
    let mut s = Session::new(&config).expect("a session");
    let root = s.view(0).expect("a view");
    let isr_of = |v: &View| {
        v.lanes
            .iter()
            .find(|l| l.state.role == "leader")
            .and_then(|l| l.state.fields.iter().find(|f| f.label == "ISR"))
            .map(|f| f.value.clone())
            .expect("the leader shows its ISR")
    };
    let before = isr_of(&root);
    assert!(before.contains("node-3"), "{before}");
    let mut at = s.act(0, "l2").expect("slow");
    for _ in 0..40 {
        let view = s.view(at).expect("a view");
        if !isr_of(&view).contains("node-3") {
            return;
        }
        let code = view
            .actions
            .iter()
            .find(|a| a.kind == "message")
            .map_or("t".to_string(), |a| a.code.clone());
        at = s.act(at, &code).expect("a step");
    }
    panic!(
        "node-3 never left the ISR: {}",
        isr_of(&s.view(at).expect("a view"))
    );
}

/// The leader's field `label`.
fn leader_field(v: &View, label: &str) -> String {
    v.lanes
        .iter()
        .find(|l| l.state.role == "leader")
        .and_then(|l| l.state.fields.iter().find(|f| f.label == label))
        .map(|f| f.value.clone())
        .unwrap_or_default()
}

/// Takes `code` at `at` and answers the new state and its view.
fn take(s: &mut Session<'_>, at: usize, code: &str) -> (usize, View) {
    let next = s.act(at, code).unwrap_or_else(|e| panic!("{code}: {e}"));
    (next, s.view(next).expect("a view"))
}

#[test]
fn the_chapters_hands_on_shrink_rejoin_and_the_high_watermark_step_by_step() {
    // The guide's debugger session (docs/debugging.md), step for step.
    let config = isr();
    let mut s = Session::new(&config).expect("a session");
    let (at, _) = take(&mut s, 0, "l1"); // node-2 slow
    let (at, v) = take(&mut s, at, "w0"); // an ALL_ISR write
    assert_eq!(leader_field(&v, "LEO"), "1");
    assert_eq!(leader_field(&v, "HW"), "0", "HW waits for node-2");
    let (at, _) = take(&mut s, at, "d0"); // the append reaches node-3
    let (at, _) = take(&mut s, at, "t");
    let (at, v) = take(&mut s, at, "t");
    assert_eq!(
        leader_field(&v, "ISR"),
        "{node-1,node-3}",
        "node-2 left on lag"
    );
    assert_eq!(
        leader_field(&v, "HW"),
        "1",
        "HW is the ISR's minimum log end"
    );
    assert!(v.history[0].ends_with("done"), "{:?}", v.history);
    let (at, _) = take(&mut s, at, "q1"); // node-2 no longer slow
    let (at, v) = take(&mut s, at, "d0"); // the catch-up reaches node-2
    assert_eq!(
        leader_field(&v, "ISR"),
        "{node-1,node-2,node-3}",
        "rejoined"
    );
    assert_eq!(
        s.replay_id(at).expect("an id").to_string(),
        "isr.all_isr.linearizable.default-m-l1.w0.d0.t.t.q1.d0"
    );
}

#[test]
fn the_chapters_exercise_both_followers_slow_refuses_a_write_before_append() {
    let config = isr();
    let mut s = Session::new(&config).expect("a session");
    let (at, _) = take(&mut s, 0, "l1");
    let (mut at, _) = take(&mut s, at, "l2");
    for _ in 0..3 {
        at = take(&mut s, at, "t").0;
    }
    let v = s.view(at).expect("a view");
    assert_eq!(leader_field(&v, "ISR"), "{node-1}", "both followers left");
    let before = leader_field(&v, "LEO");
    let (at, v) = take(&mut s, at, "w0");
    assert_eq!(leader_field(&v, "LEO"), before, "nothing was appended");
    assert!(v.history[0].contains("failed"), "{:?}", v.history);
    assert!(
        v.history[0].contains("min.insync.replicas"),
        "{:?}",
        v.history
    );
    assert_eq!(
        s.replay_id(at).expect("an id").to_string(),
        "isr.all_isr.linearizable.default-m-l1.l2.t.t.t.w0"
    );
}

#[test]
fn a_cut_link_is_restored_by_its_own_button() {
    let config = isr();
    let mut s = Session::new(&config).expect("a session");
    let cut = s.act(0, "k01").expect("cut node-1 -> node-2");
    let view = s.view(cut).expect("a view");
    let codes: Vec<&str> = view.actions.iter().map(|a| a.code.as_str()).collect();
    assert!(
        codes.contains(&"o01") && !codes.contains(&"k01"),
        "{codes:?}"
    );
    assert!(
        view.actions
            .iter()
            .any(|a| a.label == "restore node-1 → node-2"),
        "{:?}",
        view.actions
    );
    let restored = s.act(cut, "o01").expect("restored");
    let codes: Vec<String> = s
        .view(restored)
        .expect("a view")
        .actions
        .into_iter()
        .map(|a| a.code)
        .collect();
    assert!(codes.contains(&"k01".to_owned()), "{codes:?}");
}

#[test]
fn a_write_at_another_level_is_offered_and_left_unjudged() {
    let config = isr();
    let mut s = Session::new(&config).expect("a session");
    let view = s.view(0).expect("a view");
    let codes: Vec<&str> = view.actions.iter().map(|a| a.code.as_str()).collect();
    assert!(
        codes.contains(&"W0l") && !codes.contains(&"W0a"),
        "{codes:?}"
    );
    assert!(
        codes.contains(&"R9l") && !codes.contains(&"R9z"),
        "{codes:?}"
    );
    // A LEADER write, then the leader's power loss: lost, and no property
    // says so (the row claims ALL_ISR writes only).
    let wrote = s.act(0, "W0l").expect("a LEADER write");
    let lost = s.act(wrote, "p0").expect("a power loss");
    let state = &s.states()[lost];
    assert!(state.broken().is_none(), "{:?}", state.judged);
    assert!(
        s.view(wrote).expect("a view").history[0].contains("write k0=v1"),
        "{:?}",
        s.view(wrote).expect("a view").history
    );
}

#[test]
fn a_recorded_run_of_the_sweep_is_a_chain_to_step_along_and_branch_off() {
    // ISR acknowledging at LEADER: a sweep finds a lost write; its
    // counterexample, as the explorer prints it.
    let config = Configuration::new(
        "isr",
        replication::AckLevel::Leader,
        replication::ReadLevel::Leader,
        "default",
        |build: &crate::Build| {
            let g =
                proto_isr::IsrGroup::new(proto_isr::IsrConfig::default().with_seed(build.seed))?;
            Ok(Box::new(g) as Box<dyn replication::ReplicationGroup>)
        },
    );
    let options = crate::SweepOptions {
        schedules: 200,
        ..crate::SweepOptions::default()
    };
    let verdicts = crate::sweep(&config, &options).expect("sweeps");
    let cx = verdicts
        .iter()
        .filter_map(|v| v.counterexample.clone())
        .find(|cx| cx.steps >= 2)
        .expect("a violation of at least two steps on this row");
    let mut s = Session::recorded(&config, &cx.replay).expect("a recorded session");
    let chain = s.states().len() - 1;
    assert_eq!(chain, cx.steps, "a state per recorded step, and the root");
    assert!(s.states().iter().skip(1).all(|st| st.recorded));
    assert!(
        s.states()[chain].broken().is_some(),
        "the recorded run ends broken, as the sweep found"
    );
    // The root's view offers the next recorded step and the steered ones.
    let root = s.view(0).expect("a view");
    assert_eq!(root.actions[0].kind, "recorded");
    assert_eq!(root.actions[0].code, NEXT_RECORDED);
    assert!(
        root.actions.iter().any(|a| a.code == "w0"),
        "{:?}",
        root.actions
    );
    assert_eq!(
        s.act(0, NEXT_RECORDED).expect("the chain"),
        1,
        "the same child"
    );
    // Each state of the chain has the sweep's replay id of its prefix.
    let id = s.replay_id(1).expect("an id").to_string();
    assert!(
        id.starts_with(&format!("{}-s{}-", cx.replay.config, cx.replay.seed)),
        "{id}"
    );
    assert_eq!(s.replay_id(chain).expect("an id"), {
        let mut whole = cx.replay.clone();
        if whole.kept.is_none() {
            whole.kept = Some((0..chain).collect());
        }
        whole
    });
    // A branch off the chain: steered from there, no replay id, no next
    // recorded step.
    let branch = s.act(1, "t").expect("a tick, steered");
    assert!(!s.states()[branch].recorded);
    assert!(!s.has_next_recorded(branch));
    assert!(s.replay_id(branch).is_err());
    assert!(s.act(branch, NEXT_RECORDED).is_err());
    assert!(
        s.view(branch)
            .expect("a view")
            .actions
            .iter()
            .all(|a| a.kind != "recorded")
    );
    // The end of the chain has no next step.
    assert!(s.act(chain, NEXT_RECORDED).is_err());
    // A checker's path is not a recorded run.
    let path_id: ReplayId = format!("{}-m-w0", config.key()).parse().expect("an id");
    assert!(Session::recorded(&config, &path_id).is_err());
}
