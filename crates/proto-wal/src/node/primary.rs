//! Primary-side handling: appending records, answering catch-up requests
//! (incremental or base backup), tracking what standbys report, becoming
//! the primary of a new timeline, and announcing itself on reconnect.

use bytes::Bytes;

use super::{Output, WalEvent, WalMsg, WalNode};
use crate::record::WalRecord;
use crate::role::Role;
use crate::sync_names::SynchronousCommit;

impl WalNode {
    /// A primary takes a write: appends a SET record, flushes and applies
    /// it, and ships the frame to every other node. Returns its LSN, or
    /// `None` (nothing changes, nothing is output) when this node is not a
    /// primary or the key or value is longer than `u32::MAX` bytes.
    pub fn append(&mut self, key: Bytes, value: Bytes, out: &mut Vec<Output>) -> Option<u64> {
        if self.role != Role::Primary
            || u32::try_from(key.len()).is_err()
            || u32::try_from(value.len()).is_err()
        {
            return None;
        }
        let lsn = self.lsn() + 1;
        let record = WalRecord::new(self.timeline, lsn, key, value);
        let frame = record.encode();
        self.retained.push_back(frame.clone());
        if self.retained.len() > self.retention {
            self.retained.pop_front();
        }
        self.flushed_lsn = lsn;
        if self.reporting() {
            out.push(Output::Event(WalEvent::RecordAppended {
                timeline: self.timeline,
                lsn,
                key: record.key.clone(),
                value: record.value.clone(),
                wal_bytes: self.wal.len() + frame.len(),
            }));
        }
        self.push_record(&frame, record.key, record.value);
        out.push(Output::Event(WalEvent::Fsync(self.durable_mark())));
        for to in self.peers() {
            out.push(Output::Send {
                to,
                msg: WalMsg::Record {
                    frame: frame.clone(),
                },
            });
        }
        Some(lsn)
    }

    /// `pg_promote`: ends recovery (replays everything received, whatever
    /// the replay delay), becomes the primary of `timeline` with nothing
    /// retained and no standby position known, fsyncs, and announces the
    /// timeline to every other node. `previous_primary` (the primary it
    /// replaces, as the operator knows it) is only recorded.
    pub fn promote(
        &mut self,
        timeline: u64,
        previous_primary: Option<usize>,
        out: &mut Vec<Output>,
    ) {
        self.replay_until(sim_core::Tick::MAX, out);
        debug_assert!(self.replay_due.is_empty(), "recovery ends before promotion");
        self.role = Role::Primary;
        self.timeline = timeline;
        self.following = None;
        self.retained.clear();
        self.forget_peers();
        self.requested_at = None;
        self.flushed_lsn = self.lsn();
        out.push(Output::Event(WalEvent::Fsync(self.durable_mark())));
        let lsn = self.lsn();
        out.push(Output::Event(WalEvent::Promoted {
            timeline,
            lsn,
            previous_primary,
        }));
        for to in self.peers() {
            out.push(Output::Send {
                to,
                msg: WalMsg::Keepalive { timeline, lsn },
            });
        }
    }

    /// This node's connections came back (a restart, a heal, a restored
    /// link). A primary announces itself to every peer and re-ships the
    /// retained records each has not reported flushed; a standby asks its
    /// primary to stream from its next LSN.
    pub fn reconnect(&mut self, out: &mut Vec<Output>) {
        if self.role != Role::Primary {
            return self.request_catchup(true, out);
        }
        let (timeline, lsn, first) = (self.timeline, self.lsn(), self.retained_first());
        for to in self.peers() {
            out.push(Output::Send {
                to,
                msg: WalMsg::Keepalive { timeline, lsn },
            });
            let acked = self.peer_flush[to].unwrap_or(0);
            let skip = (acked + 1).saturating_sub(first) as usize;
            for frame in self.retained.iter().skip(skip) {
                out.push(Output::Send {
                    to,
                    msg: WalMsg::Record {
                        frame: frame.clone(),
                    },
                });
            }
        }
    }

    /// The node at `peer` came back: a primary announces its timeline and
    /// end of WAL to it.
    pub fn peer_reconnected(&mut self, peer: usize, out: &mut Vec<Output>) {
        if self.role == Role::Primary {
            out.push(Output::Send {
                to: peer,
                msg: WalMsg::Keepalive {
                    timeline: self.timeline,
                    lsn: self.lsn(),
                },
            });
        }
    }

