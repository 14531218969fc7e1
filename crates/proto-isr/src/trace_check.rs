//! Does the trace tell the truth? Folds an ISR group's trace from
//! `isr_group_started` — the membership, the high watermark, the
//! controller's leader, each replica's log end, durable mark and fenced
//! count, and the harness's faults — and compares where it ends with the
//! controller and the replicas. On the way it checks what each event
//! claims when it is made:
//!
//! - an appended offset follows the log end; an fsync reports the log end;
//!   a divergence cut drops an entry of another epoch than the one then
//!   appended in its place (the fold keeps each entry's epoch);
//! - HW advances from where it was, and up;
//! - a removal names an ISR member and its reason holds (`crashed`: the
//!   replica is down; `displaced_leader`: it led; `lag`: it is up, not the
//!   leader, and its lag has just reached the timeout); an addition names
//!   a non-member;
//! - an election's reason holds (`controller_elect`: an ISR member;
//!   `unclean_election`: a replica outside the ISR; `leader_restarted`:
//!   the previous leader again); a learned leader is news to the replica;
//! - a rejection names a known reason;
//! - a catch-up goes to a follower that is up, not slow and linked to the
//!   leader both ways, in the mode SPEC's rule gives for its offsets;
//! - a fetch answers a recorded log mismatch (the only thing that sends
//!   one);
//! - a stale leader's resend comes from a replica that believes it leads,
//!   is a suffix of its log that starts one past the high watermark it
//!   applied (as far as the trace shows it: what it applied as the
//!   controller's leader), and goes to every peer; a displaced leader
//!   healed while it still believes it leads, its log above HW, resends at
//!   once (SPEC's stale-leader resend; its belief is followed through
//!   elections, the leaders it learns and its crashes, after which the
//!   trace cannot tell); every packet of that resend delivered to a
//!   replica that knows another epoch is fenced in the next event;
//! - a write's completion follows the decision that ended it
//!   (`isr_write_acknowledged` or `isr_write_refused` at its offset), and
//!   a refusal states the ISR and HW the fold has.
//!
//! The diagrams, the report and every pinned snapshot are drawn from the
//! trace, so a trace that drops a controller decision or misreports an
//! offset misleads every reader while the protocol itself stays correct.
//! The fold is written from the event vocabulary ([`crate::events`]), not
//! from the code that emits the events.

use std::collections::{BTreeMap, BTreeSet};

use replication::{Cluster, NodeId};
use sim_core::{EventRef, Trace, Value};

use crate::controller::Controller;
use crate::message::IsrMessage;
use crate::node::IsrNode;

/// What the trace says of one replica.
#[derive(Debug, Clone, Default)]
struct Replica {
    /// The epoch of each entry of its log (offset 1 first); `None` where
    /// a snapshot installed entries the trace does not list.
    epochs: Vec<Option<u64>>,
    end: u64,
    durable: u64,
    fenced: u64,
    down: bool,
    /// A floor under the high watermark it has applied: the HW it
    /// applied as the controller's leader (a leader applies each HW in
    /// the refresh that advances it), lowered by a truncation, forgotten
    /// at a crash or a snapshot.
    applied_floor: u64,
    /// Whether it believes it leads, when the trace says for certain: set
    /// by the start, an election naming it and each leader it learns;
    /// unknown after a crash (it then awaits the controller, which may
    /// give its leadership back without news to record).
    leads: Option<bool>,
    /// The leader epoch it knows: set by the start, an election naming it
    /// and each leader it learns (nothing else changes it). A leader's
    /// packet of another epoch is fenced.
    known_epoch: u64,
    /// The leader it knows (in `known_epoch`): set where that is.
    known_leader: Option<usize>,
}

