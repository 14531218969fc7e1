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

/// The registry [`serve`] installed, if one was.
static SERVED: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();

/// The registry the laboratory's tools serve: the built-in protocols, or
/// the registry [`serve`] installed.
pub fn registry() -> Registry {
    SERVED
        .get()
        .cloned()
        .unwrap_or_else(|| Registry::new(BUILTIN.to_vec()))
}

/// Makes `registry` the one every tool of this process serves
/// ([`registry`], [`explore_configs`](crate::explore_configs), the
/// `xtask` command line), and `command` the command that reruns this
/// program (`cargo run --release --manifest-path …/Cargo.toml --`), which
/// printed counterexamples name ([`explore::command`]). For a crate
/// outside the workspace — a protocol of its own, a lab's student
/// crate — whose binary then calls `xtask::main()`. Once per process: a
/// second call is refused with the registry it tried to install.
pub fn serve(registry: Registry, command: &str) -> Result<(), Registry> {
    SERVED.set(registry)?;
    explore::set_command(command);
    Ok(())
}

/// True when [`serve`] installed a registry.
pub fn served() -> bool {
    SERVED.get().is_some()
}

/// The protocol called `name` in the [`registry`] served (`async`, `wal`,
/// `isr`, `raft` when it is the built-in one).
pub fn protocol(name: &str) -> Option<Protocol> {
    registry().named(name)
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
