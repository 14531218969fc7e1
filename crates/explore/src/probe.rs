//! The explorer's own operations after a schedule — *recovers*' probes,
//! the steady state's timed write and read, *available*'s aimed write —
//! which are not part of the history: each submitted at the strongest
//! level the protocol supports and awaited a bounded number of ticks.

use replication::{
    AckLevel, Bytes, ClientOp, Completion, GroupError, OpId, ReadLevel, ReplicationGroup,
};

/// What submitting a probe answered: the level it went at, and the
/// submission's answer (`None` when the protocol supports no level).
pub(crate) type Submitted = Option<(&'static str, Result<OpId, GroupError>)>;

/// Submits `key` = `value` at the strongest ack level the protocol
/// supports: ALL_ISR, then QUORUM, then LEADER.
pub(crate) fn write(
    group: &mut dyn ReplicationGroup,
    key: &Bytes,
    value: &'static [u8],
) -> Submitted {
    [AckLevel::AllIsr, AckLevel::Quorum, AckLevel::Leader]
        .into_iter()
        .find_map(|level| {
            let op = ClientOp::write(key.clone(), Bytes::from_static(value), level);
            match group.submit(op) {
                Err(GroupError::UnsupportedAck { .. }) => None,
                other => Some((level.name(), other)),
            }
        })
}

/// Submits a read of `key` at the strongest read level the protocol
/// supports: LINEARIZABLE, then LEADER.
pub(crate) fn read(group: &mut dyn ReplicationGroup, key: &Bytes) -> Submitted {
    [ReadLevel::Linearizable, ReadLevel::Leader]
        .into_iter()
        .find_map(
            |level| match group.submit(ClientOp::read(key.clone(), level)) {
                Err(GroupError::UnsupportedRead { .. }) => None,
                other => Some((level.name(), other)),
            },
        )
}

/// `id`'s completion, asked for at once and after each of at most
/// `settle` ticks; `None` when it did not come.
pub(crate) fn answer(
    group: &mut dyn ReplicationGroup,
    id: OpId,
    settle: u64,
) -> Option<Completion> {
    let mut answer = group.take_completion(id);
    let mut waited = 0;
    while answer.is_none() && waited < settle {
        group.tick();
        waited += 1;
        answer = group.take_completion(id);
    }
    answer
}
