//! Turning a node's [`WalEvent`]s into trace events.
//!
//! Event kinds from nodes (all prefixed `wal_`): `record_appended`,
//! `record_applied`, `record_received`, `record_replayed`,
//! `record_skipped`, `record_malformed`, `gap_detected`, `fenced`,
//! `catchup_requested`, `catchup_incremental`, `catchup_full`,
//! `catchup_applied`, `request_ignored`, `flush_acked`, `write_reported`,
//! `apply_reported`, `primary_demoted`, `following_changed`, `promoted`,
//! `power_loss_restored`. From the group: `group_created`,
//! `sync_replication_configured`, `write_acked`, `write_refused`,
//! `commit_waits_for_sync_standby`, `sync_confirmed`, `fsynced`,
//! `record_malformed` (bytes handed to `deliver_raw`). Faults are the
//! harness's neutral events (`node_crashed`, …, see
//! [`replication::Cluster`]).

use sim_core::{NodeId, Tick, Trace, record};

use crate::output::WalEvent;

/// Records `event` of the node at position `at` (`ids` are every node's
/// id by position). [`WalEvent::Fsync`] is not a trace event and records
/// nothing.
pub(crate) fn render(trace: &mut Trace, ids: &[NodeId], now: Tick, at: usize, event: &WalEvent) {
    let node = &ids[at];
    let t = trace;
    match event {
        WalEvent::Fsync(_) => {}
        WalEvent::RecordAppended {
            timeline,
            lsn,
            key,
            value,
            wal_bytes,
        } => record!(
            t,
            now,
            "wal_record_appended",
            node = node,
            timeline = *timeline,
            lsn = *lsn,
            key = key,
            value = value,
            wal_bytes = *wal_bytes
        ),
        WalEvent::RecordApplied {
            timeline,
            node_timeline,
            lsn,
            key,
            value,
            mode,
            flushed,
        } => record!(
            t,
            now,
            "wal_record_applied",
            node = node,
            timeline = *timeline,
            node_timeline = *node_timeline,
            lsn = *lsn,
            key = key,
            value = value,
            mode = mode.name(),
            flushed = *flushed
        ),
        WalEvent::RecordReceived {
            timeline,
            lsn,
            key,
            value,
            mode,
            flushed,
            replay_at,
        } => record!(
            t,
            now,
            "wal_record_received",
            node = node,
            timeline = *timeline,
            lsn = *lsn,
            key = key,
            value = value,
            mode = mode.name(),
            flushed = *flushed,
            replay_at = *replay_at
        ),
        WalEvent::RecordReplayed { lsn, key, value } => record!(
            t,
            now,
            "wal_record_replayed",
            node = node,
            lsn = *lsn,
            key = key,
            value = value
        ),
        WalEvent::RecordSkipped { lsn, reason } => record!(
            t,
            now,
            "wal_record_skipped",
            node = node,
            lsn = *lsn,
            reason = *reason
        ),
        WalEvent::RecordMalformed { src, reason } => record!(
            t,
            now,
            "wal_record_malformed",
            node = node,
            src = &ids[*src],
            reason = reason.clone()
        ),
        WalEvent::GapDetected {
            applied_lsn,
            primary_lsn,
        } => record!(
            t,
            now,
            "wal_gap_detected",
            node = node,
            applied_lsn = *applied_lsn,
            primary_lsn = *primary_lsn
        ),
        WalEvent::Fenced {
            src,
            msg,
            lsn,
            msg_timeline,
            node_timeline,
            reason,
        } => match lsn {
            Some(lsn) => record!(
                t,
                now,
                "wal_fenced",
                node = node,
                src = &ids[*src],
                msg = *msg,
                lsn = *lsn,
                msg_timeline = *msg_timeline,
                node_timeline = *node_timeline,
                reason = *reason
            ),
            None => record!(
                t,
                now,
                "wal_fenced",
                node = node,
                src = &ids[*src],
                msg = *msg,
                msg_timeline = *msg_timeline,
                node_timeline = *node_timeline,
                reason = *reason
            ),
        },
        WalEvent::CatchUpRequested {
            primary,
            timeline,
            next_lsn,
        } => record!(
            t,
            now,
            "wal_catchup_requested",
            node = node,
            primary = &ids[*primary],
            timeline = *timeline,
            next_lsn = *next_lsn
        ),
        WalEvent::CatchUpIncremental {
            standby,
            from_lsn,
            to_lsn,
            records,
        } => record!(
            t,
            now,
            "wal_catchup_incremental",
            node = node,
            standby = &ids[*standby],
            from_lsn = *from_lsn,
            to_lsn = *to_lsn,
            records = *records
        ),
        WalEvent::CatchUpFull {
            standby,
            from_lsn,
            to_lsn,
            reason,
        } => record!(
            t,
            now,
            "wal_catchup_full",
            node = node,
            standby = &ids[*standby],
            from_lsn = *from_lsn,
            to_lsn = *to_lsn,
            reason = *reason
        ),
        WalEvent::IncrementalApplied { records, lsn } => record!(
            t,
            now,
            "wal_catchup_applied",
            node = node,
            mode = "incremental",
            records = *records,
            lsn = *lsn
        ),
        WalEvent::BaseBackupApplied {
            records,
            lsn,
            timeline,
        } => record!(
            t,
            now,
            "wal_catchup_applied",
            node = node,
            mode = "full",
            records = *records,
            lsn = *lsn,
            timeline = *timeline
        ),
        WalEvent::RequestIgnored { src, reason } => record!(
            t,
            now,
            "wal_request_ignored",
            node = node,
            src = &ids[*src],
            reason = *reason
        ),
        WalEvent::FlushAcked {
            standby,
            flushed_lsn,
        } => record!(
            t,
            now,
            "wal_flush_acked",
            node = node,
            standby = &ids[*standby],
            flushed_lsn = *flushed_lsn
        ),
        WalEvent::WriteReported {
            standby,
            written_lsn,
        } => record!(
            t,
            now,
            "wal_write_reported",
            node = node,
            standby = &ids[*standby],
            written_lsn = *written_lsn
        ),
        WalEvent::ApplyReported {
            standby,
            applied_lsn,
        } => record!(
            t,
            now,
            "wal_apply_reported",
            node = node,
            standby = &ids[*standby],
            applied_lsn = *applied_lsn
        ),
        WalEvent::PrimaryDemoted {
            new_primary,
            timeline,
            new_timeline,
        } => record!(
            t,
            now,
            "wal_primary_demoted",
            node = node,
            new_primary = &ids[*new_primary],
            timeline = *timeline,
            new_timeline = *new_timeline
        ),
        WalEvent::FollowingChanged { primary, timeline } => record!(
            t,
            now,
            "wal_following_changed",
            node = node,
            primary = &ids[*primary],
            timeline = *timeline
        ),
        WalEvent::Promoted {
            timeline,
            lsn,
            previous_primary,
        } => record!(
            t,
            now,
            "wal_promoted",
            node = node,
            timeline = *timeline,
            lsn = *lsn,
            previous_primary = previous_primary.map(|p| &ids[p])
        ),
        WalEvent::PowerLossRestored {
            lsn_before,
            lsn,
            timeline,
        } => record!(
            t,
            now,
            "wal_power_loss_restored",
            node = node,
            lsn_before = *lsn_before,
            lsn = *lsn,
            timeline = *timeline
        ),
    }
}
