//! Client operations in flight: what each one waits for, and the pure
//! verdict on it given the node that took it.
//!
//! A Redis primary acknowledges a write as soon as it has applied it and
//! answers a read from the map of the node asked; neither waits for a
//! replica. So every operation accepted by
//! [`submit`](replication::ReplicationGroup::submit) is decided in the same
//! call — except a `Leader` write in a group configured with `wait`
//! ([`AsyncConfig::with_wait`](crate::AsyncConfig::with_wait)): the client
//! follows it with `WAIT numreplicas timeout`, so it stays pending until
//! enough replicas sent `REPLCONF ACK` for its offset (*done*) or the
//! timeout passes, its primary crashes or is demoted (*unknown*: it is
//! applied there). [`PendingOp::judge`] reads the node, never changes it;
//! the group (`client.rs`) judges every pending op after every tick and
//! after a crash or demotion, and acts on the [`Verdict`].

use bytes::Bytes;
use replication::{ClientOp, OpId, Outcome, ReadLevel};
use sim_core::{NodeId, Tick};

use crate::node::AsyncNode;

/// What the client is told when its write is acknowledged.
pub(crate) const WRITE_ACKED: &str = "applied by the primary; replicas are not waited for";

/// An operation accepted by `submit` and not yet completed.
#[derive(Debug, Clone)]
pub(crate) struct PendingOp {
    pub(crate) id: OpId,
    pub(crate) op: ClientOp,
    pub(crate) submitted: Tick,
    /// Position of the node that took it: the primary that applied the
    /// write, or the node the read is served by.
    pub(crate) node: usize,
    /// What completes it.
    pub(crate) awaiting: Awaiting,
}

/// What a pending operation waits for.
#[derive(Debug, Clone)]
pub(crate) enum Awaiting {
    /// A write applied at `offset`: the primary's own apply is the
    /// acknowledgement.
    Ack { offset: u64 },
    /// A read, served from the node's map when judged.
    Read { key: Bytes, level: ReadLevel },
    /// A write applied at `offset`, then `WAIT numreplicas` until
    /// `deadline`.
    Wait {
        offset: u64,
        numreplicas: usize,
        deadline: Tick,
    },
}

/// What happens to a pending op now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing yet.
    Pending,
    /// Complete it with this outcome.
    Complete(Outcome),
    /// A read: serve `key` from the node's map now, *done*.
    Serve { key: Bytes, level: ReadLevel },
    /// Its `WAIT` returned `acked` (`result`: `reached`, `timeout`,
    /// `primary_crashed`, `demoted`); complete it with `outcome`.
    WaitReturned {
        offset: u64,
        acked: usize,
        numreplicas: usize,
        result: &'static str,
        outcome: Outcome,
    },
}

impl PendingOp {
    /// The verdict on this op at `now`, given `node` (named `name`, up
    /// when `alive`), the node that took it.
    #[inline]
    pub(crate) fn judge(&self, node: &AsyncNode, name: &NodeId, alive: bool, now: Tick) -> Verdict {
        match &self.awaiting {
            Awaiting::Ack { offset } => {
                debug_assert!(
                    alive,
                    "a write without WAIT completes in the submit that applied it"
                );
                Verdict::Complete(Outcome::Written {
                    offset: *offset,
                    message: WRITE_ACKED.to_owned(),
                })
            }
            Awaiting::Read { key, level } => Verdict::Serve {
                key: key.clone(),
                level: *level,
            },
            &Awaiting::Wait {
                offset,
                numreplicas,
                deadline,
            } => {
                let (acked, result, message) = if !alive {
                    (
                        0,
                        "primary_crashed",
                        format!("{name} crashed before WAIT {numreplicas} returned"),
                    )
                } else if !node.is_primary() {
                    (
                        0,
                        "demoted",
                        format!("{name} was demoted before WAIT {numreplicas} returned"),
                    )
                } else {
                    let acked = node.acked_at_least(offset);
                    if acked >= numreplicas {
                        (acked, "reached", String::new())
                    } else if now >= deadline {
                        (
                            acked,
                            "timeout",
                            format!(
                                "applied by {name}, but WAIT {numreplicas} returned {acked}: \
                                 too few replicas acknowledged offset {offset} in time"
                            ),
                        )
                    } else {
                        return Verdict::Pending;
                    }
                };
                let outcome = if result == "reached" {
                    Outcome::Written {
                        offset,
                        message: format!(
                            "applied by the primary; WAIT {numreplicas} returned {acked}"
                        ),
                    }
                } else {
                    Outcome::unknown(Some(offset), message)
                };
                Verdict::WaitReturned {
                    offset,
                    acked,
                    numreplicas,
                    result,
                    outcome,
                }
            }
        }
    }
}
