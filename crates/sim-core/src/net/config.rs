//! Network settings: the transport and its seeded delays and faults.

use crate::error::SimError;

/// How the network carries messages: the two kinds real replication runs
/// on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// Independent datagrams, as the Raft paper assumes: each message gets
    /// its own seeded delay, may be dropped (`drop_rate`), duplicated
    /// (`duplicate_rate`) or overtaken by a later one (`reorder_rate`); a
    /// link cut while a message is in flight drops it at delivery.
    #[default]
    Datagram,
    /// TCP-like streams, as Kafka, PostgreSQL and Redis use: messages on
    /// one directed link arrive in the order sent (a later message never
    /// overtakes an earlier one, whatever its delay; `stall_rate` holds a
    /// link for up to `stall_ticks`, and everything behind waits); nothing
    /// is dropped or duplicated on a working link. Cutting a link (a
    /// partition, an isolation) resets its connection: everything in flight
    /// on it is lost at once (`connection_reset`) and both ends are told.
    Stream,
}

impl Transport {
    /// `datagram` or `stream`.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Datagram => "datagram",
            Transport::Stream => "stream",
        }
    }
}

/// Network settings. Build with [`NetConfig::default`] and the `with_*`
/// methods; [`SimNet::new`](crate::SimNet::new) validates.
#[derive(Debug, Clone, PartialEq)]
pub struct NetConfig {
    /// Datagrams or streams.
    pub transport: Transport,
    /// Smallest delivery delay in ticks.
    pub min_delay: u64,
    /// Largest delivery delay in ticks (≥ `min_delay`).
    pub max_delay: u64,
    /// Probability in [0, 1] that a message is dropped on send.
    pub drop_rate: f64,
    /// Probability in [0, 1] that a message gets extra delay so a later one
    /// may overtake it.
    pub reorder_rate: f64,
    /// Largest extra delay added to a reordered message (≥ 1 when
    /// `reorder_rate` > 0).
    pub reorder_jitter: u64,
    /// Probability in [0, 1] that a datagram is delivered twice (each copy
    /// with its own delay). Datagram only.
    pub duplicate_rate: f64,
    /// Probability in [0, 1] that a stream's link stalls before a message:
    /// it and everything sent after it on that link wait up to
    /// `stall_ticks` more. Stream only.
    pub stall_rate: f64,
    /// Longest stall (≥ 1 when `stall_rate` > 0).
    pub stall_ticks: u64,
    /// Most messages in flight at once (≥ 1): a send beyond it is dropped
    /// (`message_dropped` reason `network_full`) and counted
    /// ([`SimNet::overflowed`](crate::SimNet::overflowed)). A bounded
    /// buffer, as every real network has; the default 10,000 is far above
    /// what a handful of nodes keeps in flight, so reaching it means a
    /// message storm (one message answered by several, growing without
    /// end).
    pub capacity: usize,
}

impl Default for NetConfig {
    /// Delay exactly 1 tick, no drops, no reordering.
    fn default() -> Self {
        NetConfig {
            transport: Transport::Datagram,
            min_delay: 1,
            max_delay: 1,
            drop_rate: 0.0,
            reorder_rate: 0.0,
            reorder_jitter: 2,
            duplicate_rate: 0.0,
            stall_rate: 0.0,
            stall_ticks: 4,
            capacity: 10_000,
        }
    }
}

impl NetConfig {
    /// At most `messages` in flight at once (see [`NetConfig::capacity`]).
    #[must_use]
    pub fn with_capacity(mut self, messages: usize) -> Self {
        self.capacity = messages;
        self
    }

    /// A fixed delay of `ticks` for every message.
    pub fn with_delay(mut self, ticks: u64) -> Self {
        self.min_delay = ticks;
        self.max_delay = ticks;
        self
    }

    /// A seeded delay drawn uniformly from `min..=max`.
    pub fn with_delay_range(mut self, min: u64, max: u64) -> Self {
        self.min_delay = min;
        self.max_delay = max;
        self
    }

