//! [`Replica`]: one broker's copy of the partition in fetch mode, as a pure
//! state machine. It never sees the network, the clock, the trace or the
//! controller: [`Replica::step`] handles a delivered message, the
//! controller's calls (`become_leader`, `become_follower`, `resign`) and
//! [`Replica::on_tick`] push [`Output`]s into a buffer.
//!
//! A follower is in one of two phases, as a Kafka replica fetcher is:
//! *truncating* (it asked the leader `OffsetsForLeaderEpoch` and waits for
//! the answer; from KIP-101 on) and *fetching* (one fetch outstanding; the
//! answer's records are appended and the next fetch goes out at once). A
//! request unanswered for [`REQUEST_TIMEOUT`] ticks is sent again, so a lost
//! message on datagrams or a reset stream only delays a follower.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use replication::Tick;

use super::epoch_cache::EpochCache;
use super::rung::Rung;
use super::wire::{FetchError, FetchMessage, Record};

/// Ticks a follower waits for an answer before it asks again
/// (`replica.fetch.wait.max.ms` plus the round trip): above the slowest
/// fetch round the explorer's networks draw, so that a slow answer is not
/// asked for twice. A message lost to a cut link or an isolation (and the
/// stream reset it causes) is asked for again at once when the link is
/// back ([`Replica::resend`]).
pub const REQUEST_TIMEOUT: u64 = 26;
/// Ticks a follower waits after an error answer.
const BACKOFF: u64 = 1;
/// Records one fetch answer carries at most (`replica.fetch.max.bytes`,
/// counted in records).
pub const MAX_FETCH_RECORDS: usize = 8;

/// What a leader knows of one follower, from its fetches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Remote {
    /// The follower's log end: its last fetch offset (unknown until it
    /// fetches from this leader).
    pub log_end: Option<u64>,
    /// The last tick it was caught up (Kafka's `lastCaughtUpTimeMs`).
    pub caught_up_at: Option<Tick>,
    /// The current leader epoch its last fetch carried.
    pub fetched_epoch: u64,
    /// The broker epoch its last fetch carried (KIP-903): the leader's
    /// AlterPartition names it for every replica it adds to the ISR.
    pub broker_epoch: u64,
    /// The leader's log end when it answered the follower's previous fetch.
    last_fetch_leader_end: u64,
    /// When that previous fetch arrived.
    last_fetch_at: Tick,
}

/// A leader's own state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderState {
    /// Its log end when it was elected: the start offset of its epoch.
    pub epoch_start: u64,
    /// The ISR as the controller last accepted it.
    pub isr: Vec<usize>,
    /// The partition epoch of that ISR (AlterPartition's fence).
    pub partition_epoch: u64,
    /// Each replica's position, by position.
    pub remote: Vec<Remote>,
}

/// The phase a replica is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Restarted (or told there is no leader): follows nobody.
    Offline,
    /// Leads the partition in its epoch.
    Leader(LeaderState),
    /// Asked the leader where epoch `asked` ends; waits for the answer.
    Truncating {
        /// The epoch asked about.
        asked: u64,
        /// When to ask again.
        retry_at: Tick,
    },
    /// Fetching from the leader.
    Fetching {
        /// When to fetch again if no answer came.
        retry_at: Tick,
    },
}

/// What a replica did that the trace records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplicaEvent {
    /// It truncated its log from `from` to `to`.
    Truncated {
        /// The log end before.
        from: u64,
        /// The log end after.
        to: u64,
        /// Which rule: `high watermark`, `leader epoch`, `offset out of range`.
        reason: &'static str,
    },
    /// As leader it refused a request from `to`.
    Refused {
        /// The requester.
        to: usize,
        /// Why.
        error: FetchError,
    },
    /// As follower it dropped an answer from another leader epoch (KIP-320).
    Fenced {
        /// The sender.
        from: usize,
        /// The answer's epoch.
        epoch: u64,
    },
}

/// A message to send or an event to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Send `msg` to the replica at position `to`.
    Send {
        /// The receiver.
        to: usize,
        /// The message.
        msg: FetchMessage,
    },
    /// Record an event.
    Event(ReplicaEvent),
}

