//! [`EpochCache`]: Kafka's leader-epoch checkpoint (`LeaderEpochFileCache`)
//! — for every leader epoch that appended to this log, the offset its first
//! record went to.

/// Epoch → start offset, epochs strictly increasing. The start offset of
/// an epoch is the log end just before its first record (0-based: the
/// number of records before it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpochCache {
    entries: Vec<(u64, u64)>,
}

impl EpochCache {
    /// The (epoch, start offset) pairs, oldest first.
    pub fn entries(&self) -> &[(u64, u64)] {
        &self.entries
    }

    /// The newest epoch, if any.
    pub fn latest(&self) -> Option<u64> {
        self.entries.last().map(|&(e, _)| e)
    }

    /// Records that `epoch` starts at `start`, unless it is not newer than
    /// the newest epoch (an epoch is assigned once, on its first record or,
    /// from KIP-279 on, when its leader is elected).
    pub fn assign(&mut self, epoch: u64, start: u64) {
        if self.latest().is_none_or(|e| epoch > e) {
            self.entries.push((epoch, start));
        }
    }

    /// Forgets every epoch that has no record below `end` (Kafka's
    /// `truncateFromEnd`).
    pub fn truncate_from_end(&mut self, end: u64) {
        self.entries.retain(|&(_, start)| start < end);
    }

    /// KIP-101's answer for `epoch` on a log ending at `log_end`: the log
    /// end when `epoch` is the newest, else the start of the first newer
    /// epoch. A leader that has not yet appended in its own epoch answers
    /// its log end for an epoch it never saw — the hole KIP-279 closed.
    pub fn end_offset_kip101(&self, epoch: u64, log_end: u64) -> u64 {
        if self.latest() == Some(epoch) {
            return log_end;
        }
        self.entries
            .iter()
            .find(|&&(e, _)| e > epoch)
            .map_or(log_end, |&(_, start)| start)
    }

    /// KIP-279's answer for `epoch`: the largest epoch ≤ `epoch` this log
    /// has, and where it ends (the start of the next epoch, or the log
    /// end). With no epoch ≤ `epoch`: `epoch`, and the start of the oldest
    /// epoch (nothing of `epoch` or older is here).
    pub fn end_offset_kip279(&self, epoch: u64, log_end: u64) -> (u64, u64) {
        match self.entries.iter().rposition(|&(e, _)| e <= epoch) {
            Some(i) => {
                let end = self.entries.get(i + 1).map_or(log_end, |&(_, s)| s);
                (self.entries[i].0, end)
            }
            None => (epoch, self.entries.first().map_or(0, |&(_, s)| s)),
        }
    }

    /// `Err` naming the first break of "epochs strictly increase, start
    /// offsets never decrease, none past the log end".
    pub fn check(&self, log_end: u64) -> Result<(), String> {
        for w in self.entries.windows(2) {
            if w[1].0 <= w[0].0 || w[1].1 < w[0].1 {
                return Err(format!(
                    "leader-epoch cache not monotonic: {:?} then {:?}",
                    w[0], w[1]
                ));
            }
        }
        match self.entries.last() {
            Some(&(e, s)) if s > log_end => Err(format!(
                "leader-epoch cache: epoch {e} starts at {s}, past the log end {log_end}"
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(pairs: &[(u64, u64)]) -> EpochCache {
        let mut c = EpochCache::default();
        for &(e, s) in pairs {
            c.assign(e, s);
        }
        c
    }

    #[test]
    fn assign_keeps_epochs_increasing_and_truncation_drops_empty_epochs() {
        let mut c = cache(&[(1, 0), (1, 3), (3, 2), (2, 5)]);
        assert_eq!(c.entries(), &[(1, 0), (3, 2)]);
        c.truncate_from_end(2);
        assert_eq!(c.entries(), &[(1, 0)]);
        assert!(c.check(2).is_ok());
    }

    #[test]
    fn kip101_answers_the_log_end_for_an_epoch_the_leader_never_saw() {
        // The KIP-279 case: the leader (epoch 3, nothing appended yet) has
        // only epoch 1 records; a follower asks about epoch 2.
        let leader = cache(&[(1, 0)]);
        assert_eq!(leader.end_offset_kip101(2, 2), 2);
        // KIP-279: the largest epoch ≤ 2 the leader has is 1, ending at 2.
        assert_eq!(leader.end_offset_kip279(2, 2), (1, 2));
        // With the new leader's epoch recorded at election (KIP-279).
        let leader = cache(&[(1, 0), (3, 2)]);
        assert_eq!(leader.end_offset_kip101(2, 2), 2);
        assert_eq!(leader.end_offset_kip279(2, 2), (1, 2));
        assert_eq!(leader.end_offset_kip279(3, 4), (3, 4));
        assert_eq!(cache(&[(4, 0)]).end_offset_kip279(2, 3), (2, 0));
    }

    #[test]
    fn check_names_a_cache_past_the_log_end() {
        assert!(
            cache(&[(1, 0), (2, 5)])
                .check(3)
                .unwrap_err()
                .contains("past the log end")
        );
    }
}
