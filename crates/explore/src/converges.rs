//! The second half of **recovers**: once the recovery probes are *done*,
//! every node converges on them.
//!
//! A protocol that serves the probes from its leader alone can still be
//! broken: followers that never learn the commit index (Raft's
//! `leaderCommit` ignored), a catch-up that stops after one batch, a
//! replica that never resynchronises after a heal. Every protocol here
//! promises eventual convergence once the network is whole and every node
//! runs — Redis replicas resync, PostgreSQL standbys replay, Kafka
//! followers fetch to the log end, Raft followers apply what the leader
//! committed — so each node's `LOCAL` read of the probe key must answer
//! the probe's value within the protocol's recovery bound.

use replication::{Bytes, ClientOp, Outcome, OutcomeStatus, ReadLevel, ReplicationGroup};

use crate::property::Check;

/// Ticks between two rounds of local reads.
const POLL_TICKS: u64 = 4;

/// Whether every node's `LOCAL` read of `key` answers `value` within
/// `bound` ticks (reads at submission; a read in flight is given
/// `settle` ticks). A protocol that refuses a `LOCAL` read at a named node
/// is not judged (it makes no per-node promise to read).
pub(crate) fn every_node_converges(
    group: &mut dyn ReplicationGroup,
    key: &Bytes,
    value: &Bytes,
    bound: u64,
    settle: u64,
) -> Check {
    let start = group.now();
    let nodes = group.node_ids();
    loop {
        let mut behind = None;
        for node in &nodes {
            let op = ClientOp::read(key.clone(), ReadLevel::Local).at(node);
            let id = match group.submit(op) {
                Ok(id) => id,
                Err(replication::GroupError::UnsupportedRead { .. }) => return Check::Holds,
                Err(e) => {
                    behind = Some(format!("{node}'s LOCAL read was refused: {e}"));
                    break;
                }
            };
            let mut answer = group.take_completion(id);
            let mut waited = 0;
            while answer.is_none() && waited < settle {
                group.tick();
                waited += 1;
                answer = group.take_completion(id);
            }
            let read = match answer {
                Some(c) if c.outcome.status() == OutcomeStatus::Done => match c.outcome {
                    Outcome::Read(read) => read.value,
                    _ => None,
                },
                Some(c) => {
                    behind = Some(format!(
                        "{node}'s LOCAL read ended {}",
                        c.outcome.status().name()
                    ));
                    break;
                }
                None => {
                    behind = Some(format!(
                        "{node}'s LOCAL read did not complete within {settle} ticks"
                    ));
                    break;
                }
            };
            if read.as_ref() != Some(value) {
                behind = Some(format!(
                    "{node}'s LOCAL read answers {}",
                    read.map_or("nothing".to_owned(), |v| crate::history::text(&v))
                ));
                break;
            }
        }
        let Some(behind) = behind else {
            return Check::Holds;
        };
        if group.now() >= start.saturating_add(bound) {
            return Check::Violated(format!(
                "after the recovery probes were done, not every node converged on them within the recovery bound ({bound} ticks): {behind}"
            ));
        }
        for _ in 0..POLL_TICKS {
            group.tick();
        }
    }
}
