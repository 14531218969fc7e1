//! What a scenario asks a group beyond the [`ReplicationGroup`] trait:
//! the few readings of a protocol's own probe and trace that an experiment
//! reports in that protocol's words (`probe`, `fenced`, `gate`), and isr's
//! `lease-read`.
//!
//! | reading | async | wal | isr | raft |
//! |---|---|---|---|---|
//! | catch-up (`probe`) | `sync_mode` (`partial`, `full`) | `sync_mode` (`incremental`, `full`) | `catch_up_mode` | the `raft_catch_up` modes since the node's last restart (`log replay`, `snapshot`) |
//! | `fenced` | `async_message_rejected` for `non_current_primary` / `stale_generation` | `wal_fenced` | `isr_append_rejected` for `stale_leader_epoch` / `non_current_leader` | `raft_stale_term_rejected` |
//! | `gate` | the replica's offset against the acked one | synchronous or not; `FIRST`/`ANY` with who confirmed | in the ISR or not; ISR below `min.insync` | fixed voter; how many hold the index |

use proto_async::AsyncPrimaryGroup;
use proto_isr::IsrGroup;
use proto_raft::RaftGroup;
use proto_wal::{SyncQuorum, WalShippingGroup};
use replication::{AckLevel, GroupError, NodeId, ReadResult, ReplicationGroup, WriteResult};
use sim_core::Value;

/// A group a scenario drives: the [`ReplicationGroup`] trait, plus the
/// protocol readings above. `lease_read` defaults to `None` (the protocol
/// has no such call), which the interpreter prints as an error naming the
/// protocol that has it.
pub trait ScenarioGroup: ReplicationGroup {
    /// isr's `lease_read` (`lease-read key= node=`): a LINEARIZABLE read
    /// addressed to `node`, blocked with guard `lease fenced` unless `node`
    /// is the controller's current leader.
    fn lease_read(&mut self, node: &NodeId, key: &[u8]) -> Option<Result<ReadResult, GroupError>> {
        let _ = (node, key);
        None
    }

    /// How `node` last caught up, in the protocol's words (the matrix's
    /// experiment 5); `None` for an unknown node.
    fn catch_up(&self, node: &NodeId) -> Option<String>;

    /// Old-lineage messages rejected by their receivers so far (the
    /// matrix's experiment 3 `fenced:`).
    fn fenced(&self) -> u64;

    /// Why `node` did or did not gate `write` (made at `level`), from the
    /// probe now (the matrix's experiment 4).
    fn gate(&self, node: &NodeId, level: AckLevel, write: &WriteResult) -> String;
}

fn acked(write: &WriteResult) -> &'static str {
    if write.accepted { "acked" } else { "refused" }
}

fn offset(write: &WriteResult) -> String {
    write.offset.map_or("-".to_owned(), |o| o.to_string())
}

impl ScenarioGroup for AsyncPrimaryGroup {
    fn catch_up(&self, node: &NodeId) -> Option<String> {
        let probe = self.probe();
        probe.node(node).map(|n| n.sync_mode.name().to_owned())
    }

    fn fenced(&self) -> u64 {
        self.trace()
            .of_kind("async_message_rejected")
            .filter(|e| {
                matches!(e.field("reason"), Some(Value::Str(r))
                    if r == "non_current_primary" || r == "stale_generation")
            })
            .count() as u64
    }

    fn gate(&self, node: &NodeId, _level: AckLevel, write: &WriteResult) -> String {
        let probe = self.probe();
        let acked_at = write.offset.unwrap_or(0);
        match probe.node(node) {
            // The ack came while this replica lacked the entry: it has no vote.
            Some(n) if write.accepted && n.offset < acked_at => format!(
                "{} {} is not a voter: acked at offset {} while it was at offset {}",
                n.role.name(),
                n.id,
                acked_at,
                n.offset
            ),
            Some(n) => format!(
                "{} {} held offset {} when offset {} was answered",
                n.role.name(),
                n.id,
                n.offset,
                acked_at
            ),
            None => format!("{node} is not in the probe"),
        }
    }
}

impl ScenarioGroup for WalShippingGroup {
    fn catch_up(&self, node: &NodeId) -> Option<String> {
        let probe = self.probe();
        probe.node(node).map(|n| n.catch_up_mode.name().to_owned())
    }

    fn fenced(&self) -> u64 {
        self.trace().count("wal_fenced") as u64
    }