/// One broker's replica of the partition.
#[derive(Debug, Clone)]
pub struct Replica {
    me: usize,
    rung: Rung,
    min_insync: usize,
    flush_messages: Option<u64>,
    log: Vec<Arc<Record>>,
    flushed: u64,
    hw: u64,
    cache: EpochCache,
    epoch: u64,
    leader: Option<usize>,
    phase: Phase,
    unclean: bool,
    /// The broker epoch the controller gave it at its last registration.
    broker_epoch: u64,
    /// A slow broker's fetcher is stalled: it sends no fetches.
    pub(crate) stalled: bool,
}

impl Replica {
    /// An empty replica at position `me` following nobody.
    pub fn new(me: usize, rung: Rung, min_insync: usize, flush_messages: Option<u64>) -> Replica {
        Replica {
            me,
            rung,
            min_insync,
            flush_messages,
            log: Vec::new(),
            flushed: 0,
            hw: 0,
            cache: EpochCache::default(),
            epoch: 0,
            leader: None,
            phase: Phase::Offline,
            unclean: false,
            broker_epoch: 1,
            stalled: false,
        }
    }

    /// Its log end (records held).
    pub fn log_end(&self) -> u64 {
        self.log.len() as u64
    }

    /// Its high watermark.
    pub fn high_watermark(&self) -> u64 {
        self.hw
    }

    /// The log end it has flushed (what survives a power loss).
    pub fn flushed(&self) -> u64 {
        self.flushed
    }

    /// The leader epoch it knows.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The leader it follows (itself when it leads).
    pub fn leader(&self) -> Option<usize> {
        self.leader
    }

    /// Its phase.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// Its leader state, when it leads.
    pub fn leading(&self) -> Option<&LeaderState> {
        match &self.phase {
            Phase::Leader(l) => Some(l),
            _ => None,
        }
    }

    /// True when it leads in `epoch`.
    pub fn leads_in(&self, epoch: u64) -> bool {
        self.epoch == epoch && self.leading().is_some()
    }

    /// Its leader-epoch cache.
    pub fn cache(&self) -> &EpochCache {
        &self.cache
    }

    /// Its records, offset 1 first.
    pub fn log(&self) -> &[Arc<Record>] {
        &self.log
    }

    /// True after a power loss that lost records, until it has caught up
    /// with a leader again.
    pub fn unclean(&self) -> bool {
        self.unclean
    }

    /// The broker epoch of its current registration (1 at the start, a new
    /// one at every restart).
    pub fn broker_epoch(&self) -> u64 {
        self.broker_epoch
    }

    /// The controller registered the restarted broker as `broker_epoch`.
    pub fn register(&mut self, broker_epoch: u64) {
        self.broker_epoch = broker_epoch;
    }

    /// The key → value map of its first `upto` records.
    pub fn data(&self, upto: u64) -> BTreeMap<Bytes, Bytes> {
        let mut data = BTreeMap::new();
        for r in &self.log[..(upto.min(self.log_end()) as usize)] {
            data.insert(r.key.clone(), r.value.clone());
        }
        data
    }

    /// The value of `key` among its first `upto` records.
    pub fn value(&self, key: &[u8], upto: u64) -> Option<Bytes> {
        self.log[..(upto.min(self.log_end()) as usize)]
            .iter()
            .rev()
            .find(|r| r.key == key)
            .map(|r| r.value.clone())
    }

    fn last_epoch(&self) -> u64 {
        self.log.last().map_or(0, |r| r.epoch)
    }

    fn maybe_flush(&mut self) {
        if let Some(n) = self.flush_messages
            && self.log_end() - self.flushed >= n
        {
            self.flushed = self.log_end();
        }
    }

    /// Flushes the whole log (the explicit fsync); returns the flushed end.
    pub fn fsync(&mut self) -> u64 {
        self.flushed = self.log_end();
        self.flushed
    }

    fn truncate(&mut self, to: u64, reason: &'static str, out: &mut Vec<Output>) {
        let from = self.log_end();
        self.cache.truncate_from_end(to);
        if to < from {
            self.log.truncate(to as usize);
            self.hw = self.hw.min(to);
            self.flushed = self.flushed.min(to);
            out.push(Output::Event(ReplicaEvent::Truncated { from, to, reason }));
        }
    }