/// What the trace says of the partition.
struct Fold<'a> {
    ids: &'a [NodeId],
    replicas: Vec<Replica>,
    isr: Vec<NodeId>,
    leader: Option<NodeId>,
    high_watermark: u64,
    /// `[follower][leader]`: log-mismatch refusals not yet answered by a
    /// fetch the leader received (each refusal sends exactly one fetch).
    unfetched: Vec<Vec<u64>>,
    /// `[follower][leader]`: a log-mismatch refusal was ever recorded.
    mismatched: Vec<Vec<bool>>,
    /// A replica healed as a displaced leader that must resend its
    /// suffix in the very next event.
    owed_resend: Option<usize>,
    /// The replica resending a stale suffix, its epoch, and the replicas
    /// sent to so far, while the sends of that resend are being recorded.
    resending: Option<(usize, u64, Vec<bool>)>,
    /// Message id → epoch of every packet a stale resend sent.
    stale_packets: BTreeMap<u64, u64>,
    /// A replica just delivered a stale packet of an epoch it does not
    /// know: its fencing of it is owed in the very next event.
    owed_fencing: Option<usize>,
    /// The network may deliver a message twice: a fetch then needs only
    /// some refusal before it (a copy is not a second request), not one
    /// of its own.
    duplicates: bool,
    /// The harness's faults, as the trace records them: isolated
    /// replicas, one-way cuts `[from][to]`, slow replicas.
    isolated: Vec<bool>,
    cuts: Vec<Vec<bool>>,
    slow: Vec<bool>,
    /// `replica.lag.time.max.ms`, in ticks, from the start.
    lag_timeout: u64,
    /// A divergence cut the previous event recorded: the replica, and
    /// the epoch of the first entry it dropped (when the trace shows it).
    diverged: Option<(usize, Option<u64>)>,
    /// Ids of the write operations clients submitted.
    writes: BTreeSet<u64>,
    /// The write decision the previous event recorded, if it was one:
    /// whether it acknowledged, and at which offset.
    decided: Option<(bool, Option<u64>)>,
}

/// The offset an event names, if any (`None` when it names none).
fn offset_of(e: &EventRef<'_>) -> Option<u64> {
    match e.field("offset") {
        Some(Value::UInt(n)) => Some(n),
        _ => None,
    }
}

fn nodes(e: &EventRef<'_>, key: &str) -> Result<Vec<NodeId>, String> {
    match e.field(key) {
        Some(Value::List(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::Node(n) => Ok(n),
                other => Err(format!("{} lists {other:?} in {key}", e.kind)),
            })
            .collect(),
        other => Err(format!("{} has no node list {key} ({other:?})", e.kind)),
    }
}

/// SPEC's catch-up rule on the event's own fields: `incremental` when
/// the follower is level (its next offset is the leader's log end + 1) or
/// that offset is still inside the retained window, else `full`.
fn catch_up_mode_holds(e: &EventRef<'_>) -> Result<(), String> {
    let from = e.uint("from_offset")?;
    let end = e.uint("leader_log_end")?;
    let first = e.uint("retained_first")?;
    let rule = if from == end + 1 || from >= first {
        "incremental"
    } else {
        "full"
    };
    match e.str_field("mode") {
        Some(mode) if mode == rule => Ok(()),
        mode => Err(format!(
            "isr_catch_up_started says {mode:?} from offset {from} (leader log end {end}, retained from {first}); the rule says {rule}"
        )),
    }
}

/// The same members, in any order (an ISR names each replica once).
fn same_members(a: &[NodeId], b: &[NodeId]) -> bool {
    a.len() == b.len() && a.iter().all(|n| b.contains(n))
}