    /// A standby at `src` asks to stream from `next_lsn`: the retained
    /// records from there (*incremental*) when it is on this timeline and
    /// that LSN is still retained, else a base backup (*full*).
    pub(super) fn on_start_replication(
        &mut self,
        src: usize,
        timeline: u64,
        next_lsn: u64,
        out: &mut Vec<Output>,
    ) {
        if self.role != Role::Primary {
            out.push(Output::Event(WalEvent::RequestIgnored {
                src,
                reason: "not_primary",
            }));
            return;
        }
        let end = self.lsn();
        let inside =
            timeline == self.timeline && next_lsn >= self.retained_first() && next_lsn <= end + 1;
        if inside {
            let skip = (next_lsn - self.retained_first()) as usize;
            let frames: Vec<Bytes> = self.retained.iter().skip(skip).cloned().collect();
            out.push(Output::Event(WalEvent::CatchUpIncremental {
                standby: src,
                from_lsn: next_lsn,
                to_lsn: end,
                records: frames.len(),
            }));
            out.push(Output::Send {
                to: src,
                msg: WalMsg::Batch {
                    timeline: self.timeline,
                    frames,
                },
            });
        } else {
            let reason = if timeline != self.timeline {
                "timeline_changed"
            } else if next_lsn > end + 1 {
                "standby_ahead"
            } else {
                "outside_retention"
            };
            out.push(Output::Event(WalEvent::CatchUpFull {
                standby: src,
                from_lsn: next_lsn,
                to_lsn: end,
                reason,
            }));
            out.push(Output::Send {
                to: src,
                msg: WalMsg::BaseBackup {
                    timeline: self.timeline,
                    wal: Bytes::copy_from_slice(&self.wal),
                    lsn: end,
                },
            });
        }
    }

    pub(super) fn on_flush_ack(
        &mut self,
        src: usize,
        timeline: u64,
        flushed_lsn: u64,
        out: &mut Vec<Output>,
    ) {
        if self.accepts_report(src, timeline, out) {
            raise(&mut self.peer_flush[src], flushed_lsn);
            out.push(Output::Event(WalEvent::FlushAcked {
                standby: src,
                flushed_lsn,
            }));
        }
    }

    /// `remote_write`: a synchronous standby received (not flushed) up to
    /// `written_lsn`.
    pub(super) fn on_write_ack(
        &mut self,
        src: usize,
        timeline: u64,
        written_lsn: u64,
        out: &mut Vec<Output>,
    ) {
        if self.accepts_report(src, timeline, out) {
            raise(&mut self.peer_written[src], written_lsn);
            out.push(Output::Event(WalEvent::WriteReported {
                standby: src,
                written_lsn,
            }));
        }
    }

    /// `remote_apply`: a synchronous standby replayed up to `applied_lsn`.
    pub(super) fn on_apply_ack(
        &mut self,
        src: usize,
        timeline: u64,
        applied_lsn: u64,
        out: &mut Vec<Output>,
    ) {
        if self.accepts_report(src, timeline, out) {
            raise(&mut self.peer_applied[src], applied_lsn);
            out.push(Output::Event(WalEvent::ApplyReported {
                standby: src,
                applied_lsn,
            }));
        }
    }

    /// A standby's position report counts only at a primary on its timeline.
    fn accepts_report(&self, src: usize, timeline: u64, out: &mut Vec<Output>) -> bool {
        if self.role != Role::Primary || timeline != self.timeline {
            out.push(Output::Event(WalEvent::RequestIgnored {
                src,
                reason: "stale_flush_ack",
            }));
            return false;
        }
        true
    }

    /// The position the standby at `standby` reported reaching on this
    /// primary's timeline at `commit`'s level (a flush also proves the
    /// write); `None` before any report.
    #[must_use]
    pub fn reported(&self, standby: usize, commit: SynchronousCommit) -> Option<u64> {
        let flushed = self.peer_flush.get(standby).copied().flatten();
        match commit {
            SynchronousCommit::On => flushed,
            SynchronousCommit::RemoteWrite => {
                flushed.max(self.peer_written.get(standby).copied().flatten())
            }
            SynchronousCommit::RemoteApply => self.peer_applied.get(standby).copied().flatten(),
        }
    }

    /// Every flush position standbys reported, by position.
    pub fn flush_reports(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.peer_flush
            .iter()
            .enumerate()
            .filter_map(|(j, lsn)| lsn.map(|lsn| (j, lsn)))
    }
}

/// Raises a reported position to `lsn` (positions never go back).
fn raise(reached: &mut Option<u64>, lsn: u64) {
    *reached = Some(reached.map_or(lsn, |r| r.max(lsn)));
}
