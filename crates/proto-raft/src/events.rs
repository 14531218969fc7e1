//! Turning a node's [`NodeEvent`]s into trace events.
//!
//! Event kinds (all prefixed `raft_`): `election_started`, `vote_cast`,
//! `leader_elected`, `term_adopted`, `leader_discovered`,
//! `stale_term_rejected`, `entries_appended`, `append_rejected`,
//! `catch_up`, `commit_advanced`; and from the group: `write_proposed`,
//! `write_committed`, `write_refused`, `read_served`, `read_index_started`,
//! `read_blocked`, `node_crashed`, `node_restarted`, `node_isolated`,
//! `node_healed`, `link_cut`, `all_healed`, `fsync`.

use sim_core::{Tick, record};

use crate::group::RaftGroup;
use crate::node::NodeEvent;
use crate::role::CatchUpMode;

impl RaftGroup {
    pub(crate) fn record_event(&mut self, at: usize, now: Tick, event: NodeEvent) {
        if !self.trace.is_enabled() {
            return;
        }
        let node = &self.ids[at];
        let ids = &self.ids;
        let t = &mut self.trace;
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
            } => {
                record!(
                    t,
                    now,
                    "raft_catch_up",
                    node = node,
                    follower = &ids[follower],
                    from_index = from_index,
                    to_index = to_index,
                    mode = CatchUpMode::LogReplay.name()
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
        }
    }
}
