//! The one error type of every protocol.

use sim_core::{NodeId, SimError};

use crate::level::{AckLevel, ReadLevel};

/// Everything a [`ReplicationGroup`](crate::ReplicationGroup) call can refuse.
///
/// **Unsupported and blocked are different answers.** `UnsupportedAck` /
/// `UnsupportedRead` mean the protocol offers no such guarantee at all;
/// `ReadBlocked` means it offers one and the current state fails its guard.
/// A call answered with an error has changed no protocol state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GroupError {
    /// The protocol has no such acknowledgement level.
    #[error("{protocol} does not support ack level {level}")]
    UnsupportedAck {
        /// Protocol name (`async`, `wal`, `isr`, `raft`).
        protocol: &'static str,
        /// The level asked for.
        level: AckLevel,
    },
    /// The protocol has no such read level.
    #[error("{protocol} does not support read level {level}")]
    UnsupportedRead {
        /// Protocol name.
        protocol: &'static str,
        /// The level asked for.
        level: ReadLevel,
    },
    /// The protocol supports the level but its authority guard refused now.
    #[error("{level} read at {node} blocked ({guard}): {reason}")]
    ReadBlocked {
        /// The level asked for.
        level: ReadLevel,
        /// The node whose guard refused.
        node: NodeId,
        /// Short stable name of the guard that failed, e.g. `lease fenced`,
        /// `above high watermark`, `read-index fenced (no quorum)`.
        guard: &'static str,
        /// The details.
        reason: String,
    },
    /// No node of that name is in the group.
    #[error("unknown node {0}")]
    UnknownNode(NodeId),
    /// The node is crashed and the operation needs it alive.
    #[error("node {0} is down")]
    NodeDown(NodeId),
    /// `restart` of a node that is running.
    #[error("node {0} is already running")]
    AlreadyRunning(NodeId),
    /// No alive leader / primary exists to serve the call.
    #[error("no leader: {0}")]
    NoLeader(String),
    /// The operation is understood but not allowed in this state.
    #[error("not permitted on {node}: {reason}")]
    NotPermitted {
        /// The node the operation named.
        node: NodeId,
        /// Why it is refused.
        reason: String,
    },
    /// A configuration value is out of range.
    #[error("invalid configuration `{setting}`: {reason}")]
    Config {
        /// The setting at fault, e.g. `min_insync_replicas`.
        setting: String,
        /// Why it is refused.
        reason: String,
    },
    /// A bounded wait ran out of ticks.
    #[error("not idle after {ticks} ticks: {waiting_for}")]
    NotIdle {
        /// The bound that was exhausted.
        ticks: u64,
        /// What was still pending.
        waiting_for: String,
    },
    /// Bytes that do not decode as a record of the protocol.
    #[error("malformed record at {node}: {reason}")]
    Malformed {
        /// The node that was handed the bytes.
        node: NodeId,
        /// What is wrong with them.
        reason: String,
    },
}

impl From<SimError> for GroupError {
    fn from(err: SimError) -> Self {
        match err {
            SimError::Config { setting, reason } => GroupError::Config {
                setting: setting.to_owned(),
                reason,
            },
            SimError::NotIdle { max_ticks, pending } => GroupError::NotIdle {
                ticks: max_ticks,
                waiting_for: format!("{pending} events pending"),
            },
            other => GroupError::Config {
                setting: "simulation".into(),
                reason: other.to_string(),
            },
        }
    }
}

impl GroupError {
    /// Shorthand for a configuration error.
    pub fn config(setting: impl Into<String>, reason: impl Into<String>) -> Self {
        GroupError::Config {
            setting: setting.into(),
            reason: reason.into(),
        }
    }

    /// Shorthand for a refused operation.
    pub fn not_permitted(node: &NodeId, reason: impl Into<String>) -> Self {
        GroupError::NotPermitted {
            node: node.clone(),
            reason: reason.into(),
        }
    }

    /// True when every text it carries says something: a refusal whose
    /// reason is empty leaves its reader guessing which guard or setting
    /// said no. The explorer asks it of every refusal it is given.
    #[must_use]
    pub fn gives_reason(&self) -> bool {
        let said = |text: &str| !text.trim().is_empty();
        match self {
            GroupError::ReadBlocked { guard, reason, .. } => said(guard) && said(reason),
            GroupError::NotPermitted { reason, .. } | GroupError::Malformed { reason, .. } => {
                said(reason)
            }
            GroupError::Config { setting, reason } => said(setting) && said(reason),
            GroupError::NoLeader(why) => said(why),
            GroupError::NotIdle { waiting_for, .. } => said(waiting_for),
            GroupError::UnsupportedAck { .. }
            | GroupError::UnsupportedRead { .. }
            | GroupError::UnknownNode(_)
            | GroupError::NodeDown(_)
            | GroupError::AlreadyRunning(_) => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_gives_its_reason_only_when_every_text_says_something() {
        let blocked = |guard: &'static str, reason: &str| GroupError::ReadBlocked {
            level: ReadLevel::Linearizable,
            node: NodeId::new("node-1"),
            guard,
            reason: reason.into(),
        };
        assert!(blocked("lease fenced", "not the current leader").gives_reason());
        assert!(!blocked("", "not the current leader").gives_reason());
        assert!(!blocked("lease fenced", " ").gives_reason());
        assert!(!GroupError::NoLeader(String::new()).gives_reason());
        assert!(!GroupError::config("", "why").gives_reason());
        assert!(GroupError::UnknownNode(NodeId::new("node-9")).gives_reason());
    }
}
