//! One chain node as a pure state machine: [`ChainNode::step`] (a message
//! arrived) and [`ChainNode::tick`] (time passed) return what it wants sent
//! and recorded; it never sees the network, the clock or the trace.

use std::collections::BTreeMap;

use bytes::Bytes;
use replication::Output;
use sim_core::Tick;

use crate::message::{ChainMsg, Entry};

/// Ticks a node waits for its successor's `Have` before forwarding again.
pub const RESEND: Tick = 3;

/// A transition worth a trace event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainEvent {
    /// Entries `first..=last` appended from the predecessor.
    Appended {
        /// First new seq.
        first: u64,
        /// Last new seq.
        last: u64,
    },
    /// A state transfer replaced the node's whole state.
    Installed {
        /// The node's last seq afterwards.
        last: u64,
    },
    /// A message of another epoch was refused.
    Fenced {
        /// The sender's position.
        from: usize,
        /// The message's epoch.
        epoch: u64,
        /// The node's epoch.
        known: u64,
    },
    /// The node learnt that every entry through `seq` is at the tail.
    Committed {
        /// The commit point.
        seq: u64,
    },
}

/// What a node's step asks its group to do.
pub type ChainOutput = Output<ChainMsg, ChainEvent>;

/// How a node last caught up: `never`, `streaming` or `full`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUpMode {
    /// Nothing received yet.
    Never,
    /// Entries forwarded by its predecessor.
    Streaming,
    /// A state transfer after rejoining.
    Full,
}

impl CatchUpMode {
    /// The word a scenario prints.
    pub fn name(self) -> &'static str {
        match self {
            CatchUpMode::Never => "never",
            CatchUpMode::Streaming => "streaming",
            CatchUpMode::Full => "full",
        }
    }
}

/// One node of the chain.
#[derive(Debug, Clone)]
pub struct ChainNode {
    pub(crate) me: usize,
    /// The configuration epoch this node knows.
    pub(crate) epoch: u64,
    /// The chain as this node knows it, head first.
    pub(crate) chain: Vec<usize>,
    /// Every entry it holds, seq 1, 2, … in order.
    pub(crate) log: Vec<Entry>,
    pub(crate) data: BTreeMap<Bytes, Bytes>,
    /// The last seq its successor confirmed.
    pub(crate) successor_has: u64,
    /// Through which seq every entry is known to be at the tail.
    pub(crate) committed: u64,
    /// Send the successor a whole-state transfer next (it rejoined).
    pub(crate) transfer_to_successor: bool,
    /// The next tick it forwards to its successor.
    pub(crate) next_send: Tick,
    pub(crate) catch_up: CatchUpMode,
    /// Messages of another epoch refused so far.
    pub(crate) fenced: u64,
    /// It joined the chain and waits for its state transfer (until then its
    /// entries are not its predecessor's).
    pub(crate) awaiting_transfer: bool,
}

impl ChainNode {
    /// A node at position `me` of the initial `chain` (epoch 1).
    pub fn new(me: usize, chain: Vec<usize>) -> ChainNode {
        ChainNode {
            me,
            epoch: 1,
            chain,
            log: Vec::new(),
            data: BTreeMap::new(),
            successor_has: 0,
            committed: 0,
            transfer_to_successor: false,
            next_send: 0,
            catch_up: CatchUpMode::Never,
            fenced: 0,
            awaiting_transfer: false,
        }
    }

    /// The last seq it holds (0: none).
    pub fn last(&self) -> u64 {
        self.log.last().map_or(0, |e| e.seq)
    }

    /// True when it believes it heads the chain.
    pub fn is_head(&self) -> bool {
        self.chain.first() == Some(&self.me)
    }

    /// True when it believes it is the chain's tail.
    pub fn is_tail(&self) -> bool {
        self.chain.last() == Some(&self.me)
    }

    /// True when it may answer a LINEARIZABLE read: the tail, holding its
    /// predecessor's state (not still waiting for a state transfer).
    pub fn serves_reads(&self) -> bool {
        self.is_tail() && !self.awaiting_transfer
    }

    fn position(&self) -> Option<usize> {
        self.chain.iter().position(|&n| n == self.me)
    }

    /// The node it forwards to, if it is not the tail.
    pub fn successor(&self) -> Option<usize> {
        self.position().and_then(|p| self.chain.get(p + 1).copied())
    }

    fn predecessor(&self) -> Option<usize> {
        self.position()
            .and_then(|p| p.checked_sub(1))
            .map(|p| self.chain[p])
    }

