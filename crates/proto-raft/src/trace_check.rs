//! Does the trace tell the truth? Folds a Raft group's trace from
//! `raft_group_started` — each node's log (the term of every index), its
//! snapshot and its commit index — and compares where it ends with the
//! nodes. On the way it checks what each event claims when it is made:
//!
//! - a leader's no-op and each proposed write land one past its log end;
//! - `raft_entries_appended` appends, after the truncation it reports,
//!   exactly at the log end the entries the leader's AppendEntries
//!   carried (the fold knows, for every AppendEntries sent, the sender's
//!   log as it was then), and its `last` is the new log end;
//! - `raft_append_rejected`'s conflict index is the hint the rejecting
//!   log gives (§5.3's optimisation): one past its log end when it does
//!   not reach `prev_log_index`, else the first index of the conflicting
//!   term, never at or below its commit index;
//! - `raft_catch_up` runs to the leader's log end, and its mode is
//!   `snapshot` exactly when it starts at or below the leader's snapshot;
//! - a snapshot taken covers committed entries and has the term the log
//!   holds at its index; one installed lies above the commit index and
//!   keeps the log's suffix exactly when the log holds its term there;
//! - the commit index only rises, and never past the log end.
//!
//! The diagrams, the report and every pinned snapshot are drawn from the
//! trace, so a trace that misreports an index misleads every reader while
//! the protocol itself stays correct. The fold is written from the event
//! vocabulary ([`crate::events`]), not from the code that emits them.

use std::collections::BTreeMap;

use replication::{Cluster, NodeId};
use sim_core::{EventRef, Trace, Value};

use crate::message::Message;
use crate::node::RaftNode;

/// What the trace says of one node.
#[derive(Debug, Clone)]
struct Log {
    /// The term at every index from 0 (0 at index 0); indices below the
    /// snapshot's are compacted (kept, but not answered).
    terms: Vec<u64>,
    /// The terms of its earlier generations. A generation ends when an
    /// entry is overwritten (a truncation, a snapshot installed without
    /// the log's suffix); within one the log only grows, so what a
    /// message sent in it carried is still a prefix of that generation's
    /// terms.
    retired: Vec<Vec<u64>>,
    snapshot: (u64, u64),
    commit: u64,
    down: bool,
}

impl Log {
    fn last(&self) -> u64 {
        self.terms.len() as u64 - 1
    }

    /// The term the node's log answers at `index`, as `RaftNode::term_at`.
    fn term_at(&self, index: u64) -> Option<u64> {
        if index < self.snapshot.0 {
            return None;
        }
        self.terms.get(index as usize).copied()
    }

    /// The current generation.
    fn generation(&self) -> usize {
        self.retired.len()
    }

    /// The terms of generation `g` (the current one or a retired one).
    fn terms_of(&self, g: usize) -> &[u64] {
        self.retired.get(g).unwrap_or(&self.terms)
    }

    /// Rewrites the log with `change`, starting a new generation.
    fn rewrite(&mut self, change: impl FnOnce(&mut Vec<u64>)) {
        let mut terms = self.terms.clone();
        change(&mut terms);
        self.retired.push(std::mem::replace(&mut self.terms, terms));
    }

    fn truncate(&mut self, len: u64) {
        if (len as usize) < self.terms.len() {
            self.rewrite(|terms| terms.truncate(len as usize));
        }
    }

    fn push(&mut self, term: u64) {
        self.terms.push(term);
    }
}

/// Where an AppendEntries' entries came from.
#[derive(Debug, Clone, Copy)]
struct Sent {
    src: usize,
    generation: usize,
    len: usize,
}

struct Fold<'a> {
    ids: &'a [NodeId],
    logs: Vec<Log>,
    /// Message id of every AppendEntries with entries → its sender, the
    /// sender's log generation and its length then: what it carried is a
    /// prefix of that.
    sent: BTreeMap<u64, Sent>,
    /// The AppendEntries being handled: its receiver and where it came
    /// from.
    delivered: Option<(usize, Sent)>,
}

