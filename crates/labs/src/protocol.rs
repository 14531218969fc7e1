//! The four protocol families.

use std::fmt;

/// Which protocol an experiment run drove.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protocol {
    /// Redis-shaped asynchronous primary/replica (`proto-async`).
    Async,
    /// PostgreSQL-shaped WAL shipping (`proto-wal`).
    Wal,
    /// Kafka-shaped ISR + high watermark (`proto-isr`).
    Isr,
    /// Textbook Raft (`proto-raft`).
    Raft,
}

impl Protocol {
    /// All four, in matrix column order.
    pub const ALL: [Protocol; 4] = [
        Protocol::Async,
        Protocol::Wal,
        Protocol::Isr,
        Protocol::Raft,
    ];

    /// The short name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Async => "async",
            Protocol::Wal => "wal",
            Protocol::Isr => "isr",
            Protocol::Raft => "raft",
        }
    }

    /// Parses a short name.
    pub fn from_name(name: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