    /// The master's new configuration: `epoch`, `chain`; `joined` is a
    /// node appended at the tail, which its predecessor sends a whole
    /// state transfer.
    pub fn configure(&mut self, epoch: u64, chain: Vec<usize>, joined: Option<usize>, now: Tick) {
        let old_successor = self.successor();
        self.epoch = epoch;
        self.chain = chain;
        let successor = self.successor();
        if successor != old_successor {
            // A new successor may be a node that joined earlier and still
            // waits for its state transfer (its own predecessor left before
            // sending it): it ignores incremental forwards, so it gets a
            // whole transfer too (explorer seed 36: without it, writes
            // never reached the tail again).
            self.successor_has = 0;
            self.transfer_to_successor = successor.is_some();
        }
        if joined.is_some() && successor == joined {
            self.successor_has = 0;
            self.transfer_to_successor = true;
        }
        self.next_send = now;
        if joined == Some(self.me) {
            self.awaiting_transfer = true;
        }
        if self.serves_reads() {
            self.committed = self.last();
        }
    }

    /// The head's write: appends `key = value` as the next seq.
    pub fn write(&mut self, key: Bytes, value: Bytes, now: Tick) -> u64 {
        let seq = self.last() + 1;
        self.data.insert(key.clone(), value.clone());
        self.log.push(Entry { seq, key, value });
        if self.serves_reads() {
            self.committed = seq;
        }
        self.next_send = now;
        seq
    }

    /// A message from the node at position `from` arrived.
    pub fn step(&mut self, now: Tick, from: usize, msg: ChainMsg, out: &mut Vec<ChainOutput>) {
        if msg.epoch() != self.epoch {
            self.fenced += 1;
            out.push(Output::Event(ChainEvent::Fenced {
                from,
                epoch: msg.epoch(),
                known: self.epoch,
            }));
            return;
        }
        match msg {
            ChainMsg::Forward { entries, full, .. } if self.predecessor() == Some(from) => {
                if full {
                    self.install(entries, out);
                } else if !self.awaiting_transfer {
                    self.append(entries, out);
                }
                if self.serves_reads() {
                    self.advance_commit(self.last(), out);
                }
                out.push(Output::Send {
                    to: from,
                    msg: ChainMsg::Have {
                        epoch: self.epoch,
                        seq: self.last(),
                        committed: self.committed,
                    },
                });
            }
            ChainMsg::Have { seq, committed, .. } if self.successor() == Some(from) => {
                self.successor_has = seq.min(self.last());
                if seq >= self.last() {
                    self.transfer_to_successor = false;
                }
                let before = self.committed;
                self.advance_commit(committed.min(self.last()), out);
                // The commit point flows back up the chain at once.
                if self.committed > before
                    && let Some(p) = self.predecessor()
                {
                    out.push(Output::Send {
                        to: p,
                        msg: ChainMsg::Have {
                            epoch: self.epoch,
                            seq: self.last(),
                            committed: self.committed,
                        },
                    });
                }
                let _ = now;
            }
            // From a node that is not its neighbour in this epoch: ignored.
            _ => {}
        }
    }

    fn install(&mut self, entries: Vec<Entry>, out: &mut Vec<ChainOutput>) {
        self.data.clear();
        for e in &entries {
            self.data.insert(e.key.clone(), e.value.clone());
        }
        self.log = entries;
        self.committed = self.committed.min(self.last());
        self.catch_up = CatchUpMode::Full;
        self.awaiting_transfer = false;
        out.push(Output::Event(ChainEvent::Installed { last: self.last() }));
    }

    fn append(&mut self, entries: Vec<Entry>, out: &mut Vec<ChainOutput>) {
        let first = self.last() + 1;
        for e in entries {
            if e.seq == self.last() + 1 {
                self.data.insert(e.key.clone(), e.value.clone());
                self.log.push(e);
            }
        }
        if self.last() >= first {
            if self.catch_up == CatchUpMode::Never {
                self.catch_up = CatchUpMode::Streaming;
            }
            out.push(Output::Event(ChainEvent::Appended {
                first,
                last: self.last(),
            }));
        }
    }

    fn advance_commit(&mut self, seq: u64, out: &mut Vec<ChainOutput>) {
        if seq > self.committed {
            self.committed = seq;
            out.push(Output::Event(ChainEvent::Committed { seq }));
        }
    }

    /// True while it has something to forward or to confirm: its successor
    /// lacks entries (or a state transfer), or entries are not yet known to
    /// be at the tail.
    pub fn has_work(&self) -> bool {
        !self.awaiting_transfer
            && self.successor().is_some()
            && (self.successor_has < self.last()
                || self.transfer_to_successor
                || self.committed < self.last())
    }

    /// Time passed: forward to the successor what it lacks, or ask where
    /// it is while entries are not yet known to be at the tail.
    pub fn tick(&mut self, now: Tick, out: &mut Vec<ChainOutput>) {
        let Some(successor) = self.successor() else {
            return;
        };
        if !self.has_work() || now < self.next_send {
            return;
        }
        let full = self.transfer_to_successor;
        let after = if full { 0 } else { self.successor_has };
        let entries = self.log.iter().filter(|e| e.seq > after).cloned().collect();
        out.push(Output::Send {
            to: successor,
            msg: ChainMsg::Forward {
                epoch: self.epoch,
                after,
                entries,
                full,
            },
        });
        self.next_send = now + RESEND;
    }
}
