//! # sim-core — the deterministic simulator under MiniDist
//!
//! A single-threaded, seeded discrete-event simulator for replication
//! protocols. Nothing here is wall-clock time, a socket or a disk: a tick
//! orders events, a message is a value in a queue, an fsync stores an image.
//! Same seed and same script ⇒ the byte-identical [`Trace`].
//!
//! | piece | what it is |
//! |---|---|
//! | [`SimClock`] | integer logical time; moves only by a positive step |
//! | [`Scheduler`] | data events keyed by (due tick, insertion order) |
//! | [`SimNet`] | addressed delivery on a [`Transport`]: datagrams (seeded delay, drops, duplicates, reordering, drop at delivery) or streams (FIFO per link, order-keeping stalls, a cut resets the connection); directional partitions |
//! | [`Rng`] | the one seeded generator (SplitMix64, written out so it never changes) |
//! | [`Trace`] | ordered `{seq, tick, kind, fields}` events; text and JSON lines; switchable; mirrored to `tracing` |
//! | [`DurableImages`] | per-node last-fsynced image, for lose-unfsynced crashes |
//!
//! ## What it mirrors, simplifies, omits
//!
//! - **Mirrors** the failure vocabulary of deterministic simulation testing
//!   (FoundationDB's simulator, turmoil, madsim): message delay, loss,
//!   reordering, asymmetric partitions, a message lost because the link
//!   broke while it was in flight, and the difference between a process
//!   crash and a power loss that discards unfsynced writes.
//! - **Simplifies** time to integer ticks and a disk to an explicit image
//!   copied by `fsync`.
//! - **Mirrors** the two networks replication runs on: UDP-like datagrams
//!   (what the Raft paper assumes) and TCP-like streams, whose connection
//!   reset on a partition is what PostgreSQL's walreceiver, a Redis replica
//!   or a Kafka fetcher recovers from.
//! - **Omits** bandwidth, message sizes, clock drift between nodes, and
//!   corruption.
//!
//! ## Example
//!
//! ```
//! use sim_core::{NetConfig, NodeId, Payload, Rng, SimNet, Trace};
//!
//! struct Ping;
//! impl Payload for Ping {
//!     fn label(&self) -> &'static str { "ping" }
//! }
//!
//! let (a, b) = (NodeId::new("a"), NodeId::new("b"));
//! let mut net = SimNet::new(NetConfig::default()).unwrap();
//! let (mut rng, mut trace) = (Rng::new(1), Trace::new());
//! net.send(&a, &b, Ping, &mut rng, &mut trace);
//! net.advance();
//! let env = net.next_delivery(&mut trace).unwrap();
//! assert_eq!(env.dst, b);
//! assert_eq!(trace.to_text(), "#0 @0 message_sent id=0 src=a dst=b msg=\"ping\"\n\
//!                              #1 @1 message_delivered id=0 src=a dst=b msg=\"ping\"\n");
//! ```
//!
//! A longer, runnable example: `cargo run -p sim-core --example ping_pong`.

mod clock;
mod durable;
mod error;
mod net;
mod node;
mod rng;
mod scheduler;
mod trace;

pub use clock::{SimClock, Tick};
pub use durable::DurableImages;
pub use error::SimError;
pub use net::{Envelope, Held, MessageId, NetConfig, Payload, SimNet, Transport};
pub use node::NodeId;
pub use rng::Rng;
pub use scheduler::Scheduler;
#[doc(hidden)]
pub use trace::FieldWriter;
pub use trace::{
    Event, EventRef, Events, Field, FieldSink, Fields, Trace, TraceFilter, TraceValue, Value,
    event_from_json_line, event_to_json, is_message_kind, value_from_json, value_to_json,
};

#[cfg(feature = "insta")]
#[doc(hidden)]
pub use insta as __insta;

/// Pins the events of a trace that a [`TraceFilter`] keeps, in the trace's
/// text form, as an [insta](https://insta.rs) snapshot (feature `insta`):
/// `assert_trace_snapshot!(NAME, &trace, filter)`. Most of a protocol trace is
/// messages; pinning the rest keeps a snapshot about the protocol's
/// decisions:
///
/// ```ignore
/// use sim_core::{TraceFilter, assert_trace_snapshot};
/// assert_trace_snapshot!("failover", group.trace(), TraceFilter::new().without_messages());
/// ```
///
/// Enable it for tests with
/// `sim-core = { …, features = ["insta"] }` under `[dev-dependencies]`.
#[cfg(feature = "insta")]
#[macro_export]
macro_rules! assert_trace_snapshot {
    ($name:expr, $trace:expr, $filter:expr $(,)?) => {
        $crate::__insta::assert_snapshot!(
            $name,
            $crate::TraceFilter::to_text(&$filter, $trace),
            concat!(stringify!($trace), " kept by ", stringify!($filter))
        )
    };
}

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
