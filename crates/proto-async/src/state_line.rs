//! Each node's state line ([`NodeState`]), from the probe: role, the
//! generation it believes current (`gen`), its replication offset
//! (`offset`, its log end), the offset of its last fsync (`durable`), the
//! primary a replica follows, how it last caught up, and an outstanding
//! `PSYNC`. Asynchronous replication has no commit index: nothing waits
//! for a replica.

use replication::NodeState;

use crate::probe::AsyncProbe;
use crate::role::CatchUpMode;

/// One line per node, in configuration order.
pub(crate) fn lines(probe: &AsyncProbe) -> Vec<NodeState> {
    probe
        .nodes
        .iter()
        .map(|n| {
            let mut line = NodeState::new(n.id.clone(), n.alive, n.role.name())
                .with("gen", n.generation)
                .with("offset", n.offset)
                .with("durable", n.durable_offset);
            if let Some(primary) = &n.following {
                line = line.with("follows", primary);
            }
            if n.catch_up_mode != CatchUpMode::Never {
                line = line.with("catch-up", n.catch_up_mode);
            }
            if n.resync_pending {
                line = line.with("psync", "pending");
            }
            line
        })
        .collect()
}
