//! Rendering [`AsyncEvent`]s into the trace, at the node each concerns,
//! as `async_*` events exactly as the trace has always read.
//!
//! Event kinds: `write_applied`, `write_refused`, `stream_sent`,
//! `stream_buffered`, `stream_flushed`, `stream_buffer_discarded`,
//! `stream_applied`, `stream_duplicate`, `message_rejected`,
//! `gap_detected`, `resync_requested`, `resync_served`, `psync_refused`,
//! `partial_sync_applied`, `full_sync_applied`, `ack_received`,
//! `promoted`, `replica_reconfigured`, `demoted`, `demotion_deferred`,
//! `history_reset`, `power_loss_restored`, `fsync`, `read_served`,
//! `wait_started`, `wait_returned` (and `group_started`, recorded when the
//! group is built). Faults are the harness's neutral events
//! (`node_crashed`, …, see [`replication::Cluster`]).

use sim_core::{NodeId, Tick, Trace, record};

use crate::output::AsyncEvent;

/// Renders `event` at node `at` into `trace` at tick `now`.
pub(crate) fn record(trace: &mut Trace, ids: &[NodeId], now: Tick, at: usize, event: AsyncEvent) {
    if !trace.is_enabled() {
        return;
    }
    let node = &ids[at];
    let t = trace;
    match event {
        AsyncEvent::WriteApplied { level, entry } => record!(
            t,
            now,
            "async_write_applied",
            node = node,
            level = level.name(),
            generation = entry.generation,
            offset = entry.offset,
            key = &entry.key,
            value = &entry.value
        ),
        AsyncEvent::WriteRefused {
            good_replicas,
            min_replicas_to_write,
            min_replicas_max_lag,
        } => record!(
            t,
            now,
            "async_write_refused",
            node = node,
            reason = "min_replicas_to_write",
            good_replicas = good_replicas,
            min_replicas_to_write = min_replicas_to_write,
            min_replicas_max_lag = min_replicas_max_lag
        ),
        AsyncEvent::StreamSent {
            replica,
            from_offset,
            to_offset,
        } => record!(
            t,
            now,
            "async_stream_sent",
            primary = node,
            replica = &ids[replica],
            from_offset = from_offset,
            to_offset = to_offset
        ),
        AsyncEvent::StreamBuffered {
            replica,
            from_offset,
        } => record!(
            t,
            now,
            "async_stream_buffered",
            primary = node,
            replica = &ids[replica],
            from_offset = from_offset
        ),
        AsyncEvent::StreamFlushed {
            replica,
            from_offset,
            to_offset,
        } => record!(
            t,
            now,
            "async_stream_flushed",
            primary = node,
            replica = &ids[replica],
            from_offset = from_offset,
            to_offset = to_offset
        ),
        AsyncEvent::StreamBufferDiscarded {
            replica,
            from_offset,
            backlog_start,
        } => record!(
            t,
            now,
            "async_stream_buffer_discarded",
            primary = node,
            replica = &ids[replica],
            from_offset = from_offset,
            backlog_start = backlog_start
        ),
        AsyncEvent::StreamApplied {
            from,
            generation,
            prev_offset,
            entries,
            offset,
        } => record!(
            t,
            now,
            "async_stream_applied",
            node = node,
            from = &ids[from],
            generation = generation,
            prev_offset = prev_offset,
            entries = entries,
            offset = offset
        ),
        AsyncEvent::StreamDuplicate {
            from,
            offset,
            node_offset,
        } => record!(
            t,
            now,
            "async_stream_duplicate",
            node = node,
            from = &ids[from],
            offset = offset,
            node_offset = node_offset
        ),
        AsyncEvent::MessageRejected {
            from,
            msg,
            reason,
            msg_generation,
            node_generation,
        } => record!(
            t,
            now,
            "async_message_rejected",
            node = node,
            from = &ids[from],
            msg = msg,
            reason = reason,
            msg_generation = msg_generation,
            node_generation = node_generation
        ),
        AsyncEvent::GapDetected {
            from,
            expected,
            got,
        } => record!(
            t,
            now,
            "async_gap_detected",
            node = node,
            from = &ids[from],
            expected = expected,
            got = got
        ),
        AsyncEvent::ResyncRequested {
            primary,
            reason,
            replication_id,
            next_offset,
        } => record!(
            t,
            now,
            "async_resync_requested",
            node = node,
            primary = &ids[primary],
            reason = reason,
            replication_id = replication_id.to_string(),
            next_offset = next_offset
        ),
        AsyncEvent::ResyncServed {
            replica,
            mode,
            next_offset,
            offset,
        } => record!(
            t,
            now,
            "async_resync_served",
            node = node,
            replica = &ids[replica],
            mode = mode.name(),
            next_offset = next_offset,
            offset = offset
        ),
        AsyncEvent::PsyncRefused { from, reason } => record!(
            t,
            now,
            "async_psync_refused",
            node = node,
            from = &ids[from],
            reason = reason
        ),
        AsyncEvent::PartialSyncApplied {
            from,
            generation,
            prev_offset,
            entries,
            offset,
        } => record!(
            t,
            now,
            "async_partial_sync_applied",
            node = node,
            from = &ids[from],
            generation = generation,
            prev_offset = prev_offset,
            entries = entries,
            offset = offset
        ),
        AsyncEvent::FullSyncApplied {
            from,
            generation,
            replication_id,
            offset,
            keys,
        } => record!(
            t,
            now,
            "async_full_sync_applied",
            node = node,
            from = &ids[from],
            generation = generation,
            replication_id = replication_id.to_string(),
            offset = offset,
            keys = keys
        ),
        AsyncEvent::AckReceived { replica, offset } => record!(
            t,
            now,
            "async_ack_received",
            node = node,
            replica = &ids[replica],
            offset = offset
        ),
        AsyncEvent::Promoted {
            previous,
            generation,
            replication_id,
            offset,
        } => record!(
            t,
            now,
            "async_promoted",
            node = node,
            previous = &ids[previous],
            generation = generation,
            replication_id = replication_id.to_string(),
            offset = offset
        ),
        AsyncEvent::ReplicaReconfigured {
            primary,
            generation,
        } => record!(
            t,
            now,
            "async_replica_reconfigured",
            node = node,
            primary = &ids[primary],
            generation = generation
        ),
        AsyncEvent::Demoted {
            primary,
            generation,
        } => record!(
            t,
            now,
            "async_demoted",
            node = node,
            primary = &ids[primary],
            generation = generation
        ),
        AsyncEvent::DemotionDeferred { reason } => record!(
            t,
            now,
            "async_demotion_deferred",
            node = node,
            reason = reason
        ),
        AsyncEvent::HistoryReset {
            generation,
            replication_id,
            offset,
        } => record!(
            t,
            now,
            "async_history_reset",
            node = node,
            generation = generation,
            replication_id = replication_id.to_string(),
            offset = offset
        ),
        AsyncEvent::PowerLossRestored {
            offset,
            restored_offset,
        } => record!(
            t,
            now,
            "async_power_loss_restored",
            node = node,
            offset = offset,
            restored_offset = restored_offset
        ),
        AsyncEvent::Fsync { offset } => {
            record!(t, now, "async_fsync", node = node, offset = offset);
        }
        AsyncEvent::ReadServed {
            level,
            key,
            offset,
            found,
        } => record!(
            t,
            now,
            "async_read_served",
            node = node,
            level = level.name(),
            key = key,
            offset = offset,
            found = found
        ),
        AsyncEvent::WaitStarted {
            offset,
            numreplicas,
            timeout,
        } => record!(
            t,
            now,
            "async_wait_started",
            node = node,
            offset = offset,
            numreplicas = numreplicas,
            timeout = timeout
        ),
        AsyncEvent::WaitReturned {
            offset,
            acked,
            numreplicas,
            result,
        } => record!(
            t,
            now,
            "async_wait_returned",
            node = node,
            offset = offset,
            acked = acked,
            numreplicas = numreplicas,
            result = result
        ),
    }
}