    /// A crash; a power loss also drops everything after the last flush
    /// (the log, the epochs it held, the HW checkpoint above it) and marks
    /// the replica unclean.
    pub fn crash(&mut self, power_loss: bool) {
        self.phase = Phase::Offline;
        self.leader = None;
        if power_loss {
            let keep = self.flushed;
            // Log recovery finds the torn tail; a broker that lost nothing
            // (everything was flushed) comes back clean.
            self.unclean |= keep < self.log_end();
            self.log.truncate(keep as usize);
            self.cache.truncate_from_end(keep);
            self.hw = self.hw.min(keep);
        }
    }

    /// The controller's LeaderAndIsr: lead `epoch` with `isr` (partition
    /// epoch `partition_epoch`) over `n` replicas. From KIP-279 on the
    /// epoch is cached at once with the log end as its start.
    pub fn become_leader(
        &mut self,
        epoch: u64,
        isr: Vec<usize>,
        partition_epoch: u64,
        n: usize,
        now: Tick,
    ) {
        self.epoch = epoch;
        self.leader = Some(self.me);
        if self.rung.matches_epochs() {
            self.cache.assign(epoch, self.log_end());
        }
        let remote = (0..n)
            .map(|i| Remote {
                caught_up_at: isr.contains(&i).then_some(now),
                last_fetch_at: now,
                ..Remote::default()
            })
            .collect();
        self.phase = Phase::Leader(LeaderState {
            epoch_start: self.log_end(),
            isr,
            partition_epoch,
            remote,
        });
        self.maybe_advance_hw();
    }

    /// The controller's LeaderAndIsr: follow `leader` in `epoch`. `hw`
    /// truncates to its own high watermark and fetches; later rungs ask the
    /// leader where their last epoch ends first.
    pub fn become_follower(&mut self, leader: usize, epoch: u64, now: Tick, out: &mut Vec<Output>) {
        self.epoch = epoch;
        self.leader = Some(leader);
        if self.rung.truncates_to_hw() {
            self.truncate(self.hw, "high watermark", out);
            self.fetch(now, out);
            return;
        }
        match self.cache.latest() {
            Some(asked) => self.ask_epoch(asked, now, out),
            None => self.fetch(now, out),
        }
    }

    /// The partition's first LeaderAndIsr: follow `leader` in `epoch` from
    /// an empty log; the first fetch goes out at the first tick (so that
    /// nothing is in flight before a caller sets the network).
    pub fn start_following(&mut self, leader: usize, epoch: u64) {
        self.epoch = epoch;
        self.leader = Some(leader);
        self.phase = Phase::Fetching { retry_at: 0 };
    }

    /// The controller's LeaderAndIsr with no leader (an offline partition).
    pub fn resign(&mut self, epoch: u64) {
        self.epoch = epoch;
        self.leader = None;
        self.phase = Phase::Offline;
    }

    /// The controller accepted the leader's AlterPartition.
    pub fn isr_changed(&mut self, isr: Vec<usize>, partition_epoch: u64) {
        if let Phase::Leader(l) = &mut self.phase {
            l.isr = isr;
            l.partition_epoch = partition_epoch;
        }
        self.maybe_advance_hw();
    }

    /// Appends a produced record as leader; returns its offset.
    pub fn append(&mut self, key: Bytes, value: Bytes) -> u64 {
        let start = self.log_end();
        self.cache.assign(self.epoch, start);
        self.log.push(Arc::new(Record {
            epoch: self.epoch,
            key,
            value,
        }));
        self.maybe_flush();
        self.maybe_advance_hw();
        self.log_end()
    }

    fn fetch(&mut self, now: Tick, out: &mut Vec<Output>) {
        self.phase = Phase::Fetching {
            retry_at: now + REQUEST_TIMEOUT,
        };
        let (Some(to), false) = (self.leader, self.stalled) else {
            self.phase = Phase::Fetching { retry_at: now };
            return;
        };
        out.push(Output::Send {
            to,
            msg: FetchMessage::Fetch {
                fetch_offset: self.log_end(),
                last_fetched_epoch: self.last_epoch(),
                current_leader_epoch: self.epoch,
                broker_epoch: self.broker_epoch,
            },
        });
    }

