//! # proto-chain — chain replication, a protocol of your own
//!
//! Chain replication (van Renesse & Schneider, OSDI 2004) on MiniDist's
//! simulator: the nodes form a chain `head → … → tail`; a write enters at
//! the head and is forwarded down the chain; it is committed once the tail
//! holds it, and the tail answers the reads that must be current. An
//! in-process master (the paper's configuration service) removes failed
//! nodes from the chain and appends a restarted node at its end.
//!
//! This crate lives outside the MiniDist workspace: it depends on
//! `sim-core` and `replication` only, implements the
//! [`ReplicationGroup`](replication::ReplicationGroup) trait on the shared
//! [`Cluster`](replication::Cluster) harness, and presents itself to the
//! laboratory through one [`Registration`](replication::Registration),
//! [`ChainRegistration`]. Registering it is one line:
//!
//! ```
//! use replication::Protocol;
//! let registry = replication::Registry::new(vec![
//!     Protocol::new(&proto_chain::ChainRegistration),
//! ]);
//! assert_eq!(registry.names(), ["chain"]);
//! ```
//!
//! Its test (`tests/registered.rs`) runs the seven experiments and the
//! explorer on the built-in four plus this one.
//!
//! ## What it mirrors, simplifies, omits
//!
//! - **Mirrors** the paper's update and query processing: writes at the
//!   head, propagation in chain order, commit at the tail, reads at the
//!   tail (`LINEARIZABLE`); the master's chain reconfiguration in a new
//!   epoch, with messages of an older epoch fenced.
//! - **Simplifies** the master to an in-process component that never fails
//!   (like the ISR controller), and a rejoining node's catch-up to a full
//!   state transfer from its new predecessor.
//! - **Omits** the paper's `Sent` lists (a predecessor re-forwards from
//!   what its successor last confirmed), and any durability beyond what a
//!   process crash keeps (`fsync` is a no-op; a power loss loses nothing
//!   more).
//!
//! A runnable example: `cargo run --manifest-path examples/chain/Cargo.toml
//! --example chain_write`.

mod group;
mod master;
mod message;
mod node;
mod registration;

pub use group::ChainGroup;
pub use registration::ChainRegistration;

/// The command that runs this crate's binary — the laboratory's command
/// line with chain registered — from the laboratory's checkout, as
/// counterexamples print it.
pub const COMMAND: &str = "cargo run --release --manifest-path examples/chain/Cargo.toml --";
