//! Each replica's state line ([`NodeState`]), from the probe: role, the
//! leader epoch it knows, log end (`LEO`), its high watermark (`HW`), the
//! controller's ISR on the line of the replica the controller names
//! leader, the fsynced log end (`durable`) and how it last caught up.

use replication::{NodeState, StateField};

use crate::probe::{CatchUpMode, IsrProbe};

/// One line per replica, in configuration order.
pub(crate) fn lines(probe: &IsrProbe) -> Vec<NodeState> {
    probe
        .nodes
        .iter()
        .map(|n| {
            let mut line = NodeState::new(n.id.clone(), n.alive, n.role.name())
                .with("epoch", n.known_leader_epoch)
                .with("LEO", n.log_end_offset)
                .with("HW", n.applied_hw);
            if n.id == probe.controller_leader {
                line = line.with_field(StateField::set("ISR", &probe.isr));
            }
            line = line.with("durable", n.durable_offset);
            if n.catch_up_mode != CatchUpMode::Never {
                line = line.with("catch-up", n.catch_up_mode);
            }
            if n.slow {
                line = line.with("slow", "yes");
            }
            line
        })
        .collect()
}
