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
//! without it answers *unsupported*. A protocol may also name its levels
//! itself ([`Registration::ack_name`](replication::Registration::ack_name):
//! chain replication's `TAIL`); such a name is resolved on that protocol,
//! and is an error on one that does not use it.

use replication::{AckLevel, Levels, Protocol, ReadLevel, Registry};

/// A write level as written: a name or an alias.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AckRef {
    /// A level by name (`LEADER`, `QUORUM`, `ALL_ISR`, `NONE`).
    Named(AckLevel),
    /// A protocol's own name for one of its levels (`TAIL`).
    Own(String),
    /// The protocol's weakest acknowledged write.
    Weak,
    /// The protocol's strongest write.
    Strong,
}

/// A read level as written: a name or an alias.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadRef {
    /// A level by name (`LOCAL`, `LEADER`, `LINEARIZABLE`).
    Named(ReadLevel),
    /// A protocol's own name for one of its levels (`TAIL`).
    Own(String),
    /// `LOCAL`.
    Weak,
    /// The protocol's strongest read.
    Authority,
}

impl AckRef {
    /// Parses a name (any case), `weak` / `strong`, or a protocol's own
    /// name (a word of capitals, digits and `_`, resolved per protocol).
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
            .or_else(|| own_name(text).map(AckRef::Own))
            .ok_or_else(|| {
                format!(
                    "unknown write level `{text}` (known: NONE, LEADER, QUORUM, ALL_ISR, weak, \
                     strong, or a protocol's own name in capitals)"
                )
            })
    }

    /// [`AckRef::parse`], a protocol's own name accepted only when a
    /// protocol of `registry` uses it (a typo stays a parse error).
    pub fn parse_in(text: &str, registry: &Registry) -> Result<AckRef, String> {
        let parsed = AckRef::parse(text)?;
        if let AckRef::Own(name) = &parsed {
            let known = own_names(registry, |r, out| {
                out.extend(AckLevel::ALL.into_iter().map(|l| r.ack_name(l)));
            });
            if !known.iter().any(|k| k.eq_ignore_ascii_case(name)) {
                return Err(format!(
                    "unknown write level `{text}` (known: NONE, LEADER, QUORUM, ALL_ISR, weak, \
                     strong{})",
                    extra(&known)
                ));
            }
        }
        Ok(parsed)
    }

    /// The level `protocol` uses (its [`Levels`], or the level it calls by
    /// this name); an error when it has no level of that name.
    pub fn resolve(&self, protocol: Protocol) -> Result<AckLevel, String> {
        let registration = protocol.registration();
        let levels: Levels = registration.levels();
        match self {
            AckRef::Named(level) => Ok(*level),
            AckRef::Weak => Ok(levels.weak_write),
            AckRef::Strong => Ok(levels.strong_write),
            AckRef::Own(name) => AckLevel::ALL
                .into_iter()
                .find(|l| registration.ack_name(*l).eq_ignore_ascii_case(name))
                .ok_or_else(|| format!("{protocol} has no write level called {name}")),
        }
    }
}

impl ReadRef {
    /// Parses a name (any case), `weak` / `authority`, or a protocol's
    /// own name (as [`AckRef::parse`]).
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
            .or_else(|| own_name(text).map(ReadRef::Own))
            .ok_or_else(|| {
                format!(
                    "unknown read level `{text}` (known: LOCAL, LEADER, LINEARIZABLE, weak, \
                     authority, or a protocol's own name in capitals)"
                )
            })
    }

    /// [`ReadRef::parse`], a protocol's own name accepted only when a
    /// protocol of `registry` uses it.
    pub fn parse_in(text: &str, registry: &Registry) -> Result<ReadRef, String> {
        let parsed = ReadRef::parse(text)?;
        if let ReadRef::Own(name) = &parsed {
            let known = own_names(registry, |r, out| {
                out.extend(ReadLevel::ALL.into_iter().map(|l| r.read_name(l)));
            });
            if !known.iter().any(|k| k.eq_ignore_ascii_case(name)) {
                return Err(format!(
                    "unknown read level `{text}` (known: LOCAL, LEADER, LINEARIZABLE, weak, \
                     authority{})",
                    extra(&known)
                ));
            }
        }
        Ok(parsed)
    }

    /// The level `protocol` uses (its [`Levels`], or the level it calls by
    /// this name); an error when it has no level of that name.
    pub fn resolve(&self, protocol: Protocol) -> Result<ReadLevel, String> {
        let registration = protocol.registration();
        match self {
            ReadRef::Named(level) => Ok(*level),
            ReadRef::Weak => Ok(ReadLevel::Local),
            ReadRef::Authority => Ok(registration.levels().authority_read),
            ReadRef::Own(name) => ReadLevel::ALL
                .into_iter()
                .find(|l| registration.read_name(*l).eq_ignore_ascii_case(name))
                .ok_or_else(|| format!("{protocol} has no read level called {name}")),
        }
    }
}

/// The level names of `registry`'s protocols that are not the shared
/// ones, in registry order, once each.
fn own_names(
    registry: &Registry,
    names: impl Fn(&dyn replication::Registration, &mut Vec<&'static str>),
) -> Vec<&'static str> {
    let mut out = Vec::new();
    for p in registry.protocols() {
        let mut all = Vec::new();
        names(p.registration(), &mut all);
        for n in all {
            let shared = AckLevel::ALL.iter().any(|l| l.name() == n)
                || ReadLevel::ALL.iter().any(|l| l.name() == n);
            if !shared && !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// `, or a protocol's own: TAIL, HEAD` when there are such names.
fn extra(known: &[&str]) -> String {
    if known.is_empty() {
        String::new()
    } else {
        format!(", or a protocol's own: {}", known.join(", "))
    }
}

/// `text` as a protocol's own level name: capitals, digits and `_`,
/// starting with a capital (`TAIL`); a typo in lower case stays an error
/// at parse time.
fn own_name(text: &str) -> Option<String> {
    let mut chars = text.chars();
    (chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
    .then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve_to_each_protocols_own_level() {
        let r = crate::test_registry();
        let p = |name: &str| r.named(name).expect("registered");
        assert_eq!(AckRef::Strong.resolve(p("isr")), Ok(AckLevel::AllIsr));
        assert_eq!(AckRef::Strong.resolve(p("wal")), Ok(AckLevel::Quorum));
        assert_eq!(AckRef::Weak.resolve(p("raft")), Ok(AckLevel::Quorum));
        assert_eq!(
            ReadRef::Authority.resolve(p("raft")),
            Ok(ReadLevel::Linearizable)
        );
        assert_eq!(
            ReadRef::Authority.resolve(p("async")),
            Ok(ReadLevel::Leader)
        );
    }

    #[test]
    fn a_protocols_own_name_parses_and_is_an_error_on_a_protocol_without_it() {
        let r = crate::test_registry();
        let tail = AckRef::parse("TAIL").expect("a protocol's own name");
        assert_eq!(tail, AckRef::Own("TAIL".into()));
        let err = tail
            .resolve(r.named("isr").expect("isr"))
            .expect_err("not isr's");
        assert_eq!(err, "isr has no write level called TAIL");
        assert!(ReadRef::parse("tail").is_err(), "lower case is a typo");
        assert!(ReadRef::parse("TAIL").is_ok());
        // In a file, only a name some registered protocol uses.
        let err = AckRef::parse_in("TAIL", &r).expect_err("no built-in protocol says TAIL");
        assert!(err.starts_with("unknown write level `TAIL`"), "{err}");
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
