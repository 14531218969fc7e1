//! The built-in protocols — one registration line each — and the
//! registry the laboratory's tools use.
//!
//! A protocol of your own registers the same way: implement
//! [`Registration`](replication::Registration) in its crate and pass
//! `registry().with(Protocol::new(&YourRegistration))` to
//! [`all_runs_in`](crate::all_runs_in),
//! [`explore_configs_in`](crate::explore_configs_in) or any tool that takes
//! a [`Registry`]; the guide page *Adding a protocol* walks through it.

pub use replication::{Protocol, Registry};

/// The four built-in protocols, in matrix column order.
pub const BUILTIN: [Protocol; 4] = [
    Protocol::new(&proto_async::AsyncRegistration),
    Protocol::new(&proto_wal::WalRegistration),
    Protocol::new(&proto_isr::IsrRegistration),
    Protocol::new(&proto_raft::RaftRegistration),
];

/// The built-in protocols as a [`Registry`].
pub fn registry() -> Registry {
    Registry::new(BUILTIN.to_vec())
}

/// The built-in protocol called `name` (`async`, `wal`, `isr`, `raft`).
pub fn protocol(name: &str) -> Option<Protocol> {
    BUILTIN.into_iter().find(|p| p.name() == name)
}

/// The built-in registry with `protocol` as its last column (unchanged for
/// a built-in one).
pub(crate) fn registry_with(protocol: Protocol) -> Registry {
    registry().with(protocol)
}

/// True for one of [`BUILTIN`].
pub(crate) fn is_builtin(protocol: Protocol) -> bool {
    BUILTIN.contains(&protocol)
}
