//! Turning node and controller decisions into trace events, exactly as the
//! trace reads: the nodes' [`NodeEvent`]s and the controller's
//! [`ControllerEvent`]s and [`Election`]s.
//!
//! Event kinds (all prefixed `isr_`): from nodes `leader_appended`,
//! `replication_delayed`, `stale_leader_resent`, `fetch_received`,
//! `catch_up_started`, `append_rejected`, `log_truncated`,
//! `entry_appended`, `snapshot_installed`, `leader_learned`; from the
//! controller `member_removed`, `member_added`, `high_watermark_advanced`,
//! `unclean_election`, `controller_elected`, `leader_unavailable`; from the
//! group `group_started`, `write_acknowledged`, `write_refused`, `fsync`.
//! Faults are the harness's neutral events (`node_crashed`, …, see
//! [`replication::Cluster`]).

use sim_core::{NodeId, Tick, Trace, record};

use crate::controller::{Controller, ControllerEvent, Election};
use crate::node::{IsrNode, NodeEvent};

/// The ids of `positions`, in that order.
fn names(ids: &[NodeId], positions: &[usize]) -> Vec<NodeId> {
    positions.iter().map(|&i| ids[i].clone()).collect()
}

/// Records `event` of `node` (at position `at`).
pub(crate) fn record_node(
    trace: &mut Trace,
    ids: &[NodeId],
    now: Tick,
    node: &IsrNode,
    event: &NodeEvent,
) {
    let me = &ids[node.me()];
    match event {
        NodeEvent::LeaderAppended { entry, acks } => record!(
            trace,
            now,
            "isr_leader_appended",
            node = me,
            offset = entry.offset,
            epoch = entry.epoch,
            key = &entry.key,
            value = &entry.value,
            level = acks.name()
        ),
        NodeEvent::ReplicationDelayed { follower, offset } => record!(
            trace,
            now,
            "isr_replication_delayed",
            leader = me,
            node = &ids[*follower],
            offset = *offset
        ),
        NodeEvent::StaleLeaderResent {
            leader_epoch,
            from_offset,
            log_end,
        } => record!(
            trace,
            now,
            "isr_stale_leader_resent",
            node = me,
            leader_epoch = *leader_epoch,
            from_offset = *from_offset,
            log_end = *log_end
        ),
        NodeEvent::FetchReceived {
            follower,
            log_end,
            served,
        } => record!(
            trace,
            now,
            "isr_fetch_received",
            leader = me,
            node = &ids[*follower],
            log_end = *log_end,
            served = *served
        ),
        NodeEvent::CatchUpStarted {
            follower,
            mode,
            from_offset,
            leader_log_end,
            retained_first,
        } => record!(
            trace,
            now,
            "isr_catch_up_started",
            leader = me,
            node = &ids[*follower],
            mode = mode.name(),
            from_offset = *from_offset,
            leader_log_end = *leader_log_end,
            retained_first = *retained_first
        ),
        NodeEvent::AppendRejected {
            from,
            reason,
            packet_epoch,
            known_epoch,
        } => record!(
            trace,
            now,
            "isr_append_rejected",
            node = me,
            source = &ids[*from],
            reason = reason.name(),
            packet_epoch = *packet_epoch,
            known_epoch = *known_epoch
        ),
        NodeEvent::LogTruncated { above, reason } => record!(
            trace,
            now,
            "isr_log_truncated",
            node = me,
            above = *above,
            reason = reason.name()
        ),
        NodeEvent::EntriesAppended {
            first,
            last,
            packet_epoch,
        } => {
            if trace.is_enabled() {
                for offset in *first..=*last {
                    record!(
                        trace,
                        now,
                        "isr_entry_appended",
                        node = me,
                        offset = offset,
                        epoch = node.log().epoch_at(offset),
                        leader_epoch = *packet_epoch
                    );
                }
            }
        }
        NodeEvent::SnapshotInstalled {
            log_end,
            applied_hw,
            packet_epoch,
        } => record!(
            trace,
            now,
            "isr_snapshot_installed",
            node = me,
            log_end = *log_end,
            applied_hw = *applied_hw,
            leader_epoch = *packet_epoch
        ),
        NodeEvent::LeaderLearned {
            leader,
            leader_epoch,
        } => record!(
            trace,
            now,
            "isr_leader_learned",
            node = me,
            leader = &ids[*leader],
            leader_epoch = *leader_epoch
        ),
    }
}

/// Records a change the controller made.
pub(crate) fn record_controller(
    trace: &mut Trace,
    ids: &[NodeId],
    now: Tick,
    controller: &Controller,
    event: &ControllerEvent,
) {
    match event {
        ControllerEvent::MemberRemoved {
            replica,
            reason,
            lag_ticks,
            log_end,
            leader_log_end,
            isr,
        } => record!(
            trace,
            now,
            "isr_member_removed",
            node = &ids[*replica],
            reason = reason.name(),
            lag_ticks = *lag_ticks,
            log_end = *log_end,
            leader_log_end = *leader_log_end,
            isr = names(ids, isr)
        ),
        ControllerEvent::MemberAdded {
            replica,
            log_end,
            leader_epoch,
            isr,
        } => record!(
            trace,
            now,
            "isr_member_added",
            node = &ids[*replica],
            log_end = *log_end,
            leader_epoch = *leader_epoch,
            isr = names(ids, isr)
        ),
        ControllerEvent::HighWatermarkAdvanced { from, to } => record!(
            trace,
            now,
            "isr_high_watermark_advanced",
            from = *from,
            to = *to,
            isr = names(ids, &controller.isr())
        ),
    }
}

/// Records an unclean election (before the new leader's truncation).
pub(crate) fn record_unclean(trace: &mut Trace, ids: &[NodeId], now: Tick, e: &Election) {
    if let Some(u) = &e.unclean {
        record!(
            trace,
            now,
            "isr_unclean_election",
            leader = &ids[e.leader],
            previous = &ids[e.previous],
            leader_epoch = e.leader_epoch,
            log_end = u.log_end,
            high_watermark_before = u.high_watermark_before,
            high_watermark = e.high_watermark,
            offsets_lost = u.offsets_lost
        );
    }
}

/// Records `isr_controller_elected` (after the previous leader left).
pub(crate) fn record_elected(trace: &mut Trace, ids: &[NodeId], now: Tick, e: &Election) {
    record!(
        trace,
        now,
        "isr_controller_elected",
        leader = &ids[e.leader],
        previous = &ids[e.previous],
        leader_epoch = e.leader_epoch,
        controller_epoch = e.controller_epoch,
        high_watermark = e.high_watermark,
        reason = e.reason.name(),
        isr = names(ids, &e.isr)
    );
}
