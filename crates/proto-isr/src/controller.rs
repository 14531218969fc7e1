//! The in-process controller's decisions: ISR shrink / rejoin, the high
//! watermark, the lease, clean elections, and replica catch-up.

use std::sync::Arc;

use sim_core::record;

use crate::group::IsrGroup;
use crate::message::{AppendKind, IsrMessage};

impl IsrGroup {
    /// Offset through which replica `idx` is known to hold the current
    /// leader's log (the leader: its own log end; others: confirmed in the
    /// current epoch only).
    pub(crate) fn match_of(&self, idx: usize) -> u64 {
        let node = &self.nodes[idx];
        if idx == self.leader {
            node.log.end()
        } else if node.matched_epoch == self.leader_epoch {
            node.matched_end
        } else {
            0
        }
    }

    /// A follower is caught up only when it is alive, not slow, linked to
    /// the leader, and has received the current leader's entries in the
    /// current epoch up to the leader's log end.
    fn caught_up(&self, idx: usize, leader_end: u64) -> bool {
        let node = &self.nodes[idx];
        node.alive
            && !self.slow[idx]
            && self.linked(idx, self.leader)
            && node.matched_epoch == self.leader_epoch
            && node.matched_end >= leader_end
    }

    /// Per-tick controller work, O(nodes): lag removal, rejoin, HW, apply
    /// HW into `committed_data`, lease renewal.
    pub(crate) fn refresh(&mut self) {
        if !self.leader_available() {
            return;
        }
        let now = self.tick_now();
        let l = self.leader;
        let leader_end = self.nodes[l].log.end();
        for j in 0..self.nodes.len() {
            if j == l {
                continue;
            }
            let caught = self.caught_up(j, leader_end);
            if caught {
                self.last_caught_up[j] = now;
            }
            if self.in_isr[j] {
                let lag = now.saturating_sub(self.last_caught_up[j]);
                if !caught && lag >= self.config.replica_lag_timeout {
                    self.in_isr[j] = false;
                    record!(
                        self.trace,
                        now,
                        "isr_member_removed",
                        node = &self.nodes[j].id,
                        reason = "lag",
                        lag_ticks = lag,
                        log_end = self.nodes[j].log.end(),
                        leader_log_end = leader_end,
                        isr = self.isr_sorted()
                    );
                }
            } else if caught {
                self.in_isr[j] = true;
                record!(
                    self.trace,
                    now,
                    "isr_member_added",
                    node = &self.nodes[j].id,
                    log_end = self.nodes[j].log.end(),
                    leader_epoch = self.leader_epoch,
                    isr = self.isr_sorted()
                );
            }
        }
        self.advance_high_watermark();
        let mut reachable = 0;
        for j in 0..self.nodes.len() {
            if self.in_isr[j]
                && self.nodes[j].alive
                && (j == l || (!self.slow[j] && self.linked(j, l)))
            {
                reachable += 1;
            }
        }
        if reachable >= self.config.min_insync_replicas {
            self.lease_expiry = now.saturating_add(self.config.lease_duration);
        }
    }

    /// HW = max(HW, min over alive ISR members of their confirmed log end);
    /// then every alive replica applies up to min(HW, its confirmed end).
    pub(crate) fn advance_high_watermark(&mut self) {
        let mut candidate = u64::MAX;
        for j in 0..self.nodes.len() {
            if self.in_isr[j] && self.nodes[j].alive {
                candidate = candidate.min(self.match_of(j));
            }
        }
        if candidate != u64::MAX && candidate > self.high_watermark {
            let from = self.high_watermark;
            self.high_watermark = candidate;
            record!(
                self.trace,
                self.tick_now(),
                "isr_high_watermark_advanced",
                from = from,
                to = candidate,
                isr = self.isr_sorted()
            );
        }
        let hw = self.high_watermark;
        for j in 0..self.nodes.len() {
            if self.nodes[j].alive {
                let target = hw.min(self.match_of(j));
                self.nodes[j].log.apply_through(target);
            }
        }
    }

    /// The retained window of the leader's log: `(first, last)` offsets,
    /// `first > last` when the log is empty.
    pub(crate) fn retained_range(&self) -> (u64, u64) {
        let end = self.nodes[self.leader].log.end();
        let first = end.saturating_sub(self.config.retention as u64) + 1;
        (first, end)
    }

    /// Tells replica `idx` the controller's leader and epoch, if the
    /// controller can reach it (alive and not isolated).
    pub(crate) fn notify(&mut self, idx: usize) {
        let node = &self.nodes[idx];
        if !node.alive || self.isolated[idx] {
            return;
        }
        let leader_id = self.nodes[self.leader].id.clone();
        if node.known_epoch == self.leader_epoch && node.known_leader == leader_id {
            return;
        }
        let now = self.tick_now();
        let node = &mut self.nodes[idx];
        node.known_epoch = self.leader_epoch;
        node.known_leader = leader_id;
        record!(
            self.trace,
            now,
            "isr_leader_learned",
            node = &node.id,
            leader = &node.known_leader,
            leader_epoch = node.known_epoch
        );
    }