impl Fold<'_> {
    fn appended(
        &mut self,
        e: &EventRef<'_>,
        redone: Option<(usize, Option<u64>)>,
    ) -> Result<(), String> {
        let i = e.node_index("node", self.ids)?;
        let offset = e.uint("offset")?;
        let epoch = e.uint("epoch")?;
        let r = &mut self.replicas[i];
        if offset != r.end + 1 {
            return Err(format!(
                "{} at {} offset {offset}, but its log ended at {}",
                e.kind, self.ids[i], r.end
            ));
        }
        // A divergence cut drops an entry of another epoch than the one
        // that replaces it.
        if let Some((at, Some(dropped))) = redone
            && at == i
            && dropped == epoch
        {
            return Err(format!(
                "{} truncated its log above {} for divergence, then appended offset {offset} in the epoch ({epoch}) of the entry it dropped there",
                self.ids[i], r.end
            ));
        }
        r.end = offset;
        r.epochs.truncate(offset as usize - 1);
        r.epochs.push(Some(epoch));
        Ok(())
    }

    fn removed(&mut self, e: &EventRef<'_>) -> Result<(), String> {
        let i = e.node_index("node", self.ids)?;
        let node = &self.ids[i];
        let leads = self.leader.as_ref() == Some(node);
        if !self.isr.contains(node) {
            return Err(format!(
                "isr_member_removed of {node}, which is not in the ISR {:?}",
                self.isr
            ));
        }
        let holds = match e.str_field("reason") {
            Some("crashed") => self.replicas[i].down,
            Some("displaced_leader") => leads,
            Some("lag") => !self.replicas[i].down && !leads,
            other => {
                return Err(format!(
                    "isr_member_removed of {node} gives reason {other:?}"
                ));
            }
        };
        if !holds {
            return Err(format!(
                "isr_member_removed of {node} gives reason {} while it is {} and {}the leader",
                e.str_field("reason").unwrap_or(""),
                if self.replicas[i].down { "down" } else { "up" },
                if leads { "" } else { "not " }
            ));
        }
        // The controller checks every tick: a member leaves for lag the
        // first tick its lag reaches the timeout.
        let lag = e.uint("lag_ticks")?;
        if e.str_field("reason") == Some("lag") && lag != self.lag_timeout {
            return Err(format!(
                "isr_member_removed of {node} for lag after {lag} ticks; the lag timeout is {}",
                self.lag_timeout
            ));
        }
        self.isr = nodes(e, "isr")?;
        Ok(())
    }

    /// A write's completion follows the decision that ended it, recorded
    /// in the event before: `done` after `isr_write_acknowledged` at its
    /// offset, `unknown` after `isr_write_refused` at its offset, and a
    /// write refused before it was appended (`failed`) after
    /// `isr_write_refused` naming no offset.
    fn completed(
        &self,
        e: &EventRef<'_>,
        decided: Option<(bool, Option<u64>)>,
    ) -> Result<(), String> {
        if !self.writes.contains(&e.uint("op")?) {
            return Ok(());
        }
        let outcome = e.str_field("outcome");
        let wanted = match outcome {
            Some("done") => (true, offset_of(e)),
            Some("unknown") => (false, offset_of(e)),
            Some("failed") => (false, None),
            other => return Err(format!("client_op_completed gives outcome {other:?}")),
        };
        if decided != Some(wanted) {
            let (acknowledged, offset) = wanted;
            return Err(format!(
                "a write completed {} at offset {offset:?}, but the event before it was not {} at that offset",
                outcome.unwrap_or(""),
                if acknowledged {
                    "isr_write_acknowledged"
                } else {
                    "isr_write_refused"
                }
            ));
        }
        Ok(())
    }

    /// `isr_write_refused` states the ISR and HW the fold has.
    fn refused(&self, e: &EventRef<'_>) -> Result<(), String> {
        let isr = nodes(e, "isr")?;
        let hw = e.uint("high_watermark")?;
        if !same_members(&isr, &self.isr) || hw != self.high_watermark {
            return Err(format!(
                "isr_write_refused states ISR {isr:?} and HW {hw}; they are {:?} and {}",
                self.isr, self.high_watermark
            ));
        }
        Ok(())
    }

    /// Messages flow both ways between `a` and `b`.
    fn linked(&self, a: usize, b: usize) -> bool {
        a == b || !(self.isolated[a] || self.isolated[b] || self.cuts[a][b] || self.cuts[b][a])
    }

    /// A catch-up starts only for a follower the leader may resynchronise:
    /// up, not slow, linked to it both ways.
    fn catching_up(&self, e: &EventRef<'_>) -> Result<(), String> {
        let (l, j) = (
            e.node_index("leader", self.ids)?,
            e.node_index("node", self.ids)?,
        );
        let r = &self.replicas[j];
        if r.down || self.slow[j] || !self.linked(l, j) {
            return Err(format!(
                "isr_catch_up_started from {} to {}, which is {}",
                self.ids[l],
                self.ids[j],
                if r.down {
                    "down"
                } else if self.slow[j] {
                    "slow"
                } else {
                    "cut off from it"
                }
            ));
        }
        catch_up_mode_holds(e)
    }

    /// A stale resend goes to every other replica.
    fn resent_to_all(&self, i: usize, sent: &[bool]) -> Result<(), String> {
        match (0..sent.len()).find(|&j| j != i && !sent[j]) {
            Some(j) => Err(format!(
                "{}'s stale resend sent nothing to {}: it goes to every peer",
                self.ids[i], self.ids[j]
            )),
            None => Ok(()),
        }
    }

    fn step(&mut self, e: &EventRef<'_>) -> Result<(), String> {
        let decided = self.decided.take();
        let diverged = self.diverged.take();
        if let Some(i) = self.owed_resend.take()
            && !(e.kind == "isr_stale_leader_resent" && e.node_index("node", self.ids)? == i)
        {
            return Err(format!(
                "{} was healed believing it leads an old epoch, its log (end {}) above HW {}, but did not resend its suffix ({} came next)",
                self.ids[i], self.replicas[i].end, self.high_watermark, e.kind
            ));
        }
        if let Some(j) = self.owed_fencing.take()
            && !(e.kind == "isr_append_rejected" && e.node_index("node", self.ids)? == j)
        {
            return Err(format!(
                "{} was delivered a stale leader's resent packet of an epoch it does not know ({}), but did not fence it ({} came next)",
                self.ids[j], self.replicas[j].known_epoch, e.kind
            ));
        }
        if let Some((i, epoch, mut sent)) = self.resending.take() {
            let from_it = || e.node_index("src", self.ids).is_ok_and(|src| src == i);
            match e.kind {
                "message_sent" if from_it() => {
                    if e.str_field("msg") == Some("isr_append") {
                        self.stale_packets.insert(e.uint("id")?, epoch);
                        let to = e.node_index("dst", self.ids)?;
                        if to == i || sent[to] {
                            return Err(format!(
                                "{}'s stale resend sent to {} twice or to itself",
                                self.ids[i], self.ids[to]
                            ));
                        }
                        sent[to] = true;
                    }
                    self.resending = Some((i, epoch, sent));
                }
                "message_dropped" | "message_duplicated" if from_it() => {
                    self.resending = Some((i, epoch, sent));
                }
                _ => self.resent_to_all(i, &sent)?,
            }
        }
        match e.kind {
            "client_op_submitted" if e.str_field("kind") == Some("write") => {
                self.writes.insert(e.uint("op")?);
            }
            "client_op_completed" => self.completed(e, decided)?,
            "isr_write_acknowledged" => self.decided = Some((true, offset_of(e))),
            "isr_write_refused" => {
                self.refused(e)?;
                self.decided = Some((false, offset_of(e)));
            }
            "message_delivered" => {
                if let Some(&epoch) = self.stale_packets.get(&e.uint("id")?) {
                    let j = e.node_index("dst", self.ids)?;
                    if self.replicas[j].known_epoch != epoch {
                        self.owed_fencing = Some(j);
                    }
                }
            }
            "isr_group_started" => {
                self.isr = nodes(e, "nodes")?;
                self.lag_timeout = e.uint("replica_lag_timeout")?;
                self.leader = e.node_field("leader").cloned();
                let epoch = e.uint("leader_epoch")?;
                let leader = self
                    .leader
                    .as_ref()
                    .and_then(|l| self.ids.iter().position(|n| n == l));
                for (r, id) in self.replicas.iter_mut().zip(self.ids) {
                    r.leads = Some(self.leader.as_ref() == Some(id));
                    r.known_epoch = epoch;
                    r.known_leader = leader;
                }
            }
            "node_healed" => {
                let i = e.node_index("node", self.ids)?;
                self.isolated[i] = false;
                for (a, row) in self.cuts.iter_mut().enumerate() {
                    for (b, cut) in row.iter_mut().enumerate() {
                        if a == i || b == i {
                            *cut = false;
                        }
                    }
                }
                // A displaced leader that still believes it leads resends
                // its suffix above the HW it applied (at most HW) when it
                // reconnects, before it hears of the election.
                let i = e.node_index("node", self.ids)?;
                let r = &self.replicas[i];
                if !r.down
                    && r.leads == Some(true)
                    && self.leader.as_ref() != Some(&self.ids[i])
                    && r.end > self.high_watermark
                {
                    self.owed_resend = Some(i);
                }
            }
            "node_crashed" => {
                let i = e.node_index("node", self.ids)?;
                self.replicas[i].down = true;
                self.replicas[i].applied_floor = 0;
                self.replicas[i].leads = None;
            }
            "node_restarted" => {
                let i = e.node_index("node", self.ids)?;
                self.replicas[i].down = false;
            }
            "isr_leader_appended" | "isr_entry_appended" => self.appended(e, diverged)?,
            "isr_log_truncated" => {
                let i = e.node_index("node", self.ids)?;
                let above = e.uint("above")?;
                let r = &mut self.replicas[i];
                if e.str_field("reason") == Some("divergence") {
                    self.diverged = Some((i, r.epochs.get(above as usize).copied().flatten()));
                }
                r.end = r.end.min(above);
                r.epochs.truncate(above as usize);
                r.durable = r.durable.min(above);
                r.applied_floor = r.applied_floor.min(above);
            }
            "isr_snapshot_installed" => {
                let i = e.node_index("node", self.ids)?;
                let r = &mut self.replicas[i];
                // The replaced log is not on disk.
                r.durable = 0;
                r.applied_floor = 0;
                r.end = e.uint("log_end")?;
                r.epochs = vec![None; r.end as usize];
            }
            "isr_fsync" => {
                let i = e.node_index("node", self.ids)?;
                let durable = e.uint("durable_offset")?;
                let r = &mut self.replicas[i];
                if durable != r.end {
                    return Err(format!(
                        "isr_fsync of {} reports durable offset {durable}, but its log ends at {}",
                        self.ids[i], r.end
                    ));
                }
                r.durable = durable;
            }
            "isr_append_rejected" => {
                let i = e.node_index("node", self.ids)?;
                match e.str_field("reason") {
                    Some("stale_leader_epoch" | "non_current_leader") => {
                        self.replicas[i].fenced += 1;
                    }
                    Some("log_mismatch") => {
                        let to = e.node_index("source", self.ids)?;
                        self.unfetched[i][to] += 1;
                        self.mismatched[i][to] = true;
                    }
                    other => {
                        return Err(format!(
                            "isr_append_rejected at {} gives reason {other:?}",
                            self.ids[i]
                        ));
                    }
                }
            }
            "isr_catch_up_started" => self.catching_up(e)?,
            "node_isolated" => {
                let i = e.node_index("node", self.ids)?;
                self.isolated[i] = true;
            }
            "link_cut" | "link_restored" => {
                let (a, b) = (
                    e.node_index("from", self.ids)?,
                    e.node_index("to", self.ids)?,
                );
                self.cuts[a][b] = e.kind == "link_cut";
            }
            "all_healed" => {
                self.isolated.iter_mut().for_each(|i| *i = false);
                self.cuts.iter_mut().flatten().for_each(|c| *c = false);
            }
            "node_slow" => {
                let i = e.node_index("node", self.ids)?;
                self.slow[i] = matches!(e.field("slow"), Some(Value::Bool(true)));
            }
            "isr_fetch_received" => {
                let (leader, follower) = (
                    e.node_index("leader", self.ids)?,
                    e.node_index("node", self.ids)?,
                );
                let owed = &mut self.unfetched[follower][leader];
                if self.duplicates {
                    if !self.mismatched[follower][leader] {
                        return Err(format!(
                            "isr_fetch_received at {} from {}, which never recorded a log mismatch",
                            self.ids[leader], self.ids[follower]
                        ));
                    }
                } else if *owed == 0 {
                    return Err(format!(
                        "isr_fetch_received at {} from {}, which recorded no log mismatch to fetch after",
                        self.ids[leader], self.ids[follower]
                    ));
                } else {
                    *owed -= 1;
                }
            }
            "isr_stale_leader_resent" => {
                let (from, end) = (e.uint("from_offset")?, e.uint("log_end")?);
                if from == 0 || from > end {
                    return Err(format!(
                        "isr_stale_leader_resent offsets {from}..={end}: not a suffix of the log"
                    ));
                }
                // Only a replica that believes it leads resends.
                let i = e.node_index("node", self.ids)?;
                if self.replicas[i].leads == Some(false) {
                    return Err(format!(
                        "isr_stale_leader_resent at {}, which does not believe it leads",
                        self.ids[i]
                    ));
                }
                // What it resends is what lies above the HW it applied.
                let floor = self.replicas[i].applied_floor;
                if from <= floor || from > self.high_watermark + 1 {
                    return Err(format!(
                        "isr_stale_leader_resent at {} from offset {from}, but it applied HW {floor} as leader and HW is {}: it resends from one past the HW it applied",
                        self.ids[i], self.high_watermark
                    ));
                }
                // Its sends follow: each packet carries this epoch.
                self.resending = Some((i, e.uint("leader_epoch")?, vec![false; self.ids.len()]));
            }
            "isr_member_removed" => self.removed(e)?,
            "isr_member_added" => {
                let i = e.node_index("node", self.ids)?;
                if self.isr.contains(&self.ids[i]) {
                    return Err(format!(
                        "isr_member_added of {}, already in the ISR {:?}",
                        self.ids[i], self.isr
                    ));
                }
                self.isr = nodes(e, "isr")?;
            }
            "isr_high_watermark_advanced" => {
                let from = e.uint("from")?;
                if from != self.high_watermark {
                    return Err(format!(
                        "isr_high_watermark_advanced from {from}, but HW was {}",
                        self.high_watermark
                    ));
                }
                let to = e.uint("to")?;
                if to <= from {
                    return Err(format!(
                        "isr_high_watermark_advanced from {from} to {to}: not an advance"
                    ));
                }
                self.high_watermark = to;
                self.isr = nodes(e, "isr")?;
                // The leader applies it in the same refresh.
                if let Some(l) = self
                    .leader
                    .as_ref()
                    .and_then(|l| self.ids.iter().position(|n| n == l))
                {
                    let r = &mut self.replicas[l];
                    if !r.down {
                        r.applied_floor = r.applied_floor.max(self.high_watermark.min(r.end));
                    }
                }
            }
            "isr_controller_elected" => {
                let previous = e.node_field("previous");
                if previous != self.leader.as_ref() {
                    return Err(format!(
                        "isr_controller_elected names previous leader {previous:?}, but {:?} led",
                        self.leader
                    ));
                }
                // A clean election picks an ISR member, an unclean one a
                // replica outside it; a restarted leader is elected again.
                let leader = e.node_field("leader");
                let outside = leader.is_some_and(|l| !self.isr.contains(l));
                let holds = match e.str_field("reason") {
                    Some("controller_elect") => !outside,
                    Some("unclean_election") => outside,
                    Some("leader_restarted") => leader == previous,
                    _ => false,
                };
                if !holds {
                    return Err(format!(
                        "isr_controller_elected gives reason {:?} for leader {leader:?} (previous {previous:?}, ISR {:?})",
                        e.str_field("reason"),
                        self.isr
                    ));
                }
                self.leader = e.node_field("leader").cloned();
                self.high_watermark = e.uint("high_watermark")?;
                self.isr = nodes(e, "isr")?;
                // The candidate takes office at once.
                let l = e.node_index("leader", self.ids)?;
                // An elected replica is never slow.
                self.slow[l] = false;
                self.replicas[l].leads = Some(true);
                self.replicas[l].known_epoch = e.uint("leader_epoch")?;
                self.replicas[l].known_leader = Some(l);
            }
            "isr_leader_learned" => {
                let (i, l) = (
                    e.node_index("node", self.ids)?,
                    e.node_index("leader", self.ids)?,
                );
                let epoch = e.uint("leader_epoch")?;
                let r = &mut self.replicas[i];
                if (r.known_leader, r.known_epoch) == (Some(l), epoch) {
                    return Err(format!(
                        "isr_leader_learned at {}: leader {} of epoch {epoch} is no news to it",
                        self.ids[i], self.ids[l]
                    ));
                }
                r.leads = Some(i == l);
                r.known_epoch = epoch;
                r.known_leader = Some(l);
            }
            _ => {}
        }
        Ok(())
    }
}

