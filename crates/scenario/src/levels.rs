//! Levels by name or by protocol-neutral alias, resolved per protocol by
//! its registration's [`Levels`]. For the built-in protocols:
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

use replication::{AckLevel, Levels, Protocol, ReadLevel};

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

    /// The level `protocol` uses (its [`Levels`]).
    pub fn resolve(self, protocol: Protocol) -> AckLevel {
        let levels: Levels = protocol.registration().levels();
        match self {
            AckRef::Named(level) => level,
            AckRef::Weak => levels.weak_write,
            AckRef::Strong => levels.strong_write,
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

    /// The level `protocol` uses (its [`Levels`]).
    pub fn resolve(self, protocol: Protocol) -> ReadLevel {
        match self {
            ReadRef::Named(level) => level,
            ReadRef::Weak => ReadLevel::Local,
            ReadRef::Authority => protocol.registration().levels().authority_read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve_to_each_protocols_own_level() {
        let r = crate::test_registry();
        let p = |name: &str| r.named(name).expect("registered");
        assert_eq!(AckRef::Strong.resolve(p("isr")), AckLevel::AllIsr);
        assert_eq!(AckRef::Strong.resolve(p("wal")), AckLevel::Quorum);
        assert_eq!(AckRef::Weak.resolve(p("raft")), AckLevel::Quorum);
        assert_eq!(
            ReadRef::Authority.resolve(p("raft")),
            ReadLevel::Linearizable
        );
        assert_eq!(ReadRef::Authority.resolve(p("async")), ReadLevel::Leader);
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