impl Fold<'_> {
    /// A leader's own append (its no-op, a proposed write) at `index`.
    fn own_append(&mut self, e: &EventRef<'_>, index: u64) -> Result<(), String> {
        let i = e.node_index("node", self.ids)?;
        let term = e.uint("term")?;
        let log = &mut self.logs[i];
        if index != log.last() + 1 {
            return Err(format!(
                "{} at {} index {index}, but its log ended at {}",
                e.kind,
                self.ids[i],
                log.last()
            ));
        }
        log.push(term);
        Ok(())
    }

    fn appended(&mut self, e: &EventRef<'_>) -> Result<(), String> {
        let i = e.node_index("node", self.ids)?;
        let (first, last) = (e.uint("first")?, e.uint("last")?);
        let sent = match self.delivered {
            Some((to, sent)) if to == i => sent,
            _ => {
                return Err(format!(
                    "raft_entries_appended at {} with no AppendEntries delivered to it",
                    self.ids[i]
                ));
            }
        };
        let terms = &self.logs[sent.src].terms_of(sent.generation)[..sent.len];
        let carried = terms
            .get(first as usize..=last as usize)
            .map(<[u64]>::to_vec);
        let log = &mut self.logs[i];
        if let Some(Value::UInt(from)) = e.field("truncated_from") {
            // Index 0 (the snapshot's sentinel) is never truncated.
            log.truncate(from.max(1));
        }
        if first != log.last() + 1 || last < first {
            return Err(format!(
                "raft_entries_appended at {} of {first}..={last}, but its log ends at {} after the truncation it reports",
                self.ids[i],
                log.last()
            ));
        }
        match carried {
            Some(carried) => carried.into_iter().for_each(|term| log.push(term)),
            None => {
                return Err(format!(
                    "raft_entries_appended at {} of {first}..={last}, which the leader's AppendEntries did not carry",
                    self.ids[i]
                ));
            }
        }
        Ok(())
    }

    /// The hint the rejecting log gives, as §5.3's optimisation computes
    /// it.
    fn rejected(&self, e: &EventRef<'_>) -> Result<(), String> {
        let i = e.node_index("node", self.ids)?;
        let (prev, hint) = (e.uint("prev_log_index")?, e.uint("conflict_index")?);
        let log = &self.logs[i];
        let expected = match log.term_at(prev) {
            None => log.last() + 1,
            Some(t) => {
                let mut first = prev;
                while first > log.commit + 1 && log.term_at(first - 1) == Some(t) {
                    first -= 1;
                }
                first
            }
        };
        if hint != expected {
            return Err(format!(
                "raft_append_rejected at {} gives conflict index {hint} for prev_log_index {prev}; its log (end {}, commit {}) gives {expected}",
                self.ids[i],
                log.last(),
                log.commit
            ));
        }
        Ok(())
    }

    fn catch_up(&self, e: &EventRef<'_>) -> Result<(), String> {
        let l = e.node_index("node", self.ids)?;
        let (from, to) = (e.uint("from_index")?, e.uint("to_index")?);
        let log = &self.logs[l];
        let mode = if from <= log.snapshot.0 {
            "snapshot"
        } else {
            "log replay"
        };
        if to != log.last() || e.str_field("mode") != Some(mode) {
            return Err(format!(
                "raft_catch_up at {} from {from} to {to} in mode {:?}; its log ends at {} and its snapshot is at {}, so {mode}",
                self.ids[l],
                e.str_field("mode"),
                log.last(),
                log.snapshot.0
            ));
        }
        Ok(())
    }

    fn step(&mut self, e: &EventRef<'_>) -> Result<(), String> {
        match e.kind {
            // A heartbeat carries no entries.
            "message_sent" if e.str_field("msg") == Some("append_entries") => {
                let src = e.node_index("src", self.ids)?;
                let log = &self.logs[src];
                let (generation, len) = (log.generation(), log.terms.len());
                self.sent.insert(
                    e.uint("id")?,
                    Sent {
                        src,
                        generation,
                        len,
                    },
                );
            }
            "message_delivered" => {
                let id = e.uint("id")?;
                self.delivered = match self.sent.get(&id) {
                    Some(&sent) => Some((e.node_index("dst", self.ids)?, sent)),
                    None => None,
                };
            }
            "node_crashed" => {
                let i = e.node_index("node", self.ids)?;
                let log = &mut self.logs[i];
                log.down = true;
                // The commit index is volatile: the snapshot's remains.
                log.commit = log.snapshot.0;
            }
            "node_restarted" => {
                let i = e.node_index("node", self.ids)?;
                self.logs[i].down = false;
            }
            "raft_leader_elected" => self.own_append(e, e.uint("noop_index")?)?,
            "raft_write_proposed" => self.own_append(e, e.uint("index")?)?,
            "raft_entries_appended" => self.appended(e)?,
            "raft_append_rejected" => self.rejected(e)?,
            "raft_catch_up" => self.catch_up(e)?,
            "raft_commit_advanced" => {
                let i = e.node_index("node", self.ids)?;
                let commit = e.uint("commit_index")?;
                let log = &mut self.logs[i];
                if commit <= log.commit || commit > log.last() {
                    return Err(format!(
                        "raft_commit_advanced at {} to {commit}, from {} with its log ending at {}",
                        self.ids[i],
                        log.commit,
                        log.last()
                    ));
                }
                log.commit = commit;
            }
            "raft_snapshot_taken" => {
                let i = e.node_index("node", self.ids)?;
                let (index, term) = (e.uint("index")?, e.uint("term")?);
                let log = &mut self.logs[i];
                if log.term_at(index) != Some(term) || index > log.commit {
                    return Err(format!(
                        "raft_snapshot_taken at {} through {index} of term {term}; its log holds {:?} there, committed through {}",
                        self.ids[i],
                        log.term_at(index),
                        log.commit
                    ));
                }
                log.snapshot = (index, term);
            }
            "raft_snapshot_installed" => {
                let i = e.node_index("node", self.ids)?;
                let (index, term) = (e.uint("index")?, e.uint("term")?);
                let log = &mut self.logs[i];
                // One at or below the commit index is acknowledged and
                // ignored.
                if index <= log.commit {
                    return Err(format!(
                        "raft_snapshot_installed at {} through {index}, not above its commit index {}",
                        self.ids[i], log.commit
                    ));
                }
                let kept = log.term_at(index) == Some(term);
                if e.field("kept_log_suffix") != Some(Value::Bool(kept)) {
                    return Err(format!(
                        "raft_snapshot_installed at {} through {index} of term {term} says kept_log_suffix {:?}; its log holds {:?} there",
                        self.ids[i],
                        e.field("kept_log_suffix"),
                        log.term_at(index)
                    ));
                }
                if !kept {
                    log.rewrite(|terms| {
                        terms.resize(index as usize + 1, 0);
                        terms[index as usize] = term;
                    });
                }
                log.snapshot = (index, term);
                log.commit = index;
            }
            _ => {}
        }
        Ok(())
    }
}

