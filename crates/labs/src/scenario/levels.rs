//! Levels by name or by protocol-neutral alias, resolved per protocol.
//!
//! | alias | async | wal | isr | raft |
//! |---|---|---|---|---|
//! | write `weak` | `LEADER` | `LEADER` | `LEADER` | `QUORUM` |
//! | write `strong` | `LEADER` | `QUORUM` | `ALL_ISR` | `QUORUM` |
//! | read `weak` | `LOCAL` | `LOCAL` | `LOCAL` | `LOCAL` |
//! | read `authority` | `LEADER` | `LEADER` | `LINEARIZABLE` | `LINEARIZABLE` |
//!
//! `weak` is the weakest level that still has an acknowledgement boundary
//! (async's `NONE` has none, so `weak` is `LEADER` there); `strong` the
//! strongest write the protocol offers; `authority` the strongest read it
//! offers. A level named outright (`QUORUM`) is passed as is, so a protocol
//! without it answers *unsupported*.

use replication::{AckLevel, ReadLevel};

/// A write level as written: a name or an alias.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckRef {
    /// A level by name (`LEADER`, `QUORUM`, `ALL_ISR`, `NONE`).
    Named(AckLevel),
    /// The protocol's weakest acknowledged write.
    Weak,
    /// The protocol's strongest write.
    Strong,
}

/// A read level as written: a name or an alias.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadRef {
    /// A level by name (`LOCAL`, `LEADER`, `LINEARIZABLE`).
    Named(ReadLevel),
    /// `LOCAL`.
    Weak,
    /// The protocol's strongest read.
    Authority,
}

impl AckRef {
    /// Parses a name (any case) or `weak` / `strong`.
    pub fn parse(text: &str) -> Result<AckRef, String> {
        match text {
            "weak" => return Ok(AckRef::Weak),
            "strong" => return Ok(AckRef::Strong),
            _ => {}
        }
        AckLevel::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(text))
            .map(AckRef::Named)
            .ok_or_else(|| {
                format!("unknown write level `{text}` (known: NONE, LEADER, QUORUM, ALL_ISR, weak, strong)")
            })
    }

    /// The level `protocol` (a [`ReplicationGroup::protocol`] name) uses.
    ///
    /// [`ReplicationGroup::protocol`]: replication::ReplicationGroup::protocol
    pub fn resolve(self, protocol: &str) -> Result<AckLevel, String> {
        let alias = match self {
            AckRef::Named(level) => return Ok(level),
            AckRef::Weak => "weak",
            AckRef::Strong => "strong",
        };
        match (self, protocol) {
            (AckRef::Weak, "async" | "wal" | "isr") => Ok(AckLevel::Leader),
            (AckRef::Weak, "raft") => Ok(AckLevel::Quorum),
            (AckRef::Strong, "async") => Ok(AckLevel::Leader),
            (AckRef::Strong, "wal" | "raft") => Ok(AckLevel::Quorum),
            (AckRef::Strong, "isr") => Ok(AckLevel::AllIsr),
            _ => Err(format!(
                "write level `{alias}` has no meaning for {protocol}"
            )),
        }
    }
}

impl ReadRef {
    /// Parses a name (any case) or `weak` / `authority`.
    pub fn parse(text: &str) -> Result<ReadRef, String> {
        match text {
            "weak" => return Ok(ReadRef::Weak),
            "authority" => return Ok(ReadRef::Authority),
            _ => {}
        }
        ReadLevel::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(text))
            .map(ReadRef::Named)
            .ok_or_else(|| {
                format!("unknown read level `{text}` (known: LOCAL, LEADER, LINEARIZABLE, weak, authority)")
            })
    }

    /// The level `protocol` uses.
    pub fn resolve(self, protocol: &str) -> Result<ReadLevel, String> {
        match (self, protocol) {
            (ReadRef::Named(level), _) => Ok(level),
            (ReadRef::Weak, _) => Ok(ReadLevel::Local),
            (ReadRef::Authority, "async" | "wal") => Ok(ReadLevel::Leader),
            (ReadRef::Authority, "isr" | "raft") => Ok(ReadLevel::Linearizable),
            (ReadRef::Authority, _) => Err(format!(
                "read level `authority` has no meaning for {protocol}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve_to_each_protocols_own_level() {
        assert_eq!(AckRef::Strong.resolve("isr"), Ok(AckLevel::AllIsr));
        assert_eq!(AckRef::Strong.resolve("wal"), Ok(AckLevel::Quorum));
        assert_eq!(AckRef::Weak.resolve("raft"), Ok(AckLevel::Quorum));
        assert_eq!(
            ReadRef::Authority.resolve("raft"),
            Ok(ReadLevel::Linearizable)
        );
        assert_eq!(ReadRef::Authority.resolve("async"), Ok(ReadLevel::Leader));
    }

    #[test]
    fn names_parse_in_any_case_and_unknown_names_list_the_known_ones() {
        assert_eq!(
            AckRef::parse("all_isr"),
            Ok(AckRef::Named(AckLevel::AllIsr))
        );
        let err = ReadRef::parse("strong").expect_err("no strong read");
        assert!(err.contains("authority"), "{err}");
    }
}
