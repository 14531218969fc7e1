//! The five properties checked on every run, and a run's answer for each.

use std::fmt;

/// A property the explorer checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Property {
    /// Every write acknowledged at the configuration's ack level is in the
    /// final reads, or superseded by a write not ordered before it.
    Durable,
    /// The whole history (reads at the configuration's read level, final
    /// reads at the strongest level) is linearizable.
    Linearizable,
    /// The protocol's own invariant checker holds after every step and tick.
    Invariants,
    /// Progress: once every fault is healed and every node restarted, and
    /// the protocol's recovery bound has passed, a write and a read at the
    /// strongest levels complete *done* — unless the protocol states, from
    /// its own state, why it legitimately cannot serve (an ISR partition
    /// with no in-sync replica left and unclean election off).
    Recovers,
    /// Availability under tolerated faults: an operation submitted to the
    /// current leader while the faults in force have been ones the protocol
    /// tolerates for longer than its recovery bound completes *done* while
    /// they stay tolerated.
    Available,
}

impl Property {
    /// All five, in table order.
    pub const ALL: [Property; 5] = [
        Property::Durable,
        Property::Linearizable,
        Property::Invariants,
        Property::Recovers,
        Property::Available,
    ];

    /// Its position in [`Property::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// `durable`, `linearizable`, `invariants`.
    pub fn name(self) -> &'static str {
        match self {
            Property::Durable => "durable",
            Property::Linearizable => "linearizable",
            Property::Invariants => "invariants",
            Property::Recovers => "recovers",
            Property::Available => "available",
        }
    }

    /// The property of `name`.
    pub fn from_name(name: &str) -> Option<Property> {
        Property::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One run's answer for one property.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Check {
    /// It held.
    Holds,
    /// It was broken; the text says how.
    Violated(String),
    /// The checker could not decide (its budget ran out); the text says
    /// why.
    Unknown(String),
    /// The run ended unavailable: a final read was never served (e.g. no
    /// ISR member left to elect), so durability cannot be judged. Not a
    /// violation: an offline partition loses availability, not data.
    Undecided(String),
}

impl Check {
    /// True for [`Check::Violated`].
    pub fn is_violated(&self) -> bool {
        matches!(self, Check::Violated(_))
    }
}

impl fmt::Display for Check {
    /// `holds`, `violated: why`, `unknown: why`, `undecided: why`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Check::Holds => f.write_str("holds"),
            Check::Violated(why) => write!(f, "violated: {why}"),
            Check::Unknown(why) => write!(f, "unknown: {why}"),
            Check::Undecided(why) => write!(f, "undecided: {why}"),
        }
    }
}

/// A verdict's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// No schedule broke it.
    Holds,
    /// A schedule broke it; see the counterexample.
    Violated,
    /// No schedule broke it, but some could not decide.
    Unknown,
}

impl Status {
    /// `holds`, `violated`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Violated => "violated",
            Status::Unknown => "unknown",
        }
    }

    /// The status of `name` (`holds`, `violated`, `unknown`).
    pub fn from_name(name: &str) -> Option<Status> {
        [Status::Holds, Status::Violated, Status::Unknown]
            .into_iter()
            .find(|s| s.name() == name)
    }
}