/// Folds `trace` (recorded since the group started) and compares the
/// result with `nodes`: `Err` names the first event that claims something
/// untrue, or the first node whose log, snapshot or commit index differs
/// from the fold's.
pub(crate) fn agrees(
    trace: &Trace,
    nodes: &[RaftNode],
    cluster: &Cluster<Message>,
) -> Result<(), String> {
    let ids = cluster.ids();
    let empty = Log {
        terms: vec![0],
        retired: Vec::new(),
        snapshot: (0, 0),
        commit: 0,
        down: false,
    };
    let mut fold = Fold {
        ids,
        logs: vec![empty; ids.len()],
        sent: BTreeMap::new(),
        delivered: None,
    };
    for e in trace.events() {
        fold.step(&e)
            .map_err(|why| format!("trace event #{} at tick {}: {why}", e.seq, e.tick))?;
    }
    for (i, (log, node)) in fold.logs.iter().zip(nodes).enumerate() {
        let actual = (node.snapshot.index, node.snapshot.term, node.commit_index);
        if (log.snapshot.0, log.snapshot.1, log.commit) != actual || log.last() != node.last_index()
        {
            return Err(format!(
                "the trace has {} with snapshot {:?}, commit {} and log end {}; the node has ({}, {}), {} and {}",
                ids[i],
                log.snapshot,
                log.commit,
                log.last(),
                actual.0,
                actual.1,
                actual.2,
                node.last_index()
            ));
        }
        if let Some(index) =
            (log.snapshot.0..=log.last()).find(|&k| log.term_at(k) != node.term_at(k))
        {
            return Err(format!(
                "the trace has {} with term {:?} at index {index}; the node has {:?}",
                ids[i],
                log.term_at(index),
                node.term_at(index)
            ));
        }
        if log.down == cluster.is_alive(i) {
            return Err(format!(
                "the trace has {} {}",
                ids[i],
                if log.down { "down" } else { "up" }
            ));
        }
    }
    Ok(())
}