    fn ask_epoch(&mut self, asked: u64, now: Tick, out: &mut Vec<Output>) {
        self.phase = Phase::Truncating {
            asked,
            retry_at: now + REQUEST_TIMEOUT,
        };
        if let Some(to) = self.leader {
            out.push(Output::Send {
                to,
                msg: FetchMessage::EpochQuery {
                    epoch: asked,
                    current_leader_epoch: self.epoch,
                },
            });
        }
    }

    /// The link to the leader was restored: a follower asks again now (its
    /// request in flight may have been lost).
    pub fn resend(&mut self, now: Tick, out: &mut Vec<Output>) {
        match self.phase {
            Phase::Fetching { .. } => self.fetch(now, out),
            Phase::Truncating { asked, .. } => self.ask_epoch(asked, now, out),
            Phase::Offline | Phase::Leader(_) => {}
        }
    }

    /// Timers: a follower asks again when its request went unanswered.
    /// A leader returns the ISR it proposes to the controller, if it
    /// differs: members not caught up within `lag_timeout` ticks leave,
    /// caught-up followers join.
    pub fn on_tick(
        &mut self,
        now: Tick,
        lag_timeout: u64,
        out: &mut Vec<Output>,
    ) -> Option<Vec<usize>> {
        match &self.phase {
            Phase::Offline => None,
            Phase::Fetching { retry_at } => {
                if now >= *retry_at {
                    self.fetch(now, out);
                }
                None
            }
            &Phase::Truncating { asked, retry_at } => {
                if now >= retry_at {
                    self.ask_epoch(asked, now, out);
                }
                None
            }
            Phase::Leader(l) => {
                let end = self.log_end();
                let fresh = |r: &Remote| r.caught_up_at.is_some_and(|t| now - t <= lag_timeout);
                let mut isr: Vec<usize> = l
                    .isr
                    .iter()
                    .copied()
                    .filter(|&r| r == self.me || fresh(&l.remote[r]))
                    .collect();
                for (r, remote) in l.remote.iter().enumerate() {
                    let joins = r != self.me
                        && !isr.contains(&r)
                        && remote.log_end == Some(end)
                        && fresh(remote)
                        && (!self.rung.fences()
                            || (remote.fetched_epoch == self.epoch && end >= l.epoch_start));
                    if joins {
                        isr.push(r);
                    }
                }
                isr.sort_unstable();
                (isr != l.isr).then_some(isr)
            }
        }
    }

    /// Handles a message from the replica at position `from`.
    pub fn step(&mut self, from: usize, msg: FetchMessage, now: Tick, out: &mut Vec<Output>) {
        match msg {
            FetchMessage::Fetch {
                fetch_offset,
                current_leader_epoch,
                broker_epoch,
                ..
            } => self.on_fetch(
                from,
                fetch_offset,
                (current_leader_epoch, broker_epoch),
                now,
                out,
            ),
            FetchMessage::EpochQuery {
                epoch,
                current_leader_epoch,
            } => self.on_epoch_query(from, epoch, current_leader_epoch, out),
            FetchMessage::FetchResponse {
                leader_epoch,
                fetch_offset,
                records,
                high_watermark,
                leader_log_end,
                error,
            } => {
                if self.accepts(from, leader_epoch, out)
                    && matches!(self.phase, Phase::Fetching { .. })
                {
                    self.on_fetch_response(
                        fetch_offset,
                        &records,
                        high_watermark,
                        leader_log_end,
                        error,
                        now,
                        out,
                    );
                }
            }
            FetchMessage::EpochAnswer {
                asked,
                epoch,
                end_offset,
                leader_epoch,
                error,
            } => {
                let waiting =
                    matches!(self.phase, Phase::Truncating { asked: a, .. } if a == asked);
                if waiting && self.accepts(from, leader_epoch, out) {
                    self.on_epoch_answer(asked, epoch, end_offset, error, now, out);
                }
            }
        }
    }

