//! `check_trace`: the trace, folded from the group's start, ends where the
//! group is — and an event that claims something untrue is named.

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, NodeId, ReplicationGroup};
use sim_core::record;

fn n(name: &str) -> NodeId {
    NodeId::new(name)
}

/// A group that crashed a follower (it left the ISR as `crashed`), lost
/// power on another, fsynced, failed over and caught everyone up.
fn eventful() -> IsrGroup {
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    let w = |g: &mut IsrGroup, v: &'static str| {
        g.client_write(Bytes::from("k"), Bytes::from(v), AckLevel::AllIsr)
            .unwrap()
    };
    w(&mut g, "v1");
    g.fsync(&n("node-2")).unwrap();
    w(&mut g, "v2");
    g.crash(&n("node-3"), true).unwrap();
    w(&mut g, "v3");
    g.restart(&n("node-3")).unwrap();
    g.run_until_idle(200).unwrap();
    g.failover(Some(&n("node-2"))).unwrap();
    w(&mut g, "v4");
    g.fsync(&n("node-1")).unwrap();
    g.run_until_idle(200).unwrap();
    g
}

/// `g`'s trace disagrees with it, and the disagreement names `what`.
fn named(g: &IsrGroup, what: &str) {
    let why = g.check_trace().unwrap_err();
    assert!(why.contains(what), "{why}");
}

/// Records, now, node-3 leaving the ISR for `reason` after `lag_ticks`.
fn forge_removal_of_node_3(g: &mut IsrGroup, reason: &'static str, lag_ticks: u64) {
    let now = g.now();
    record!(
        g.trace_mut(),
        now,
        "isr_member_removed",
        node = &n("node-3"),
        reason = reason,
        lag_ticks = lag_ticks,
        isr = vec![n("node-1"), n("node-2")]
    );
}

/// Records, now, `leader` receiving a fetch from `follower` that nothing
/// sent.
fn forge_fetch(g: &mut IsrGroup, leader: &str, follower: &str) {
    let now = g.now();
    record!(
        g.trace_mut(),
        now,
        "isr_fetch_received",
        leader = &n(leader),
        node = &n(follower),
        log_end = 0u64,
        served = true
    );
}

#[test]
fn an_eventful_run_s_trace_agrees_with_the_group() {
    let g = eventful();
    assert!(g.trace().count("isr_member_removed") >= 1);
    assert!(g.trace().count("isr_controller_elected") >= 1);
    assert!(g.trace().count("isr_catch_up_started") >= 1);
    assert_eq!(g.check_trace(), Ok(()));
}

#[test]
fn an_fsync_reporting_another_offset_is_named() {
    let mut g = eventful();
    let now = g.now();
    record!(
        g.trace_mut(),
        now,
        "isr_fsync",
        node = &n("node-2"),
        durable_offset = 0u64
    );
    named(&g, "isr_fsync of node-2 reports durable offset 0");
}

#[test]
fn a_removal_for_a_reason_that_does_not_hold_is_named() {
    let mut g = eventful();
    for reason in ["xyzzy", "crashed"] {
        let mut h = eventful();
        forge_removal_of_node_3(&mut h, reason, 0);
        named(&h, "isr_member_removed of node-3 gives reason");
    }
    // An event left out: the restart was not recorded.
    g.crash(&n("node-3"), false).unwrap();
    g.trace_mut().set_enabled(false);
    g.restart(&n("node-3")).unwrap();
    named(&g, "the trace has node-3 down");
}

#[test]
fn a_catch_up_in_the_wrong_mode_is_named() {
    let mut g = eventful();
    let now = g.now();
    record!(
        g.trace_mut(),
        now,
        "isr_catch_up_started",
        leader = &n("node-2"),
        node = &n("node-3"),
        mode = "full",
        from_offset = 3u64,
        leader_log_end = 4u64,
        retained_first = 1u64
    );
    named(&g, "the rule says incremental");
}

#[test]
fn a_fetch_no_refusal_asked_for_and_a_resend_of_no_suffix_are_named() {
    let mut g = eventful();
    let now = g.now();
    forge_fetch(&mut g, "node-2", "node-1");
    named(&g, "recorded no log mismatch");
    let mut g = eventful();
    record!(
        g.trace_mut(),
        now,
        "isr_stale_leader_resent",
        node = &n("node-1"),
        leader_epoch = 1u64,
        from_offset = 0u64,
        log_end = 4u64
    );
    named(&g, "not a suffix of the log");
    // node-1 has learned that node-2 leads: it resends nothing.
    let mut g = eventful();
    record!(
        g.trace_mut(),
        now,
        "isr_stale_leader_resent",
        node = &n("node-1"),
        leader_epoch = 1u64,
        from_offset = 4u64,
        log_end = 4u64
    );
    named(
        &g,
        "isr_stale_leader_resent at node-1, which does not believe it leads",
    );
}

