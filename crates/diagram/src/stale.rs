//! Which reads are stale, as far as the trace alone can tell.
//!
//! A read that returned `v` is **stale** when some write `W'` of its key was
//! acknowledged (`client_op_completed` with outcome `done`) before the read
//! was submitted, and every write of `v` had ended (completed, whatever its
//! outcome) before `W'` was even submitted: the read returned a value older
//! than a write acknowledged before it began. A read that returned nothing
//! is stale as soon as any write of its key was acknowledged before it was
//! submitted.
//!
//! In a history without overlapping writes this is exactly "the value is
//! not the one of the latest write acknowledged before the read was
//! submitted". With overlapping operations it does not accuse a read of a
//! write still in flight, or of one that overlapped the acknowledged write,
//! since either may come after it; nor a read of a value no write in the
//! trace wrote (it may come from before the trace). A write that ended
//! `unknown` or `failed` counts as ended at its completion: the picture
//! reads real-time order from the trace and does not decide whether such a
//! write took effect later — a linearizability checker does, and the caller
//! marks what it finds with `DiagramOptions::violating`. Orders are
//! positions in the trace (events of one tick happen in trace order), and
//! each run section (`run_started`) has a history of its own.

use std::collections::HashMap;

/// One write of the history.
#[derive(Debug, Clone)]
struct Write {
    op: u64,
    value: Option<String>,
    submitted: usize,
    /// Position of its completion; `None` while in flight.
    ended: Option<usize>,
    /// Completed with outcome `done`.
    acked: bool,
}

/// A read found stale: the write acknowledged before it that it missed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stale {
    /// The key read.
    pub key: String,
    /// The latest write of the key acknowledged before the read was
    /// submitted.
    pub latest_op: u64,
    /// What that write wrote.
    pub latest_value: Option<String>,
}

/// The client operations of one section, as far as staleness needs them.
#[derive(Debug, Clone, Default)]
pub(super) struct History {
    /// Writes by key, in submit order.
    writes: HashMap<String, Vec<Write>>,
    /// Submitted reads by op id: key and submit position.
    reads: HashMap<u64, (String, usize)>,
    /// Key of each submitted write by op id.
    write_keys: HashMap<u64, String>,
}

impl History {
    /// A write of `key = value` submitted at position `at`.
    pub(super) fn write_submitted(&mut self, op: u64, key: &str, value: Option<String>, at: usize) {
        self.write_keys.insert(op, key.to_owned());
        self.writes.entry(key.to_owned()).or_default().push(Write {
            op,
            value,
            submitted: at,
            ended: None,
            acked: false,
        });
    }

    /// A read of `key` submitted at position `at`.
    pub(super) fn read_submitted(&mut self, op: u64, key: &str, at: usize) {
        self.reads.insert(op, (key.to_owned(), at));
    }

    /// The key of read `op`, once submitted.
    pub(super) fn read_key(&self, op: u64) -> Option<&str> {
        self.reads.get(&op).map(|(key, _)| key.as_str())
    }

    /// Write `op` completed at position `at`, acknowledged (`done`) or not.
    pub(super) fn write_ended(&mut self, op: u64, at: usize, acked: bool) {
        let Some(key) = self.write_keys.get(&op) else {
            return;
        };
        if let Some(w) = self
            .writes
            .get_mut(key)
            .and_then(|ws| ws.iter_mut().find(|w| w.op == op))
        {
            w.ended = Some(at);
            w.acked = acked;
        }
    }