    /// An answer is taken only from the leader it follows and, from
    /// KIP-320 on, only of the epoch it knows.
    fn accepts(&self, from: usize, leader_epoch: u64, out: &mut Vec<Output>) -> bool {
        if self.leader != Some(from) || self.leading().is_some() {
            return false;
        }
        if self.rung.fences() && leader_epoch != self.epoch {
            out.push(Output::Event(ReplicaEvent::Fenced {
                from,
                epoch: leader_epoch,
            }));
            return false;
        }
        true
    }

    /// The leader's check of a request's epoch: `NOT_LEADER_OR_FOLLOWER`
    /// when it does not lead; from KIP-320 on, a request of another epoch is
    /// fenced.
    fn refusal(&self, current_leader_epoch: u64) -> Option<FetchError> {
        if self.leading().is_none() {
            return Some(FetchError::NotLeader);
        }
        if self.rung.fences() {
            if current_leader_epoch < self.epoch {
                return Some(FetchError::FencedLeaderEpoch);
            }
            if current_leader_epoch > self.epoch {
                return Some(FetchError::UnknownLeaderEpoch);
            }
        }
        None
    }

    fn on_fetch(
        &mut self,
        from: usize,
        fetch_offset: u64,
        (current_leader_epoch, broker_epoch): (u64, u64),
        now: Tick,
        out: &mut Vec<Output>,
    ) {
        let end = self.log_end();
        let mut error = self.refusal(current_leader_epoch);
        if error.is_none() && fetch_offset > end {
            error = Some(FetchError::OffsetOutOfRange);
        }
        let mut records: Arc<[Arc<Record>]> = Arc::new([]);
        if error.is_none()
            && let Phase::Leader(l) = &mut self.phase
        {
            let r = &mut l.remote[from];
            if fetch_offset >= end {
                r.caught_up_at = Some(now);
            } else if fetch_offset >= r.last_fetch_leader_end {
                r.caught_up_at = Some(r.last_fetch_at);
            }
            r.last_fetch_leader_end = end;
            r.last_fetch_at = now;
            r.log_end = Some(fetch_offset);
            r.fetched_epoch = current_leader_epoch;
            r.broker_epoch = broker_epoch;
            let upto = (fetch_offset as usize + MAX_FETCH_RECORDS).min(end as usize);
            records = self.log[fetch_offset as usize..upto].into();
            self.maybe_advance_hw();
        }
        if let Some(error) = error {
            out.push(Output::Event(ReplicaEvent::Refused { to: from, error }));
        }
        out.push(Output::Send {
            to: from,
            msg: FetchMessage::FetchResponse {
                leader_epoch: self.epoch,
                fetch_offset,
                records,
                high_watermark: self.hw,
                leader_log_end: end,
                error,
            },
        });
    }

