//! Turning a node's [`NodeEvent`]s into trace events.
//!
//! Event kinds (all prefixed `raft_`): `election_started`, `vote_cast`,
//! `leader_elected`, `term_adopted`, `leader_discovered`,
//! `stale_term_rejected`, `entries_appended`, `append_rejected`,
//! `catch_up`, `commit_advanced`, `pre_vote_started`, `pre_vote_cast`,
//! `leader_stepped_down` (CheckQuorum), `transfer_started`,
//! `timeout_now_sent`, `timeout_now_received`, `transfer_abandoned`,
//! `snapshot_taken`, `snapshot_sent`, `snapshot_installed`; and from the
//! group: `write_proposed`,
//! `write_committed`, `write_refused`, `read_served`, `read_index_started`,
//! `read_blocked`, `fsync`. Faults are the harness's neutral events
//! (`node_crashed`, …, see [`replication::Cluster`]).

use replication::Cluster;
use sim_core::{Tick, record};

use crate::message::Message;
use crate::node::{NodeEvent, Output};

/// Carries out what node `from` asked for: sends its messages through the
/// harness and records its events.
pub(crate) fn dispatch(
    cluster: &mut Cluster<Message>,
    from: usize,
    now: Tick,
    mut outputs: Vec<Output>,
) {
    dispatch_all(cluster, from, now, &mut outputs);
}

/// [`dispatch`] of `outputs`, emptying it (its allocation is kept for the
/// next step).
pub(crate) fn dispatch_all(
    cluster: &mut Cluster<Message>,
    from: usize,
    now: Tick,
    outputs: &mut Vec<Output>,
) {
    if outputs.is_empty() {
        return;
    }
    for output in outputs.drain(..) {
        match output {
            Output::Send { to, msg } => {
                cluster.send(from, to, msg);
            }
            Output::Event(event) => record_event(cluster, from, now, event),
        }
    }
}

/// Records node `at`'s `event` (nothing when the trace is off).
fn record_event(cluster: &mut Cluster<Message>, at: usize, now: Tick, event: NodeEvent) {
    {
        if !cluster.trace.is_enabled() {
            return;
        }
        let ids = std::sync::Arc::clone(cluster.ids());
        let node = &ids[at];
        let t = &mut cluster.trace;
        match event {
            NodeEvent::ElectionStarted { term } => {
                record!(t, now, "raft_election_started", node = node, term = term);
            }
            NodeEvent::VoteCast {
                candidate,
                term,
                granted,
            } => {
                record!(
                    t,
                    now,
                    "raft_vote_cast",
                    node = node,
                    candidate = &ids[candidate],
                    term = term,
                    granted = granted
                );
            }
            NodeEvent::LeaderElected { term, noop_index } => {
                record!(
                    t,
                    now,
                    "raft_leader_elected",
                    node = node,
                    term = term,
                    noop_index = noop_index
                );
            }
            NodeEvent::TermAdopted {
                from,
                previous,
                term,
                was,
            } => {
                record!(
                    t,
                    now,
                    "raft_term_adopted",
                    node = node,
                    from = &ids[from],
                    previous_term = previous,
                    term = term,
                    was = was.name()
                );
            }
            NodeEvent::LeaderDiscovered { leader, term } => {
                record!(
                    t,
                    now,
                    "raft_leader_discovered",
                    node = node,
                    leader = &ids[leader],
                    term = term
                );
            }
            NodeEvent::StaleTermRejected {
                from,
                msg,
                msg_term,
                term,
            } => {
                record!(
                    t,
                    now,
                    "raft_stale_term_rejected",
                    node = node,
                    from = &ids[from],
                    msg = msg,
                    msg_term = msg_term,
                    term = term
                );
            }
            NodeEvent::EntriesAppended {
                leader,
                first,
                last,
                truncated_from,
            } => {
                record!(
                    t,
                    now,
                    "raft_entries_appended",
                    node = node,
                    leader = &ids[leader],
                    first = first,
                    last = last,
                    truncated_from = truncated_from
                );
            }
            NodeEvent::AppendRejected {
                leader,
                prev_log_index,
                conflict_index,
            } => {
                record!(
                    t,
                    now,
                    "raft_append_rejected",
                    node = node,
                    leader = &ids[leader],
                    prev_log_index = prev_log_index,
                    conflict_index = conflict_index
                );
            }
            NodeEvent::CatchUp {
                follower,
                from_index,
                to_index,
                mode,
            } => {
                record!(
                    t,
                    now,
                    "raft_catch_up",
                    node = node,
                    follower = &ids[follower],
                    from_index = from_index,
                    to_index = to_index,
                    mode = mode.name()
                );
            }
            NodeEvent::CommitAdvanced { term, commit_index } => {
                record!(
                    t,
                    now,
                    "raft_commit_advanced",
                    node = node,
                    term = term,
                    commit_index = commit_index
                );
            }
            NodeEvent::PreVoteStarted {
                term,
                campaign_term,
            } => {
                record!(
                    t,
                    now,
                    "raft_pre_vote_started",
                    node = node,
                    term = term,
                    campaign_term = campaign_term
                );
            }
            NodeEvent::PreVoteCast {
                candidate,
                term,
                granted,
                reason,
            } => {
                record!(
                    t,
                    now,
                    "raft_pre_vote_cast",
                    node = node,
                    candidate = &ids[candidate],
                    campaign_term = term,
                    granted = granted,
                    reason = reason
                );
            }
            NodeEvent::LeaderSteppedDown {
                term,
                active,
                needed,
            } => {
                record!(
                    t,
                    now,
                    "raft_leader_stepped_down",
                    node = node,
                    term = term,
                    reason = "check quorum",
                    heard_from = active as u64,
                    needed = needed as u64
                );
            }
            NodeEvent::TransferStarted {
                target,
                match_index,
                last_index,
            } => {
                record!(
                    t,
                    now,
                    "raft_transfer_started",
                    node = node,
                    target = &ids[target],
                    target_match_index = match_index,
                    last_index = last_index
                );
            }
            NodeEvent::TimeoutNowSent { target, last_index } => {
                record!(
                    t,
                    now,
                    "raft_timeout_now_sent",
                    node = node,
                    target = &ids[target],
                    last_index = last_index
                );
            }
            NodeEvent::TimeoutNowReceived { leader, term } => {
                record!(
                    t,
                    now,
                    "raft_timeout_now_received",
                    node = node,
                    leader = &ids[leader],
                    term = term
                );
            }
            NodeEvent::TransferAbandoned {
                target,
                timeout_now_sent,
            } => {
                record!(
                    t,
                    now,
                    "raft_transfer_abandoned",
                    node = node,
                    target = &ids[target],
                    timeout_now_sent = timeout_now_sent
                );
            }
            NodeEvent::SnapshotTaken { index, term } => {
                record!(
                    t,
                    now,
                    "raft_snapshot_taken",
                    node = node,
                    index = index,
                    term = term
                );
            }
            NodeEvent::SnapshotSent {
                follower,
                index,
                term,
            } => {
                record!(
                    t,
                    now,
                    "raft_snapshot_sent",
                    node = node,
                    follower = &ids[follower],
                    index = index,
                    term = term
                );
            }
            NodeEvent::SnapshotInstalled {
                leader,
                index,
                term,
                kept_log_suffix,
            } => {
                record!(
                    t,
                    now,
                    "raft_snapshot_installed",
                    node = node,
                    leader = &ids[leader],
                    index = index,
                    term = term,
                    kept_log_suffix = kept_log_suffix
                );
            }
        }
    }
}
