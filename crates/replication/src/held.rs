//! What a steered run shows and hashes: [`HeldMessage`], a message the
//! network holds for a chooser, [`ArmedTimer`], a timer a chooser may
//! fire, and [`StateHasher`], the fingerprint's
//! fixed hash. The trait a steerable group implements, `Steer`, and
//! `state_fingerprint` sit beside `ReplicationGroup` in the `group`
//! module. The fingerprint includes the tick (nodes keep absolute
//! deadlines), so two states merge only at the same tick.

use std::fmt::{self, Write as _};
use std::hash::{BuildHasher, Hasher};

use sim_core::MessageId;

/// A message the network holds, as a chooser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldMessage {
    /// Its id (the trace's `message_sent` id).
    pub id: MessageId,
    /// Sender, as a position in the group's node list.
    pub from: usize,
    /// Receiver.
    pub to: usize,
    /// The message's label (`append_entries`, `fetch`, …).
    pub label: &'static str,
    /// May be delivered next (a stream delivers each link in order).
    pub deliverable: bool,
}

/// A node's faults, as the harness keeps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NodeFaults {
    /// Crashed and not restarted.
    pub down: bool,
    /// Cut from every peer.
    pub isolated: bool,
    /// Marked slow.
    pub slow: bool,
}

/// A timer armed at a node, as a chooser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmedTimer {
    /// The node, as a position in the group's node list.
    pub node: usize,
    /// What fires (`election`, `heartbeat`, …).
    pub label: &'static str,
    /// Ticks until it fires by itself (0: at the next tick).
    pub due_in: u64,
}

/// The fingerprint's hash: foldhash with a fixed seed (as the KV maps use
/// it), so a fingerprint does not depend on a randomly seeded hasher, and
/// text written into it is hashed as it is written (none is kept).
///
/// A hasher made by [`StateHasher::without_messages`] is told to leave
/// the messages in flight out: a model checker's coarser view of a state
/// (TLC's `VIEW`), in which states that differ only there are one. One
/// made by [`StateHasher::in_delivery_order`] is told to hash them in the
/// order the network will deliver them: a finer view, for a memo of what
/// a run does next.
#[derive(Clone)]
pub struct StateHasher {
    hash: foldhash::fast::FoldHasher<'static>,
    /// Whether the messages in flight feed this hash.
    messages: bool,
    /// Whether they are to be hashed in delivery order.
    ordered: bool,
    /// Whether a harness did hash them in delivery order.
    ordered_done: bool,
}

/// The seed every fingerprint is hashed with.
const SEED: foldhash::fast::FixedState = foldhash::fast::FixedState::with_seed(0x5eed);

impl Default for StateHasher {
    fn default() -> Self {
        StateHasher {
            hash: SEED.build_hasher(),
            messages: true,
            ordered: false,
            ordered_done: false,
        }
    }
}

impl fmt::Debug for StateHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StateHasher")
    }
}

impl StateHasher {
    /// The hash of `value`'s `Debug` form, alone.
    pub fn of_debug(value: &dyn fmt::Debug) -> u64 {
        let mut h = StateHasher::default();
        let _ = write!(h, "{value:?}");
        h.finish()
    }

    /// A hasher that a harness feeds without the messages in flight
    /// (held or scheduled): everything else as [`default`](Self::default).
    pub fn without_messages() -> StateHasher {
        StateHasher {
            messages: false,
            ..StateHasher::default()
        }
    }

    /// Whether the messages in flight are to feed this hash (false only
    /// for [`without_messages`](Self::without_messages)).
    pub fn hashes_messages(&self) -> bool {
        self.messages
    }

    /// A hasher that a harness feeds with the messages in flight in the
    /// order its network will deliver them, each with its due tick
    /// ([`sim_core::SimNet::in_delivery_order`]), instead of in a
    /// canonical order: two states it does not tell apart run alike from
    /// here on, whatever is delivered in one tick. A harness that does so
    /// says it ([`hashed_in_delivery_order`](Self::hashed_in_delivery_order)).
    pub fn in_delivery_order() -> StateHasher {
        StateHasher {
            ordered: true,
            ..StateHasher::default()
        }
    }

    /// Whether the messages in flight are to be hashed in delivery order
    /// (true only for [`in_delivery_order`](Self::in_delivery_order)).
    pub fn wants_delivery_order(&self) -> bool {
        self.ordered
    }

    /// Said by a harness that hashed its messages in flight in delivery
    /// order.
    pub fn note_delivery_order(&mut self) {
        self.ordered_done = true;
    }

    /// True when a harness hashed its messages in flight in delivery order
    /// into this hasher.
    pub fn hashed_in_delivery_order(&self) -> bool {
        self.ordered_done
    }
}

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.hash.finish()
    }

    fn write(&mut self, bytes: &[u8]) {
        self.hash.write(bytes);
    }

    fn write_u64(&mut self, n: u64) {
        self.hash.write_u64(n);
    }
}

impl fmt::Write for StateHasher {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.hash.write(s.as_bytes());
        Ok(())
    }
}

/// The network half of a `Steer` impl for a group whose harness is a
/// `Cluster` in field `$cluster`: `write_harness` and `hash_harness` (its
/// text, or with `, hashed`, for a protocol whose messages derive `Hash`,
/// hashed as derived; either way without the messages in flight for a
/// [`StateHasher::without_messages`]), `hold`, `held`, `release`,
/// `drop_held`, `duplicate_held`, `node_faults`, `cut_links`. Use it
/// inside the `impl Steer for …` block.
#[macro_export]
macro_rules! steer_through_cluster {
    ($cluster:ident, hashed) => {
        $crate::steer_through_cluster!(@network $cluster);
        fn hash_harness(&self, hasher: &mut $crate::StateHasher) {
            self.$cluster.hash_harness(hasher)
        }
    };
    ($cluster:ident) => {
        $crate::steer_through_cluster!(@network $cluster);
        fn hash_harness(&self, hasher: &mut $crate::StateHasher) {
            self.$cluster.hash_harness_text(hasher)
        }
    };
    (@network $cluster:ident) => {
        fn write_harness(&self, out: &mut dyn ::std::fmt::Write) -> ::std::fmt::Result {
            self.$cluster.write_harness(out)
        }
        fn hold(&mut self, on: bool) -> ::std::result::Result<(), $crate::GroupError> {
            self.$cluster.hold(on)
        }
        fn held(&self) -> ::std::vec::Vec<$crate::HeldMessage> {
            self.$cluster.held()
        }
        fn release(&mut self, id: u64) -> ::std::result::Result<(), $crate::GroupError> {
            self.$cluster.release(id)
        }
        fn drop_held(&mut self, id: u64) -> ::std::result::Result<(), $crate::GroupError> {
            self.$cluster.drop_held(id)
        }
        fn duplicate_held(&mut self, id: u64) -> ::std::result::Result<(), $crate::GroupError> {
            self.$cluster.duplicate_held(id)
        }
        fn node_faults(&self, node: usize) -> $crate::NodeFaults {
            self.$cluster.node_faults(node)
        }
        fn cut_links(&self) -> ::std::vec::Vec<(usize, usize)> {
            self.$cluster.cut_links()
        }
    };
}
