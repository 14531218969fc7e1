//! The three read levels.

use replication::{GroupError, ReadLevel, ReadResult};
use sim_core::{NodeId, record};

use crate::group::RaftGroup;
use crate::node::Role;

/// Guard name: the read-index round got no majority in time.
pub const GUARD_NO_QUORUM: &str = "read-index fenced (no quorum)";
/// Guard name: the leader has not committed an entry in its own term.
pub const GUARD_NO_CURRENT_TERM_COMMIT: &str = "no current-term commit";
/// Guard name: the named node is not a leader.
pub const GUARD_NOT_LEADER: &str = "not leader";
/// Guard name: the node lost leadership while the round ran.
pub const GUARD_DEPOSED: &str = "read-index fenced (deposed)";

impl RaftGroup {
    pub(crate) fn serve_local(&mut self, i: usize, key: &[u8], level: ReadLevel) -> ReadResult {
        let n = &self.nodes[i];
        let value = n.data.get(key).cloned();
        let now = self.now_tick();
        record!(
            self.trace,
            now,
            "raft_read_served",
            node = &self.ids[i],
            level = level.name(),
            key = bytes::Bytes::copy_from_slice(key),
            value = value.clone(),
            applied = n.last_applied
        );
        ReadResult {
            value,
            node: self.ids[i].clone(),
            offset: n.last_applied,
        }
    }

    fn blocked(&mut self, i: usize, guard: &'static str, reason: String) -> GroupError {
        let now = self.now_tick();
        record!(
            self.trace,
            now,
            "raft_read_blocked",
            node = &self.ids[i],
            guard = guard,
            reason = reason.clone()
        );
        GroupError::ReadBlocked {
            level: ReadLevel::Linearizable,
            node: self.ids[i].clone(),
            guard,
            reason,
        }
    }

    /// Read-index read at `node` (§6.4), in two bounded phases of at most
    /// [`RaftConfig::client_timeout`](crate::RaftConfig::client_timeout)
    /// ticks each: (1) the node must be leader and have committed an entry
    /// of its own term (it waits for its no-op), else blocked with
    /// `no current-term commit`; (2) it starts a round of AppendEntries and
    /// serves from its state machine once a majority of the current term
    /// answered that round, else blocked with `read-index fenced (no
    /// quorum)`. Losing leadership meanwhile blocks with
    /// `read-index fenced (deposed)`.
    pub(crate) fn read_index(
        &mut self,
        node: &NodeId,
        key: &[u8],
    ) -> Result<ReadResult, GroupError> {
        let i = self.alive_index(node)?;
        let (role, term) = (self.nodes[i].role, self.nodes[i].current_term);
        if role != Role::Leader {
            return Err(self.blocked(
                i,
                GUARD_NOT_LEADER,
                format!("{node} is a {role} in term {term}"),
            ));
        }
        let timeout = self.config.client_timeout();
        let deposed = |g: &Self| g.nodes[i].role != Role::Leader || g.nodes[i].current_term != term;
        let mut waited = 0;
        while !self.nodes[i].has_current_term_commit() && waited < timeout && !deposed(self) {
            self.step_tick();
            waited += 1;
        }
        if !deposed(self) && !self.nodes[i].has_current_term_commit() {
            let reason = format!(
                "{node} has not committed an entry of term {term} within {timeout} ticks (commit index {})",
                self.nodes[i].commit_index
            );
            return Err(self.blocked(i, GUARD_NO_CURRENT_TERM_COMMIT, reason));
        }
        if !deposed(self) {
            let now = self.now_tick();
            let mut outputs = Vec::new();
            let round = self.nodes[i].start_read_round(now, &mut outputs);
            record!(
                self.trace,
                now,
                "raft_read_index_started",
                node = node,
                term = term,
                round = round,
                read_index = self.nodes[i].commit_index
            );
            self.dispatch(i, now, outputs);
            for _ in 0..timeout {
                self.step_tick();
                if deposed(self) {
                    break;
                }
                if self.nodes[i].read_round_confirmed(round) {
                    return Ok(self.serve_local(i, key, ReadLevel::Linearizable));
                }
            }
            if !deposed(self) {
                let n = &self.nodes[i];
                let acks = (0..n.cluster)
                    .filter(|p| *p == n.me || n.read_acked[*p] >= round)
                    .count();
                let reason = format!(
                    "{node} (term {term}) heard {acks} of {} nodes in read-index round {round} within {timeout} \
                     ticks; needs {}",
                    n.cluster,
                    n.majority()
                );
                return Err(self.blocked(i, GUARD_NO_QUORUM, reason));
            }
        }
        let reason =
            format!("{node} stopped leading term {term} before the read-index round completed");
        Err(self.blocked(i, GUARD_DEPOSED, reason))
    }
}