    /// Whether read `op`, served with `value` (`None`: nothing), is stale.
    /// Called when the read completes, so every write that could explain
    /// it has been submitted.
    pub(super) fn judge_read(&self, op: u64, value: Option<&str>) -> Option<Stale> {
        let (key, read_at) = self.reads.get(&op)?;
        let writes = self.writes.get(key)?;
        // Acknowledged before the read was submitted, latest last.
        let mut before: Vec<&Write> = writes
            .iter()
            .filter(|w| w.acked && w.ended.is_some_and(|e| e < *read_at))
            .collect();
        before.sort_by_key(|w| w.ended);
        let latest = before.last()?;
        let stale = match value {
            None => true,
            Some(v) => {
                let mut of_v = writes
                    .iter()
                    .filter(|w| w.value.as_deref() == Some(v))
                    .peekable();
                of_v.peek().is_some()
                    && of_v.all(|w| {
                        w.ended
                            .is_some_and(|e| before.iter().any(|later| later.submitted > e))
                    })
            }
        };
        stale.then(|| Stale {
            key: key.clone(),
            latest_op: latest.op,
            latest_value: latest.value.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Option<String> {
        Some(text.to_owned())
    }

    #[test]
    fn a_read_of_nothing_after_an_acked_write_is_stale() {
        let mut h = History::default();
        h.write_submitted(1, "k", v("v1"), 0);
        h.write_ended(1, 1, true);
        h.read_submitted(2, "k", 2);
        assert_eq!(
            h.judge_read(2, None),
            Some(Stale {
                key: "k".to_owned(),
                latest_op: 1,
                latest_value: v("v1")
            })
        );
        assert_eq!(h.judge_read(2, Some("v1")), None);
    }

    #[test]
    fn a_read_of_an_overwritten_value_is_stale_and_of_the_latest_is_not() {
        let mut h = History::default();
        h.write_submitted(1, "k", v("v1"), 0);
        h.write_ended(1, 1, true);
        h.write_submitted(2, "k", v("v2"), 2);
        h.write_ended(2, 3, true);
        h.read_submitted(3, "k", 4);
        assert_eq!(h.judge_read(3, Some("v1")).map(|s| s.latest_op), Some(2));
        assert_eq!(h.judge_read(3, Some("v2")), None);
    }

    #[test]
    fn a_write_acked_only_after_the_read_was_submitted_does_not_make_it_stale() {
        let mut h = History::default();
        h.write_submitted(1, "k", v("v1"), 0);
        h.read_submitted(2, "k", 1);
        h.write_ended(1, 2, true);
        assert_eq!(h.judge_read(2, None), None);
    }

    #[test]
    fn a_value_of_a_write_still_in_flight_or_concurrent_with_the_latest_is_not_stale() {
        let mut h = History::default();
        h.write_submitted(1, "k", v("v1"), 0);
        h.write_submitted(2, "k", v("v2"), 1);
        h.write_ended(2, 2, true);
        h.write_ended(1, 3, true);
        // v2 was acked first, but overlapped v1: v1 then v2 is an order.
        h.write_submitted(3, "k", v("v3"), 4);
        h.read_submitted(4, "k", 5);
        assert_eq!(h.judge_read(4, Some("v2")), None);
        assert_eq!(h.judge_read(4, Some("v3")), None, "v3 is in flight");
        assert_eq!(
            h.judge_read(4, Some("v0")),
            None,
            "no write of v0 is traced"
        );
    }

    #[test]
    fn writes_of_other_keys_and_writes_not_acked_supersede_nothing() {
        let mut h = History::default();
        h.write_submitted(1, "other", v("x"), 0);
        h.write_ended(1, 1, true);
        h.write_submitted(2, "k", v("v1"), 2);
        h.write_ended(2, 3, false);
        h.read_submitted(3, "k", 4);
        assert_eq!(h.judge_read(3, None), None);
    }

    #[test]
    fn a_value_of_a_write_that_ended_unacked_before_an_acked_one_began_is_stale() {
        // The old leader's write times out (unknown), the new leader's is
        // acked, and a read still returns the old one.
        let mut h = History::default();
        h.write_submitted(1, "k", v("minority"), 0);
        h.write_ended(1, 1, false);
        h.write_submitted(2, "k", v("majority"), 2);
        h.write_ended(2, 3, true);
        h.read_submitted(3, "k", 4);
        assert_eq!(
            h.judge_read(3, Some("minority")).map(|s| s.latest_op),
            Some(2)
        );
    }
}