#[test]
fn on_a_network_that_duplicates_a_fetch_still_needs_some_refusal_before_it() {
    // A copy of a fetch is not a second request, so fetches are not
    // paired one to one there; but a fetch from a follower that never
    // refused anything was never sent.
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    let net = sim_core::NetConfig {
        duplicate_rate: 0.5,
        ..sim_core::NetConfig::default()
    };
    g.set_network(net).unwrap();
    g.client_write(Bytes::from("k"), Bytes::from("v1"), AckLevel::AllIsr)
        .unwrap();
    g.run_until_idle(200).unwrap();
    assert_eq!(g.check_trace(), Ok(()));
    forge_fetch(&mut g, "node-1", "node-2");
    named(&g, "never recorded a log mismatch");
}

#[test]
fn a_displaced_leader_healed_with_a_suffix_above_hw_must_resend_it() {
    // node-1 leads, is cut off, appends a LEADER write nobody else holds,
    // and node-2 is elected: node-1 still believes it leads epoch 1.
    let displaced = || {
        let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
        // Offset 1 is acknowledged while node-1 leads: it applies HW 1.
        g.client_write(Bytes::from("k"), Bytes::from("v0"), AckLevel::AllIsr)
            .unwrap();
        g.isolate(&n("node-1")).unwrap();
        g.client_write(Bytes::from("k"), Bytes::from("v1"), AckLevel::Leader)
            .unwrap();
        g.failover(Some(&n("node-2"))).unwrap();
        g
    };
    let mut g = displaced();
    g.heal(&n("node-1")).unwrap();
    g.run_until_idle(50).unwrap();
    assert_eq!(g.trace().count("isr_stale_leader_resent"), 1);
    // Both peers know epoch 2: each fences the epoch-1 packet.
    assert_eq!(g.trace().count("isr_append_rejected"), 2);
    assert_eq!(g.check_trace(), Ok(()));
    let resent = |g: &mut IsrGroup, from: u64| {
        let now = g.now();
        record!(
            g.trace_mut(),
            now,
            "isr_stale_leader_resent",
            node = &n("node-1"),
            leader_epoch = 1u64,
            from_offset = from,
            log_end = 2u64
        );
    };
    let sent = |g: &mut IsrGroup, kind: &'static str, id: u64, to: &str| {
        let now = g.now();
        record!(
            g.trace_mut(),
            now,
            kind,
            id = id,
            src = &n("node-1"),
            dst = &n(to),
            msg = "isr_append"
        );
    };
    // It applied HW 1 as leader: a resend of its own starts at 2.
    let mut g = displaced();
    resent(&mut g, 1);
    named(&g, "from offset 1, but it applied HW 1 as leader");
    // A resend that skips a peer.
    let mut g = displaced();
    resent(&mut g, 2);
    sent(&mut g, "message_sent", 999, "node-2");
    named(&g, "node-1's stale resend sent nothing to node-3");
    // A resent packet delivered to a replica of a newer epoch, not fenced.
    let mut g = displaced();
    resent(&mut g, 2);
    sent(&mut g, "message_sent", 999, "node-2");
    sent(&mut g, "message_sent", 998, "node-3");
    sent(&mut g, "message_delivered", 999, "node-2");
    named(&g, "node-2 was delivered a stale leader's resent packet");
    // A heal whose resend is missing.
    let mut g = displaced();
    let now = g.now();
    record!(g.trace_mut(), now, "node_healed", node = &n("node-1"));
    named(&g, "node-1 was healed believing it leads an old epoch");
}

#[test]
fn an_election_for_a_reason_that_does_not_hold_is_named() {
    // The eventful run elected node-2, an ISR member: a clean election.
    for reason in ["unclean_election", "leader_restarted", ""] {
        let mut g = eventful();
        let now = g.now();
        record!(
            g.trace_mut(),
            now,
            "isr_controller_elected",
            leader = &n("node-1"),
            previous = &n("node-2"),
            leader_epoch = 3u64,
            controller_epoch = 3u64,
            high_watermark = 4u64,
            reason = reason,
            isr = vec![n("node-1"), n("node-2"), n("node-3")]
        );
        let why = g.check_trace().unwrap_err();
        assert!(
            why.contains("isr_controller_elected gives reason"),
            "{reason}: {why}"
        );
    }
}

