//! The authority guards of a `Linearizable` read and of `lease_read`: the
//! high watermark, the ISR size and the lease.

use replication::Tick;

use super::state::Controller;

/// Why an authority read is refused now (the read is *blocked*, not
/// unsupported).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadRefusal {
    /// The leader holds entries above HW (`above high watermark`).
    AboveHighWatermark {
        /// The leader's log end.
        log_end: u64,
        /// The high watermark.
        high_watermark: u64,
    },
    /// The ISR is smaller than `min.insync.replicas` (`isr below
    /// min.insync`).
    IsrBelowMinInsync {
        /// ISR size.
        size: usize,
        /// `min.insync.replicas`.
        min: usize,
    },
    /// The lease has expired (`lease expired`).
    LeaseExpired {
        /// When it expired.
        expiry: Tick,
        /// Now.
        now: Tick,
    },
    /// The addressed replica is not the controller's current leader
    /// (`lease fenced`).
    NotLeader,
}

impl ReadRefusal {
    /// The guard's name, as [`GroupError::ReadBlocked`](replication::GroupError::ReadBlocked) carries it.
    #[must_use]
    pub fn guard(&self) -> &'static str {
        match self {
            ReadRefusal::AboveHighWatermark { .. } => "above high watermark",
            ReadRefusal::IsrBelowMinInsync { .. } => "isr below min.insync",
            ReadRefusal::LeaseExpired { .. } => "lease expired",
            ReadRefusal::NotLeader => "lease fenced",
        }
    }

    /// Why, in words (`NotLeader` is worded by the caller, who knows the
    /// replicas' names).
    #[must_use]
    pub fn reason(&self) -> String {
        match *self {
            ReadRefusal::AboveHighWatermark {
                log_end,
                high_watermark,
            } => replication::message!["leader log end ", log_end, " is above HW ", high_watermark],
            ReadRefusal::IsrBelowMinInsync { size, min } => {
                replication::message!["ISR size ", size, " is below min.insync.replicas ", min]
            }
            ReadRefusal::LeaseExpired { expiry, now } => {
                replication::message!["lease expired at tick ", expiry, " (now ", now, ")"]
            }
            ReadRefusal::NotLeader => "not the current leader".to_owned(),
        }
    }
}

impl Controller {
    /// The guards of a `Linearizable` read at the leader, whose log ends at
    /// `leader_log_end`: nothing above HW, ISR ≥ `min.insync.replicas`, a
    /// live lease — checked in that order.
    pub fn linearizable_read(&self, now: Tick, leader_log_end: u64) -> Result<(), ReadRefusal> {
        if leader_log_end > self.high_watermark {
            return Err(ReadRefusal::AboveHighWatermark {
                log_end: leader_log_end,
                high_watermark: self.high_watermark,
            });
        }
        let (size, min) = (self.isr_len(), self.min_insync_replicas);
        if !self.decide.admits(size, min) {
            return Err(ReadRefusal::IsrBelowMinInsync { size, min });
        }
        self.lease_live(now)
    }

    /// The guards `lease_read` adds for replica `j`: it must be the current
    /// leader and in the ISR, with a live lease.
    pub fn lease_read(&self, now: Tick, j: usize) -> Result<(), ReadRefusal> {
        if j != self.leader || !self.in_isr[j] {
            return Err(ReadRefusal::NotLeader);
        }
        self.lease_live(now)
    }

    fn lease_live(&self, now: Tick) -> Result<(), ReadRefusal> {
        if !self.decide.lease_live(now, self.lease_expiry) {
            return Err(ReadRefusal::LeaseExpired {
                expiry: self.lease_expiry,
                now,
            });
        }
        Ok(())
    }
}