    fn on_epoch_query(
        &mut self,
        from: usize,
        asked: u64,
        current_leader_epoch: u64,
        out: &mut Vec<Output>,
    ) {
        let error = self.refusal(current_leader_epoch);
        let (epoch, end_offset) = if self.rung.matches_epochs() {
            self.cache.end_offset_kip279(asked, self.log_end())
        } else {
            (asked, self.cache.end_offset_kip101(asked, self.log_end()))
        };
        if let Some(error) = error {
            out.push(Output::Event(ReplicaEvent::Refused { to: from, error }));
        }
        out.push(Output::Send {
            to: from,
            msg: FetchMessage::EpochAnswer {
                asked,
                epoch,
                end_offset,
                leader_epoch: self.epoch,
                error,
            },
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn on_fetch_response(
        &mut self,
        fetch_offset: u64,
        records: &[Arc<Record>],
        high_watermark: u64,
        leader_log_end: u64,
        error: Option<FetchError>,
        now: Tick,
        out: &mut Vec<Output>,
    ) {
        match error {
            Some(FetchError::OffsetOutOfRange) => {
                self.truncate(
                    leader_log_end.min(self.log_end()),
                    "offset out of range",
                    out,
                );
                self.fetch(now, out);
                return;
            }
            Some(_) => {
                self.phase = Phase::Fetching {
                    retry_at: now + BACKOFF,
                };
                return;
            }
            None => {}
        }
        if fetch_offset != self.log_end() {
            return; // a stale or repeated answer; the outstanding one is still due
        }
        for r in records {
            self.cache.assign(r.epoch, self.log_end());
            self.log.push(Arc::clone(r));
        }
        self.maybe_flush();
        let hw = high_watermark.min(self.log_end());
        if hw > self.hw {
            self.hw = hw;
        }
        if self.unclean && self.log_end() >= leader_log_end {
            self.unclean = false;
        }
        self.fetch(now, out);
    }

    fn on_epoch_answer(
        &mut self,
        asked: u64,
        epoch: u64,
        end_offset: u64,
        error: Option<FetchError>,
        now: Tick,
        out: &mut Vec<Output>,
    ) {
        if error.is_some() {
            self.phase = Phase::Truncating {
                asked,
                retry_at: now + BACKOFF,
            };
            return;
        }
        let mut to = end_offset.min(self.log_end());
        if self.rung.matches_epochs() {
            // KIP-279: the answer is about `epoch`, the largest epoch ≤
            // `asked` the leader has. Truncate to the smaller of both ends
            // of `epoch` — or, when this log has no `epoch`, ask again
            // about the largest epoch it has below that.
            let (own, own_end) = self.cache.end_offset_kip279(epoch, self.log_end());
            if own != epoch {
                self.ask_epoch(own, now, out);
                return;
            }
            to = to.min(own_end);
        }
        self.truncate(to, "leader epoch", out);
        self.fetch(now, out);
    }

    /// A leader's HW: the smallest log end over the ISR, once every member
    /// has fetched from this leader (from KIP-320 on: in this epoch; with
    /// ELR: only while the ISR is at least min.insync). Never moves back.
    fn maybe_advance_hw(&mut self) {
        let Phase::Leader(l) = &self.phase else {
            return;
        };
        if self.rung.elr() && l.isr.len() < self.min_insync {
            return;
        }
        let mut hw = self.log_end();
        for &r in &l.isr {
            if r == self.me {
                continue;
            }
            let remote = &l.remote[r];
            let Some(end) = remote.log_end else {
                return;
            };
            if self.rung.fences() && remote.fetched_epoch != self.epoch {
                return;
            }
            hw = hw.min(end);
        }
        if hw > self.hw {
            self.hw = hw;
        }
    }
}

/// A named change to one replica (the fingerprint test's).
#[cfg(test)]
pub(crate) type FieldChange = (&'static str, fn(&mut Replica));

#[cfg(test)]
impl Replica {
    /// One change per field, named (the destructuring fails to compile
    /// when a field is added), for the fingerprint test.
    pub(crate) fn field_changes() -> Vec<FieldChange> {
        let probe = Replica::new(0, Rung::Elr, 2, None);
        let Replica {
            me: _,
            rung: _,
            min_insync: _,
            flush_messages: _,
            log: _,
            flushed: _,
            hw: _,
            cache: _,
            epoch: _,
            leader: _,
            phase: _,
            unclean: _,
            broker_epoch: _,
            stalled: _,
        } = probe;
        vec![
            ("me", |r| r.me += 7),
            ("rung", |r| r.rung = Rung::Hw),
            ("min_insync", |r| r.min_insync += 1),
            ("flush_messages", |r| r.flush_messages = Some(9)),
            ("log", |r| {
                let rec = Arc::new(Record {
                    epoch: 9,
                    key: Bytes::from_static(b"z"),
                    value: Bytes::from_static(b"z"),
                });
                r.log.push(rec);
            }),
            ("flushed", |r| r.flushed += 1),
            ("hw", |r| r.hw += 1),
            ("cache", |r| r.cache.assign(99, 0)),
            ("epoch", |r| r.epoch += 1),
            ("leader", |r| r.leader = Some(9)),
            ("phase", |r| r.phase = Phase::Offline),
            ("unclean", |r| r.unclean = !r.unclean),
            ("broker_epoch", |r| r.broker_epoch += 1),
            ("stalled", |r| r.stalled = !r.stalled),
        ]
    }
}