#[test]
fn a_write_completed_without_the_decision_that_ended_it_is_named() {
    let mut g = eventful();
    let now = g.now();
    // A client's write, then its completion with no isr_write_refused.
    record!(
        g.trace_mut(),
        now,
        "client_op_submitted",
        op = 900u64,
        kind = "write",
        key = "k",
        level = "ALL_ISR"
    );
    record!(
        g.trace_mut(),
        now,
        "client_op_completed",
        op = 900u64,
        outcome = "unknown",
        node = &n("node-2"),
        offset = 4u64,
        reason = "ack timeout"
    );
    named(&g, "but the event before it was not isr_write_refused");
}

#[test]
fn a_refusal_stating_another_isr_is_named() {
    let mut g = eventful();
    let now = g.now();
    record!(
        g.trace_mut(),
        now,
        "isr_write_refused",
        offset = 5u64,
        reason = "ack_timeout",
        isr = vec![n("node-1")],
        high_watermark = 4u64
    );
    named(&g, "isr_write_refused states ISR");
}

#[test]
fn a_leader_learned_that_is_no_news_is_named() {
    // node-3 learned at the failover that node-2 leads epoch 2.
    let mut g = eventful();
    let now = g.now();
    record!(
        g.trace_mut(),
        now,
        "isr_leader_learned",
        node = &n("node-3"),
        leader = &n("node-2"),
        leader_epoch = 2u64
    );
    named(&g, "leader node-2 of epoch 2 is no news to it");
}

#[test]
fn membership_and_hw_changes_that_change_nothing_or_come_late_are_named() {
    let three = || vec![n("node-1"), n("node-2"), n("node-3")];
    // node-3 crashed: it already left the ISR.
    let mut g = eventful();
    g.crash(&n("node-3"), false).unwrap();
    let now = g.now();
    forge_removal_of_node_3(&mut g, "crashed", 0);
    named(&g, "isr_member_removed of node-3, which is not in the ISR");
    // The controller checks every tick: lag removes at the timeout (3).
    let mut g = eventful();
    forge_removal_of_node_3(&mut g, "lag", 7);
    named(&g, "for lag after 7 ticks; the lag timeout is 3");
    let mut g = eventful();
    record!(
        g.trace_mut(),
        now,
        "isr_member_added",
        node = &n("node-1"),
        isr = three()
    );
    named(&g, "isr_member_added of node-1, already in the ISR");
    let mut g = eventful();
    let hw = g.probe().high_watermark;
    record!(
        g.trace_mut(),
        now,
        "isr_high_watermark_advanced",
        from = hw,
        to = hw,
        isr = three()
    );
    named(&g, "not an advance");
}

#[test]
fn a_catch_up_of_a_follower_cut_off_or_slow_is_named() {
    let catch_up = |g: &mut IsrGroup| {
        let now = g.now();
        record!(
            g.trace_mut(),
            now,
            "isr_catch_up_started",
            leader = &n("node-2"),
            node = &n("node-3"),
            mode = "incremental",
            from_offset = 5u64,
            leader_log_end = 4u64,
            retained_first = 1u64
        );
    };
    let mut g = eventful();
    catch_up(&mut g);
    // To a follower linked to the leader, it claims nothing untrue.
    assert_eq!(g.check_trace(), Ok(()));
    let mut g = eventful();
    g.isolate(&n("node-3")).unwrap();
    catch_up(&mut g);
    named(
        &g,
        "isr_catch_up_started from node-2 to node-3, which is cut off from it",
    );
    let mut g = eventful();
    g.cut_link(&n("node-3"), &n("node-2")).unwrap();
    catch_up(&mut g);
    named(&g, "which is cut off from it");
    let mut g = eventful();
    g.set_slow(&n("node-3"), true).unwrap();
    catch_up(&mut g);
    named(
        &g,
        "isr_catch_up_started from node-2 to node-3, which is slow",
    );
}

#[test]
fn a_divergence_cut_that_drops_an_entry_of_the_same_epoch_is_named() {
    // node-3 holds offset 4 (v4) in epoch 2, node-2's.
    let cut_and_append = |epoch: u64| {
        let mut g = eventful();
        let now = g.now();
        record!(
            g.trace_mut(),
            now,
            "isr_log_truncated",
            node = &n("node-3"),
            above = 3u64,
            reason = "divergence"
        );
        record!(
            g.trace_mut(),
            now,
            "isr_entry_appended",
            node = &n("node-3"),
            offset = 4u64,
            epoch = epoch,
            leader_epoch = 2u64
        );
        g
    };
    named(
        &cut_and_append(2),
        "node-3 truncated its log above 3 for divergence, then appended offset 4 in the epoch (2) of the entry it dropped there",
    );
    // An entry of another epoch replacing it is what divergence means.
    let other = cut_and_append(3).check_trace().err().unwrap_or_default();
    assert!(!other.contains("for divergence"), "{other}");
}
