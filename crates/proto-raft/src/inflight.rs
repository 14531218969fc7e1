//! Client operations in flight: what each one waits for, and the pure
//! verdict on it given the node that took it.
//!
//! A [`PendingOp`] is judged when it is submitted and after every tick
//! ([`PendingOp::judge`] reads the node, never changes it); the group
//! (`client.rs`) acts on the [`Verdict`] — completes the op, or starts /
//! joins a read-index round.

use replication::{ClientOp, OpId};
use sim_core::{NodeId, Tick};

use crate::node::{RaftNode, Role};
use crate::reads::{GUARD_DEPOSED, GUARD_NO_CURRENT_TERM_COMMIT, GUARD_NO_QUORUM};

/// What a pending operation waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Stage {
    /// A QUORUM write appended at `index` in the op's term: done once the
    /// node that took it has committed that entry.
    Commit {
        /// The entry's log index.
        index: u64,
    },
    /// A LINEARIZABLE read waiting for its leader's first commit of the
    /// term (§6.4: the leader's commit index is only current once it has
    /// committed its no-op).
    ReadAwaitingCommit,
    /// A LINEARIZABLE read that arrived while a read-index round of its
    /// leader was in flight; it joins the next round, started as soon as
    /// that one finishes.
    ReadQueued,
    /// A LINEARIZABLE read waiting for read-index round `round`, started at
    /// `started`, to be echoed by a majority.
    ReadInRound {
        /// The round number echoed in AppendEntries replies.
        round: u64,
        /// The tick the round was started at.
        started: Tick,
    },
}

/// One operation the group accepted and has not completed.
#[derive(Debug, Clone, Hash)]
pub(crate) struct PendingOp {
    pub(crate) id: OpId,
    pub(crate) op: ClientOp,
    pub(crate) submitted: Tick,
    /// Position of the node that took the op (the proposer / the leader
    /// that must prove its leadership).
    pub(crate) node: usize,
    /// That node's term when it took the op.
    pub(crate) term: u64,
    pub(crate) stage: Stage,
    /// The tick the current stage gives up at.
    pub(crate) deadline: Tick,
}

/// What happens to a pending op now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing yet.
    Wait,
    /// Write: the entry is committed — *done*.
    Committed,
    /// Write: appended but not acknowledged, and never will be by this
    /// node — *unknown*.
    Unknown(String),
    /// Read: its leader has a current-term commit; it needs a round.
    ReadyForRound,
    /// Read: a majority echoed its round — serve it, *done*.
    Serve,
    /// Read: a guard refused — *failed* with `ReadBlocked`.
    Blocked(&'static str, String),
}

impl PendingOp {
    /// The verdict on this op at `now`, given `node` (named `name`), the
    /// node that took it. `timeout` is the per-stage bound
    /// ([`RaftConfig::client_timeout`](crate::RaftConfig::client_timeout)).
    pub(crate) fn judge(&self, node: &RaftNode, name: &NodeId, now: Tick, timeout: u64) -> Verdict {
        let term = self.term;
        if let Stage::Commit { index } = self.stage {
            return if !node.alive {
                Verdict::Unknown(format!(
                    "{name} crashed before entry {index} of term {term} committed"
                ))
            } else if index <= node.snapshot.index {
                // Compacted, so committed; it is this write's entry when the
                // node still leads `term` (a leader never truncates its own
                // log) or the snapshot ends on it (log matching).
                let own = (node.role == Role::Leader && node.current_term == term)
                    || (index == node.snapshot.index && node.snapshot.term == term);
                if own {
                    Verdict::Committed
                } else {
                    Verdict::Unknown(format!(
                        "entry {index} of term {term} was compacted after {name} lost leadership of term {term}"
                    ))
                }
            } else if node.term_at(index) != Some(term) {
                Verdict::Unknown(format!(
                    "entry {index} of term {term} was overwritten by a newer leader"
                ))
            } else if node.commit_index >= index {
                Verdict::Committed
            } else if node.role != Role::Leader || node.current_term != term {
                Verdict::Unknown(format!(
                    "{name} lost leadership of term {term} before entry {index} committed"
                ))
            } else if now >= self.deadline {
                Verdict::Unknown(format!(
                    "entry {index} of term {term} not committed by a majority within {timeout} ticks"
                ))
            } else {
                Verdict::Wait
            };
        }
        if !node.alive {
            return Verdict::Blocked(
                GUARD_DEPOSED,
                format!("{name} crashed before the read-index round completed"),
            );
        }
        if node.role != Role::Leader || node.current_term != term {
            return Verdict::Blocked(
                GUARD_DEPOSED,
                format!("{name} stopped leading term {term} before the read-index round completed"),
            );
        }
        match self.stage {
            Stage::Commit { .. } => Verdict::Wait,
            Stage::ReadAwaitingCommit => {
                if node.has_current_term_commit() {
                    Verdict::ReadyForRound
                } else if now >= self.deadline {
                    Verdict::Blocked(
                        GUARD_NO_CURRENT_TERM_COMMIT,
                        format!(
                            "{name} has not committed an entry of term {term} within {timeout} ticks (commit index {})",
                            node.commit_index
                        ),
                    )
                } else {
                    Verdict::Wait
                }
            }
            Stage::ReadQueued => {
                if now >= self.deadline {
                    Verdict::Blocked(
                        GUARD_NO_QUORUM,
                        format!(
                            "{name} (term {term}) could not start a read-index round within {timeout} ticks"
                        ),
                    )
                } else {
                    Verdict::Wait
                }
            }
            Stage::ReadInRound { round, .. } => {
                if node.read_round_confirmed(round) {
                    Verdict::Serve
                } else if now >= self.deadline {
                    let acks = (0..node.cluster)
                        .filter(|p| *p == node.me || node.read_acked[*p] >= round)
                        .count();
                    Verdict::Blocked(
                        GUARD_NO_QUORUM,
                        format!(
                            "{name} (term {term}) heard {acks} of {} nodes in read-index round {round} within {timeout} \
                             ticks; needs {}",
                            node.cluster,
                            node.majority()
                        ),
                    )
                } else {
                    Verdict::Wait
                }
            }
        }
    }

    /// The round this op waits for, if it is in one of `node`'s rounds of
    /// `term`.
    pub(crate) fn round_at(&self, node: usize, term: u64) -> Option<(u64, Tick)> {
        match self.stage {
            Stage::ReadInRound { round, started } if self.node == node && self.term == term => {
                Some((round, started))
            }
            _ => None,
        }
    }
}
