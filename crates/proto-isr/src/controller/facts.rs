//! What the controller is told about each replica before it decides.

/// One replica as the group sees it at the moment the controller decides:
/// the harness's fault state and what the replica's log answers. The
/// controller never reads a node; it reads these.
///
/// In this chapter mode the leader "sees" follower positions directly, so
/// `confirmed_log_end` comes from the follower itself; a fetch-driven data
/// plane would fill it from the leader's per-follower fetch state instead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplicaFacts {
    /// Up (not crashed).
    pub alive: bool,
    /// Isolated from every peer (then the controller cannot reach it
    /// either).
    pub isolated: bool,
    /// Marked slow: the leader sends it nothing.
    pub slow: bool,
    /// Packets flow both ways between it and the controller's leader.
    pub linked_to_leader: bool,
    /// Its log end offset.
    pub log_end_offset: u64,
    /// The offset through which it is confirmed to hold the current
    /// leader's log in the current leader epoch — Kafka's follower log end
    /// offset as the leader tracks it — or `None` when it was not
    /// confirmed in this epoch.
    pub confirmed_log_end: Option<u64>,
}

impl ReplicaFacts {
    /// The facts of one replica (every field named, for callers outside
    /// the crate: the struct is `#[non_exhaustive]`).
    #[must_use]
    pub fn new(
        alive: bool,
        isolated: bool,
        slow: bool,
        linked_to_leader: bool,
        log_end_offset: u64,
        confirmed_log_end: Option<u64>,
    ) -> Self {
        ReplicaFacts {
            alive,
            isolated,
            slow,
            linked_to_leader,
            log_end_offset,
            confirmed_log_end,
        }
    }
}
