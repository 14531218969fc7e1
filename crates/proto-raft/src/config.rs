//! Group configuration and its validation.

use replication::{GroupError, validate_node_ids};
use sim_core::NodeId;

/// Settings of a [`RaftGroup`](crate::RaftGroup).
///
/// [`RaftConfig::default`] is the SPEC §7 group: `node-1..3`, seed 0,
/// election timeout drawn from `8..=14` ticks, heartbeat every 2 ticks,
/// network delay 1 tick. [`RaftConfig::new`] takes other node names with
/// the same defaults, and the `with_*` builders change one setting each:
///
/// ```
/// use proto_raft::RaftConfig;
///
/// let config = RaftConfig::new(["a", "b", "c", "d", "e"])
///     .with_seed(7)
///     .with_election_timeout(10, 20);
/// assert_eq!((config.nodes.len(), config.seed, config.heartbeat), (5, 7, 2));
/// ```
///
/// [`RaftConfig::validate`] (called by
/// [`RaftGroup::new`](crate::RaftGroup::new)) refuses anything that would
/// make elections unsafe or meaningless.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RaftConfig {
    /// Voting members, in id order of the group (at least three, no duplicates).
    pub nodes: Vec<NodeId>,
    /// Seed of the group's one random generator (election deadlines).
    pub seed: u64,
    /// Range `(lo, hi)` of the randomised election timeout in ticks.
    pub election_timeout: (u64, u64),
    /// Ticks between a leader's heartbeats to an otherwise idle follower.
    pub heartbeat: u64,
    /// Network delay of every message, in ticks.
    pub delay: u64,
    /// PreVote (thesis §9.6): a node whose election deadline passes first
    /// asks, without raising its term, whether it could win. Default off.
    pub pre_vote: bool,
    /// CheckQuorum: a leader that has not heard from a majority within an
    /// election timeout steps down. Default off.
    pub check_quorum: bool,
    /// Leadership transfer: `failover(Some(node))` brings `node` up to date
    /// and sends it TimeoutNow (thesis §3.10). Default on.
    pub leadership_transfer: bool,
    /// Log compaction (§7): each node snapshots its state machine and drops
    /// its log prefix once it has applied this many entries past its last
    /// snapshot; a follower needing dropped entries gets InstallSnapshot.
    /// `None` (the default) never compacts.
    pub snapshot_threshold: Option<u64>,
    /// The most entries one AppendEntries carries (etcd's
    /// `MaxSizePerMsg`, in entries). Default 64; a small value makes a
    /// follower's catch-up take many rounds.
    pub max_append_entries: u64,
    /// A planted bug switched on ([`crate::planted`]); `None` always in a
    /// build without the `planted` feature.
    pub planted: Option<&'static str>,
    /// The rules the nodes run ([`crate::decisions`]): this crate's
    /// [`Reference`](crate::decisions::Reference) unless a lab plugs in a
    /// student's.
    pub decisions: crate::decisions::Decisions,
}

impl Default for RaftConfig {
    fn default() -> Self {
        RaftConfig {
            nodes: (1..=3).map(|i| NodeId::new(format!("node-{i}"))).collect(),
            seed: 0,
            election_timeout: (8, 14),
            heartbeat: 2,
            delay: 1,
            pre_vote: false,
            check_quorum: false,
            leadership_transfer: true,
            snapshot_threshold: None,
            max_append_entries: 64,
            planted: None,
            decisions: crate::decisions::REFERENCE,
        }
    }
}

impl RaftConfig {
    /// The default settings with `nodes` as the voters, in this order.
    #[must_use]
    pub fn new(nodes: impl IntoIterator<Item = impl Into<NodeId>>) -> Self {
        RaftConfig {
            nodes: nodes.into_iter().map(Into::into).collect(),
            ..RaftConfig::default()
        }
    }

    /// The same settings with `seed` for the group's random generator.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same settings with election timeouts drawn from `lo..=hi` ticks.
    #[must_use]
    pub fn with_election_timeout(mut self, lo: u64, hi: u64) -> Self {
        self.election_timeout = (lo, hi);
        self
    }

    /// The same settings with a heartbeat every `ticks` ticks.
    #[must_use]
    pub fn with_heartbeat(mut self, ticks: u64) -> Self {
        self.heartbeat = ticks;
        self
    }

    /// The same settings with a network delay of `ticks` ticks.
    #[must_use]
    pub fn with_delay(mut self, ticks: u64) -> Self {
        self.delay = ticks;
        self
    }

    /// The same settings with PreVote on or off.
    #[must_use]
    pub fn with_pre_vote(mut self, on: bool) -> Self {
        self.pre_vote = on;
        self
    }

