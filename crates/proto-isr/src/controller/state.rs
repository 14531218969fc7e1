//! The controller's state — the partition's metadata — and what it
//! answers about it.

use replication::{GroupError, Tick};

use super::facts::ReplicaFacts;
use crate::config::IsrConfig;

/// The partition's metadata and the decisions made over it. See the
/// [module docs](crate::controller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controller {
    pub(crate) min_insync_replicas: usize,
    pub(crate) replica_lag_timeout: u64,
    pub(crate) lease_duration: u64,
    pub(crate) unclean_leader_election: bool,
    /// Positions in the order the controller lists and prefers replicas
    /// (Kafka: the replica assignment; here: by node id).
    pub(crate) assignment: Vec<usize>,
    /// The leader's position.
    pub(crate) leader: usize,
    pub(crate) leader_epoch: u64,
    pub(crate) controller_epoch: u64,
    pub(crate) in_isr: Vec<bool>,
    pub(crate) high_watermark: u64,
    /// Leader epoch of the last unclean election (0: none). Replicas not
    /// confirmed since then may hold a committed view the partition lost.
    pub(crate) unclean_epoch: u64,
    pub(crate) lease_expiry: Tick,
    /// Per replica: last tick at which it was caught up with the leader.
    pub(crate) last_caught_up: Vec<Tick>,
    /// A planted bug switched on ([`crate::planted`]).
    pub(crate) planted: Option<&'static str>,
    /// The chapter's rules ([`crate::decisions`]).
    pub(crate) decide: crate::decisions::Decisions,
}

impl Controller {
    /// The controller of a fresh partition over `config`'s nodes (positions
    /// in configuration order): `config.leader` leads, both epochs 1, every
    /// replica in the ISR, HW 0, a lease until `lease_duration`.
    /// [`GroupError::Config`] when `config` is invalid.
    pub fn new(config: &IsrConfig) -> Result<Self, GroupError> {
        config.validate()?;
        let n = config.nodes.len();
        let leader = config
            .nodes
            .iter()
            .position(|id| id == &config.leader)
            .ok_or_else(|| GroupError::config("leader", "leader is not one of the nodes"))?;
        let mut assignment: Vec<usize> = (0..n).collect();
        assignment.sort_by(|a, b| config.nodes[*a].cmp(&config.nodes[*b]));
        Ok(Controller {
            min_insync_replicas: config.min_insync_replicas,
            replica_lag_timeout: config.replica_lag_timeout,
            lease_duration: config.lease_duration,
            unclean_leader_election: config.unclean_leader_election,
            assignment,
            leader,
            leader_epoch: 1,
            controller_epoch: 1,
            in_isr: vec![true; n],
            high_watermark: 0,
            unclean_epoch: 0,
            lease_expiry: config.lease_duration,
            last_caught_up: vec![0; n],
            planted: config.planted,
            decide: config.decisions,
        })
    }

    /// The leader's position (even while it is crashed, or restarted
    /// without the committed prefix).
    #[must_use]
    pub fn leader(&self) -> usize {
        self.leader
    }

    /// The leader epoch (starts at 1).
    #[must_use]
    pub fn leader_epoch(&self) -> u64 {
        self.leader_epoch
    }

    /// The controller epoch (starts at 1).
    #[must_use]
    pub fn controller_epoch(&self) -> u64 {
        self.controller_epoch
    }

    /// The partition's high watermark; it never moves back except through
    /// an unclean election.
    #[must_use]
    pub fn high_watermark(&self) -> u64 {
        self.high_watermark
    }

    /// Tick at which the leader's lease expires.
    #[must_use]
    pub fn lease_expiry(&self) -> Tick {
        self.lease_expiry
    }

    /// Leader epoch of the last unclean election (0: none).
    #[must_use]
    pub fn unclean_epoch(&self) -> u64 {
        self.unclean_epoch
    }

    /// `min.insync.replicas`.
    #[must_use]
    pub fn min_insync_replicas(&self) -> usize {
        self.min_insync_replicas
    }

    /// True when replica `i` is in the ISR.
    #[must_use]
    pub fn in_isr(&self, i: usize) -> bool {
        self.in_isr[i]
    }

    /// The number of ISR members.
    #[must_use]
    pub fn isr_len(&self) -> usize {
        self.in_isr.iter().filter(|&&m| m).count()
    }

    /// The ISR members' positions, in assignment (node id) order.
    #[must_use]
    pub fn isr(&self) -> Vec<usize> {
        self.assignment
            .iter()
            .copied()
            .filter(|&i| self.in_isr[i])
            .collect()
    }

    /// True when the leader can serve: it is alive (`leader_alive`) and in
    /// the ISR (a leader that restarted without the committed prefix is
    /// not).
    #[must_use]
    pub fn leader_available(&self, leader_alive: bool) -> bool {
        leader_alive && self.in_isr[self.leader]
    }

    /// [`Controller::leader_available`] from the facts.
    pub(crate) fn available(&self, facts: &[ReplicaFacts]) -> bool {
        self.leader_available(facts[self.leader].alive)
    }

    /// The controller reaches a replica (to tell it the leader and epoch)
    /// when it is alive and not isolated.
    #[must_use]
    pub fn reaches(&self, replica: &ReplicaFacts) -> bool {
        replica.alive && !replica.isolated
    }

    /// Offset through which replica `i` is known to hold the current
    /// leader's log: the leader's own log end, a follower's end confirmed
    /// in the current epoch (0 otherwise).
    pub(crate) fn confirmed_end(&self, i: usize, facts: &[ReplicaFacts]) -> u64 {
        if i == self.leader {
            facts[i].log_end_offset
        } else {
            facts[i].confirmed_log_end.unwrap_or(0)
        }
    }
}