    /// Seeded drops with probability `rate`.
    pub fn with_drop_rate(mut self, rate: f64) -> Self {
        self.drop_rate = rate;
        self
    }

    /// Seeded reordering: with probability `rate`, up to `jitter` extra ticks.
    pub fn with_reorder(mut self, rate: f64, jitter: u64) -> Self {
        self.reorder_rate = rate;
        self.reorder_jitter = jitter;
        self
    }

    /// The same settings on `transport`.
    pub fn with_transport(mut self, transport: Transport) -> Self {
        self.transport = transport;
        self
    }

    /// Seeded duplication with probability `rate` (datagrams).
    pub fn with_duplicate_rate(mut self, rate: f64) -> Self {
        self.duplicate_rate = rate;
        self
    }

    /// Seeded stalls with probability `rate`, each up to `ticks` (streams).
    pub fn with_stalls(mut self, rate: f64, ticks: u64) -> Self {
        self.stall_rate = rate;
        self.stall_ticks = ticks;
        self
    }

    /// The worst one-way delay a message can see: the delay range's top,
    /// plus the longest stall when stalls are on.
    #[must_use]
    pub fn worst_delay(&self) -> u64 {
        self.max_delay
            + if self.stall_rate > 0.0 {
                self.stall_ticks
            } else {
                0
            }
    }

    /// True when the network loses, duplicates, reorders and stalls
    /// nothing: every message arrives once, in order, within the delay
    /// range.
    #[must_use]
    pub fn is_reliable(&self) -> bool {
        self.drop_rate <= 0.0
            && self.duplicate_rate <= 0.0
            && self.reorder_rate <= 0.0
            && self.stall_rate <= 0.0
    }

    /// Checks every setting; the error names the one at fault.
    pub fn validate(&self) -> Result<(), SimError> {
        if self.capacity == 0 {
            return Err(SimError::Config {
                setting: "capacity",
                reason: "the network must hold at least one message".into(),
            });
        }
        if self.max_delay < self.min_delay {
            return Err(SimError::Config {
                setting: "max_delay",
                reason: format!(
                    "max_delay {} is below min_delay {}",
                    self.max_delay, self.min_delay
                ),
            });
        }
        for (setting, rate) in [
            ("drop_rate", self.drop_rate),
            ("reorder_rate", self.reorder_rate),
            ("duplicate_rate", self.duplicate_rate),
            ("stall_rate", self.stall_rate),
        ] {
            if !(0.0..=1.0).contains(&rate) {
                return Err(SimError::Config {
                    setting,
                    reason: format!("{rate} is outside [0, 1]"),
                });
            }
        }
        if self.reorder_rate > 0.0 && self.reorder_jitter == 0 {
            return Err(SimError::Config {
                setting: "reorder_jitter",
                reason: "must be at least 1 when reorder_rate > 0".into(),
            });
        }
        if self.stall_rate > 0.0 && self.stall_ticks == 0 {
            return Err(SimError::Config {
                setting: "stall_ticks",
                reason: "must be at least 1 when stall_rate > 0".into(),
            });
        }
        let stream = self.transport == Transport::Stream;
        for (setting, rate, datagram_only) in [
            ("drop_rate", self.drop_rate, true),
            ("duplicate_rate", self.duplicate_rate, true),
            ("reorder_rate", self.reorder_rate, true),
            ("stall_rate", self.stall_rate, false),
        ] {
            if rate > 0.0 && stream == datagram_only {
                return Err(SimError::Config {
                    setting,
                    reason: format!("not a setting of the {} transport", self.transport.name()),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_delay_adds_the_longest_stall_only_when_stalls_are_on() {
        let net = NetConfig::default().with_delay_range(1, 6);
        assert_eq!(net.worst_delay(), 6);
        assert_eq!(net.clone().with_stalls(0.0, 4).worst_delay(), 6);
        assert_eq!(net.with_stalls(0.05, 4).worst_delay(), 10);
    }
}
