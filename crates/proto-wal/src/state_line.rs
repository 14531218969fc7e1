//! Each node's state line ([`NodeState`]), from the probe: role, its
//! timeline (`TL`), the last LSN in its WAL (`LSN`, its log end), the last
//! LSN replayed into its data (`replay`), the LSN of its durable image
//! (`durable`), the configured synchronous standbys on the primary's line
//! (`sync`), the primary a standby streams from and how it last caught up.

use replication::{NodeState, StateField};

use crate::probe::WalProbe;
use crate::role::{CatchUpMode, Role};

/// One line per node, in configuration order.
pub(crate) fn lines(probe: &WalProbe) -> Vec<NodeState> {
    probe
        .nodes
        .iter()
        .map(|n| {
            let mut line = NodeState::new(n.id.clone(), n.alive, n.role.name())
                .with("TL", n.timeline)
                .with("LSN", n.received_lsn)
                .with("replay", n.applied_lsn)
                .with("durable", n.durable_lsn);
            if n.role == Role::Primary && !probe.synchronous_standbys.is_empty() {
                line = line.with_field(StateField::set("sync", &probe.synchronous_standbys));
            }
            if let Some(primary) = &n.following {
                line = line.with("follows", primary);
            }
            if n.catch_up_mode != CatchUpMode::Never {
                line = line.with("catch-up", n.catch_up_mode);
            }
            line
        })
        .collect()
}