    fn gate(&self, node: &NodeId, level: AckLevel, write: &WriteResult) -> String {
        let probe = self.probe();
        let lsn = probe.node(node).map_or(0, |n| n.applied_lsn);
        let config = self.config();
        if matches!(
            config.sync_quorum,
            SyncQuorum::First(_) | SyncQuorum::Any(_)
        ) {
            let confirmed_by = self
                .trace()
                .of_kind("wal_sync_confirmed")
                .last()
                .and_then(|e| e.field("confirmed_by"))
                .map_or_else(|| "nobody".to_owned(), |v| v.to_string());
            return format!(
                "{}: {node} cut off, confirmed by {confirmed_by}: {} LSN {} while {node} was at LSN {lsn}",
                config.synchronous_standby_names(),
                acked(write),
                offset(write),
            );
        }
        let outcome = format!(
            "{} LSN {} while it was at LSN {lsn}",
            acked(write),
            offset(write)
        );
        if probe.synchronous_standbys.contains(node) {
            format!("synchronous standby {node} gates {level} commit: {outcome}")
        } else {
            format!("async standby {node} does not gate commit: {outcome}")
        }
    }
}

impl ScenarioGroup for IsrGroup {
    fn lease_read(&mut self, node: &NodeId, key: &[u8]) -> Option<Result<ReadResult, GroupError>> {
        Some(IsrGroup::lease_read(self, node, key))
    }

    fn catch_up(&self, node: &NodeId) -> Option<String> {
        let probe = self.probe();
        probe.node(node).map(|n| n.catch_up_mode.name().to_owned())
    }

    fn fenced(&self) -> u64 {
        self.trace()
            .of_kind("isr_append_rejected")
            .filter(|e| {
                e.field("reason").is_some_and(|r| {
                    let r = r.to_string();
                    r.contains("stale_leader_epoch") || r.contains("non_current_leader")
                })
            })
            .count() as u64
    }

    fn gate(&self, node: &NodeId, _level: AckLevel, _write: &WriteResult) -> String {
        let probe = self.probe();
        let mut text = if probe.in_isr(node) {
            "still in ISR".to_owned()
        } else {
            "removed from ISR".to_owned()
        };
        if probe.isr.len() < probe.min_insync_replicas {
            text.push_str(&format!(
                "; ISR {} below min.insync {}",
                probe.isr.len(),
                probe.min_insync_replicas
            ));
        }
        text
    }
}

impl ScenarioGroup for RaftGroup {
    fn catch_up(&self, node: &NodeId) -> Option<String> {
        if !self.node_ids().contains(node) {
            return None;
        }
        let trace = self.trace();
        let is_node =
            |e: &sim_core::EventRef<'_>, key: &str| e.field(key) == Some(Value::Node(node.clone()));
        let restarted = trace
            .since(0)
            .enumerate()
            .filter(|(_, e)| e.kind == "node_restarted" && is_node(e, "node"))
            .map(|(i, _)| i + 1)
            .next_back()
            .unwrap_or(0);
        let mut modes: Vec<String> = Vec::new();
        for e in trace.since(restarted) {
            if e.kind != "raft_catch_up" || !is_node(&e, "follower") {
                continue;
            }
            if let Some(mode) = e.str_field("mode")
                && !modes.iter().any(|m| m == mode)
            {
                modes.push(mode.to_owned());
            }
        }
        Some(if modes.is_empty() {
            "never".to_owned()
        } else {
            modes.join("+")
        })
    }

    fn fenced(&self) -> u64 {
        self.trace().count("raft_stale_term_rejected") as u64
    }

    fn gate(&self, node: &NodeId, _level: AckLevel, write: &WriteResult) -> String {
        let probe = self.probe();
        let index = write.offset.unwrap_or(0);
        let term = probe
            .leader
            .as_ref()
            .and_then(|l| probe.node(l))
            .and_then(|n| n.term_at(index))
            .unwrap_or(0);
        let holders = probe.replicas_of(index, term);
        let voters = probe.voters.len();
        let role = if probe.voters.contains(node) {
            "fixed voter"
        } else {
            "not a voter"
        };
        let majority = if holders > voters / 2 {
            "unaffected"
        } else {
            "lost"
        };
        format!("{role}; majority {majority} ({holders}/{voters} hold index {index})")
    }
}