    /// Starts catching follower `idx` up from the current leader:
    /// incremental from the end of their shared prefix when that is level
    /// or inside the retained window, otherwise a full snapshot.
    pub(crate) fn sync(&mut self, idx: usize) {
        let l = self.leader;
        if idx == l
            || !self.leader_available()
            || !self.nodes[idx].alive
            || self.slow[idx]
            || !self.linked(l, idx)
        {
            return;
        }
        let shared = self.nodes[idx].log.shared_prefix_with(&self.nodes[l].log);
        let (first, end) = self.retained_range();
        let leader = &self.nodes[l];
        let incremental = shared == end || shared + 1 >= first;
        let msg = if incremental {
            IsrMessage::Append {
                kind: AppendKind::CatchUp,
                leader_epoch: self.leader_epoch,
                source: leader.id.clone(),
                prev_offset: shared,
                prev_epoch: leader.log.epoch_at(shared),
                entries: Arc::from(&leader.log.entries[shared as usize..]),
                leader_log_end: end,
                high_watermark: self.high_watermark,
            }
        } else {
            IsrMessage::Snapshot {
                leader_epoch: self.leader_epoch,
                source: leader.id.clone(),
                log: Arc::from(leader.log.entries.as_slice()),
                high_watermark: self.high_watermark,
            }
        };
        record!(
            self.trace,
            self.tick_now(),
            "isr_catch_up_started",
            leader = &leader.id,
            node = &self.nodes[idx].id,
            mode = if incremental { "incremental" } else { "full" },
            from_offset = shared + 1,
            leader_log_end = end,
            retained_first = first
        );
        self.send(l, idx, msg);
    }

    /// A clean election of `idx`: both epochs + 1, the candidate's log
    /// truncated to HW, the previous leader out of the ISR, a new lease,
    /// every reachable replica told, every alive follower resynchronised.
    pub(crate) fn elect(&mut self, idx: usize, reason: &'static str) {
        self.elect_with(idx, reason, true);
    }

    /// An unclean election of `idx` (`unclean.leader.election.enable`, no
    /// ISR member alive): both epochs + 1, the candidate keeps its whole
    /// log, the ISR becomes just the candidate, and the high watermark is
    /// reset to the candidate's log end — acknowledged entries above it
    /// are gone, and followers truncate to the new leader's log.
    pub(crate) fn elect_unclean(&mut self, idx: usize) {
        self.elect_with(idx, "unclean_election", false);
    }

    fn elect_with(&mut self, idx: usize, reason: &'static str, clean: bool) {
        let now = self.tick_now();
        let previous = self.leader;
        self.leader_epoch += 1;
        self.controller_epoch += 1;
        if !clean {
            let before = self.high_watermark;
            let end = self.nodes[idx].log.end();
            for member in &mut self.in_isr {
                *member = false;
            }
            self.high_watermark = end;
            self.unclean_epoch = self.leader_epoch;
            record!(
                self.trace,
                now,
                "isr_unclean_election",
                leader = &self.nodes[idx].id,
                previous = &self.nodes[previous].id,
                leader_epoch = self.leader_epoch,
                log_end = end,
                high_watermark_before = before,
                high_watermark = end,
                offsets_lost = before.saturating_sub(end)
            );
        }
        let hw = self.high_watermark;
        if self.nodes[idx].log.truncate_above(hw) {
            record!(
                self.trace,
                now,
                "isr_log_truncated",
                node = &self.nodes[idx].id,
                above = hw,
                reason = "clean_election"
            );
            self.clamp_durable(idx, hw);
        }
        self.slow[idx] = false;
        if previous != idx && self.in_isr[previous] {
            self.in_isr[previous] = false;
            record!(
                self.trace,
                now,
                "isr_member_removed",
                node = &self.nodes[previous].id,
                reason = "displaced_leader",
                lag_ticks = 0u64,
                log_end = self.nodes[previous].log.end(),
                leader_log_end = hw,
                isr = self.isr_sorted()
            );
        }
        self.in_isr[idx] = true;
        self.leader = idx;
        self.lease_expiry = now.saturating_add(self.config.lease_duration);
        let epoch = self.leader_epoch;
        let leader_id = self.nodes[idx].id.clone();
        let node = &mut self.nodes[idx];
        // Electing a replica means the controller reached it.
        node.known_epoch = epoch;
        node.known_leader = leader_id;
        node.matched_epoch = epoch;
        node.matched_end = node.log.end();
        node.log.apply_through(hw);
        for t in &mut self.last_caught_up {
            *t = now;
        }
        record!(
            self.trace,
            now,
            "isr_controller_elected",
            leader = &self.nodes[idx].id,
            previous = &self.nodes[previous].id,
            leader_epoch = epoch,
            controller_epoch = self.controller_epoch,
            high_watermark = hw,
            reason = reason,
            isr = self.isr_sorted()
        );
        for j in 0..self.nodes.len() {
            self.notify(j);
        }
        for j in 0..self.nodes.len() {
            self.sync(j);
        }
    }
}