/// Folds `trace` (recorded since the group started) and compares the
/// result with `controller`, `nodes` and the harness: `Err` names the
/// first event that claims something untrue, or the first field where
/// the fold and the state differ.
pub(crate) fn agrees(
    trace: &Trace,
    controller: &Controller,
    nodes: &[IsrNode],
    cluster: &Cluster<IsrMessage>,
) -> Result<(), String> {
    let ids = cluster.ids();
    let mut fold = Fold {
        ids,
        replicas: vec![Replica::default(); ids.len()],
        isr: Vec::new(),
        leader: None,
        high_watermark: 0,
        unfetched: vec![vec![0; ids.len()]; ids.len()],
        mismatched: vec![vec![false; ids.len()]; ids.len()],
        owed_resend: None,
        resending: None,
        stale_packets: BTreeMap::new(),
        owed_fencing: None,
        duplicates: cluster.net_config().duplicate_rate > 0.0,
        isolated: vec![false; ids.len()],
        cuts: vec![vec![false; ids.len()]; ids.len()],
        slow: vec![false; ids.len()],
        lag_timeout: 0,
        diverged: None,
        writes: BTreeSet::new(),
        decided: None,
    };
    for e in trace.events() {
        fold.step(&e)
            .map_err(|why| format!("trace event #{} at tick {}: {why}", e.seq, e.tick))?;
    }
    if let Some((i, _, sent)) = &fold.resending {
        fold.resent_to_all(*i, sent)
            .map_err(|why| format!("at the trace's end: {why}"))?;
    }
    if let Some(j) = fold.owed_fencing {
        return Err(format!(
            "{} was delivered a stale leader's resent packet of an epoch it does not know, but the trace ends before it fences it",
            ids[j]
        ));
    }
    if let Some(i) = fold.owed_resend {
        return Err(format!(
            "{} was healed believing it leads an old epoch, its log above HW, but the trace ends before its resend",
            ids[i]
        ));
    }
    let isr: Vec<NodeId> = controller
        .isr()
        .into_iter()
        .map(|i| ids[i].clone())
        .collect();
    if !same_members(&fold.isr, &isr) {
        return Err(format!(
            "the trace's ISR is {:?}, the controller's {isr:?}",
            fold.isr
        ));
    }
    if fold.high_watermark != controller.high_watermark() {
        return Err(format!(
            "the trace's HW is {}, the controller's {}",
            fold.high_watermark,
            controller.high_watermark()
        ));
    }
    if fold.leader.as_ref() != Some(&ids[controller.leader()]) {
        return Err(format!(
            "the trace's leader is {:?}, the controller's {}",
            fold.leader,
            ids[controller.leader()]
        ));
    }
    for (i, (r, n)) in fold.replicas.iter().zip(nodes).enumerate() {
        let state = (n.log_end_offset(), n.durable_offset(), n.fenced_packets());
        if (r.end, r.durable, r.fenced) != state {
            return Err(format!(
                "the trace has {} at log end {}, durable {}, fenced {}; the replica is at {}, {}, {}",
                ids[i], r.end, r.durable, r.fenced, state.0, state.1, state.2
            ));
        }
        if r.down == cluster.is_alive(i) {
            return Err(format!(
                "the trace has {} {}",
                ids[i],
                if r.down { "down" } else { "up" }
            ));
        }
    }
    Ok(())
}
