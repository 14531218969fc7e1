//! The three properties checked on every run, and a run's answer for each.

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
}

impl Property {
    /// All three, in table order.
    pub const ALL: [Property; 3] = [
        Property::Durable,
        Property::Linearizable,
        Property::Invariants,
    ];

    /// `durable`, `linearizable`, `invariants`.
    pub fn name(self) -> &'static str {
        match self {
            Property::Durable => "durable",
            Property::Linearizable => "linearizable",
            Property::Invariants => "invariants",
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