    /// The same settings with CheckQuorum on or off.
    #[must_use]
    pub fn with_check_quorum(mut self, on: bool) -> Self {
        self.check_quorum = on;
        self
    }

    /// The same settings with leadership transfer on or off (off:
    /// `failover(Some(node))` is refused, as in textbook Raft).
    #[must_use]
    pub fn with_leadership_transfer(mut self, on: bool) -> Self {
        self.leadership_transfer = on;
        self
    }

    /// The same settings with log compaction every `entries` applied
    /// entries past the last snapshot (`0` is refused by
    /// [`RaftConfig::validate`]).
    #[must_use]
    pub fn with_snapshot_threshold(mut self, entries: u64) -> Self {
        self.snapshot_threshold = Some(entries);
        self
    }

    /// The same settings with every production feature on: PreVote,
    /// CheckQuorum, leadership transfer and snapshots every `entries`
    /// applied entries.
    #[must_use]
    pub fn with_all_features(self, entries: u64) -> Self {
        self.with_pre_vote(true)
            .with_check_quorum(true)
            .with_leadership_transfer(true)
            .with_snapshot_threshold(entries)
    }

    /// The same settings with at most `entries` entries per AppendEntries.
    #[must_use]
    pub fn with_max_append_entries(mut self, entries: u64) -> Self {
        self.max_append_entries = entries;
        self
    }

    /// The same settings, deciding by `decisions` ([`crate::decisions`]) —
    /// a lab's student implementation — instead of this crate's rules.
    #[must_use]
    pub fn with_decisions(
        mut self,
        decisions: &'static dyn crate::decisions::RaftDecisions,
    ) -> Self {
        self.decisions = replication::Plugged(decisions);
        self
    }

    /// The same settings with the planted bug `name` on
    /// ([`crate::planted`]); [`RaftConfig::validate`] refuses an unknown
    /// name, and any name in a build without the `planted` feature.
    #[must_use]
    pub fn with_planted(mut self, name: &str) -> Self {
        self.planted = Some(replication::planted_name(&crate::planted::bugs(), name));
        self
    }

    /// Checks every setting; the error names the one at fault.
    ///
    /// Rules: at least three nodes, non-empty and distinct names; a nonzero
    /// heartbeat and delay; `lo ≤ hi`; the lowest election timeout exceeds
    /// the heartbeat and exceeds `2 × delay + heartbeat` (so a follower of a
    /// healthy leader never times out between two heartbeats); a snapshot
    /// threshold of at least one entry; at least one entry per
    /// AppendEntries.
    pub fn validate(&self) -> Result<(), GroupError> {
        validate_node_ids("nodes", &self.nodes, 3)?;
        replication::check_planted(
            self.planted,
            &crate::planted::bugs(),
            cfg!(feature = "planted"),
            "proto-raft",
        )?;
        if self.max_append_entries == 0 {
            return Err(GroupError::config(
                "max_append_entries",
                "must be at least 1 entry per AppendEntries",
            ));
        }
        if self.snapshot_threshold == Some(0) {
            return Err(GroupError::config(
                "snapshot_threshold",
                "must be at least 1 applied entry",
            ));
        }
        if self.heartbeat == 0 {
            return Err(GroupError::config("heartbeat", "must be at least 1 tick"));
        }
        if self.delay == 0 {
            return Err(GroupError::config("delay", "must be at least 1 tick"));
        }
        let (lo, hi) = self.election_timeout;
        if lo > hi {
            return Err(GroupError::config(
                "election_timeout",
                format!("lowest timeout {lo} is above highest timeout {hi}"),
            ));
        }
        if lo <= self.heartbeat {
            return Err(GroupError::config(
                "election_timeout",
                format!(
                    "lowest timeout {lo} must exceed the heartbeat {}",
                    self.heartbeat
                ),
            ));
        }
        let round_trip = self.delay.saturating_mul(2).saturating_add(self.heartbeat);
        if lo <= round_trip {
            return Err(GroupError::config(
                "election_timeout",
                format!("lowest timeout {lo} must exceed 2 × delay + heartbeat = {round_trip}"),
            ));
        }
        Ok(())
    }

    /// Ticks a QUORUM write waits for its commit before it completes
    /// *unknown*, and each of the two stages of a LINEARIZABLE read (the
    /// leader's first commit of its term, then its read-index round) waits
    /// before the read is blocked: twice the highest election timeout.
    #[must_use]
    pub fn client_timeout(&self) -> u64 {
        self.election_timeout.1.saturating_mul(2)
    }

    /// The latest a LINEARIZABLE read completes after it was submitted:
    /// two stages of [`RaftConfig::client_timeout`] each.
    #[must_use]
    pub fn read_timeout(&self) -> u64 {
        self.client_timeout().saturating_mul(2)
    }
}
