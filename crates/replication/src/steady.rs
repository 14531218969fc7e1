//! [`SteadyState`]: what a protocol promises about its normal operation,
//! once every fault is healed and its network loses, duplicates, reorders
//! and stalls nothing.
//!
//! Safety and recovery say whether an answer is right and whether one
//! comes; this says how cheaply. A leader that heartbeats every tick, or
//! holds a proposal for the next heartbeat instead of sending it at once,
//! is correct and slow: its steady state breaks these bounds. The explorer
//! checks them at the end of *recovers*, on a group that has converged.

/// A protocol's steady-state bounds on a healthy network
/// ([`ReplicationGroup::steady_state`](crate::ReplicationGroup::steady_state)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SteadyState {
    /// The most ticks a write at the strongest ack level takes, from its
    /// submission to its acknowledgement, on a converged, idle group: one
    /// replication round (Raft: AppendEntries with the next flush, and its
    /// answer, each at most the network's delay).
    pub write_latency: u64,
    /// The most ticks a read at the strongest read level takes on such a
    /// group (Raft: a read-index round, one round trip).
    pub read_latency: u64,
    /// An idle window's length in ticks …
    pub idle_ticks: u64,
    /// … and the most messages the group sends in it while converged and
    /// idle: its heartbeats and their answers, nothing else.
    pub idle_messages: u64,
    /// `Some(t)`: a follower cut off from every peer for `t` ticks and then
    /// healed does not depose the leader within `t` more (Raft with
    /// PreVote: the disruptive server of Ongaro's thesis §9.6 is refused,
    /// its peers having heard from a leader). `None`: no such promise
    /// (without PreVote the rejoining node's higher term deposes the
    /// leader, as the paper says it may).
    pub rejoin_ticks: Option<u64>,
    /// `Some(m)`: a write costs at most `m` messages beyond the idle
    /// chatter, counted over a window of `idle_ticks` from its submission
    /// against the idle window just before (Raft: an AppendEntries to each
    /// follower and its answer). Stated only where the idle chatter of
    /// two such windows is equal, so the difference is the write's own —
    /// on a network with one fixed delay, `idle_ticks` a whole number of
    /// heartbeat intervals.
    pub write_messages: Option<u64>,
}
