//! PostgreSQL's `synchronous_standby_names` and `synchronous_commit`: which
//! standbys must confirm a `QUORUM` commit, and how far.
//!
//! `synchronous_standby_names` takes three forms: `FIRST n (s1, s2, …)` —
//! the first `n` *connected* standbys in list (priority) order are the
//! synchronous ones; `ANY n (s1, s2, …)` — any `n` of the listed standbys;
//! and a plain list `s1, s2, …`, which PostgreSQL reads as `FIRST 1 (…)`.
//! [`SyncQuorum::Every`] is this crate's original setting, every listed
//! standby, kept for [`WalConfig::with_synchronous_standbys`](crate::WalConfig::with_synchronous_standbys).

use std::fmt;
use std::str::FromStr;

use replication::GroupError;
use sim_core::NodeId;

/// The setting named in parse errors.
const NAMES: &str = "synchronous_standby_names";
/// The setting named in `synchronous_commit` parse errors.
const COMMIT: &str = "synchronous_commit";

/// How many of the listed synchronous standbys must confirm a `QUORUM`
/// commit, and which ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncQuorum {
    /// Every listed standby must confirm — `FIRST len(list)`, except that a
    /// confirmation a standby has already reported still counts after it
    /// disconnects. The meaning of
    /// [`with_synchronous_standbys`](crate::WalConfig::with_synchronous_standbys)
    /// and of a bare `synchronous_standbys` list.
    #[default]
    Every,
    /// `FIRST n (…)`: the first `n` connected standbys in list order are
    /// synchronous and every one of them must confirm; with fewer than `n`
    /// connected the commit waits.
    First(usize),
    /// `ANY n (…)`: any `n` connected listed standbys must confirm.
    Any(usize),
}

impl SyncQuorum {
    /// How many confirmations a commit needs with `listed` standbys named.
    #[must_use]
    pub fn needed(self, listed: usize) -> usize {
        match self {
            SyncQuorum::Every => listed,
            SyncQuorum::First(n) | SyncQuorum::Any(n) => n,
        }
    }
}

/// PostgreSQL's `synchronous_commit` for a `QUORUM` write: how far each
/// synchronous standby must have got before the commit is acknowledged
/// (the primary's own flush is always required; `off` and `local` are this
/// crate's `NONE` (unsupported) and `LEADER` ack levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SynchronousCommit {
    /// `remote_write`: the standby has received the record (written to its
    /// WAL, not flushed): a power loss on that standby can lose it.
    RemoteWrite,
    /// `on`: the standby has flushed the record (the default).
    #[default]
    On,
    /// `remote_apply`: the standby has replayed the record, so a read on it
    /// sees the write.
    RemoteApply,
}

impl SynchronousCommit {
    /// The PostgreSQL spelling: `remote_write`, `on`, `remote_apply`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SynchronousCommit::RemoteWrite => "remote_write",
            SynchronousCommit::On => "on",
            SynchronousCommit::RemoteApply => "remote_apply",
        }
    }

    /// The standby position a confirmation reports: `written`, `flushed`
    /// or `applied`.
    #[must_use]
    pub fn position(self) -> &'static str {
        match self {
            SynchronousCommit::RemoteWrite => "written",
            SynchronousCommit::On => "flushed",
            SynchronousCommit::RemoteApply => "applied",
        }
    }
}

impl fmt::Display for SynchronousCommit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SynchronousCommit {
    type Err = GroupError;

    /// Parses `remote_write`, `on` or `remote_apply` (case-insensitive);
    /// anything else is a [`GroupError::Config`] naming `synchronous_commit`.
    fn from_str(text: &str) -> Result<Self, GroupError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "remote_write" => Ok(SynchronousCommit::RemoteWrite),
            "on" => Ok(SynchronousCommit::On),
            "remote_apply" => Ok(SynchronousCommit::RemoteApply),
            "local" | "off" => Err(GroupError::config(
                COMMIT,
                format!(
                    "{text:?} does not wait for a standby: use the LEADER ack level \
                     (local) — off is not offered"
                ),
            )),
            _ => Err(GroupError::config(
                COMMIT,
                format!("{text:?} is not one of remote_write, on, remote_apply"),
            )),
        }
    }
}

/// A parsed `synchronous_standby_names`: the rule and the listed standbys
/// in priority order.
///
/// ```
/// use proto_wal::{NodeId, SyncQuorum, SynchronousStandbyNames};
/// let any: SynchronousStandbyNames = "ANY 1 (standby-1, standby-2)".parse()?;
/// assert_eq!(any.quorum, SyncQuorum::Any(1));
/// assert_eq!(any.names, [NodeId::new("standby-1"), NodeId::new("standby-2")]);
/// assert_eq!(any.to_string(), "ANY 1 (standby-1, standby-2)");
/// let plain: SynchronousStandbyNames = "standby-2, standby-1".parse()?;
/// assert_eq!(plain.quorum, SyncQuorum::First(1));
/// let bad = "ANY 0 (standby-1)".parse::<SynchronousStandbyNames>();
/// assert!(bad.unwrap_err().to_string().contains("synchronous_standby_names"));
/// # Ok::<(), proto_wal::GroupError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SynchronousStandbyNames {
    /// `FIRST n`, `ANY n`, or every listed standby.
    pub quorum: SyncQuorum,
    /// The listed standbys, in priority order.
    pub names: Vec<NodeId>,
}

impl fmt::Display for SynchronousStandbyNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = self
            .names
            .iter()
            .map(NodeId::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        match self.quorum {
            _ if self.names.is_empty() => Ok(()),
            SyncQuorum::Every => write!(f, "FIRST {} ({list})", self.names.len()),
            SyncQuorum::First(n) => write!(f, "FIRST {n} ({list})"),
            SyncQuorum::Any(n) => write!(f, "ANY {n} ({list})"),
        }
    }
}

impl FromStr for SynchronousStandbyNames {
    type Err = GroupError;

    /// Parses PostgreSQL's text form: `FIRST n (a, b)`, `ANY n (a, b)`,
    /// `n (a, b)` (= `FIRST n`), `a, b` (= `FIRST 1`), or empty (no
    /// synchronous standby). Keywords are case-insensitive; a name may be
    /// double-quoted. Bad input is a [`GroupError::Config`] naming
    /// `synchronous_standby_names`; whether the names are standbys of a
    /// group is checked by [`WalConfig::validate`](crate::WalConfig::validate).
    fn from_str(text: &str) -> Result<Self, GroupError> {
        let bad = |why: String| GroupError::config(NAMES, format!("{text:?}: {why}"));
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Ok(SynchronousStandbyNames::default());
        }
        let Some(open) = trimmed.find('(') else {
            let names = parse_list(trimmed).map_err(bad)?;
            return Ok(SynchronousStandbyNames {
                quorum: SyncQuorum::First(1),
                names,
            });
        };
        let Some(inner) = trimmed[open + 1..].strip_suffix(')') else {
            return Err(bad("the standby list must end with ')'".into()));
        };
        let head: Vec<&str> = trimmed[..open].split_whitespace().collect();
        let (method, count) = match head.as_slice() {
            [method, count] => (Some(*method), *count),
            [count] => (None, *count),
            _ => return Err(bad("expected FIRST n (…), ANY n (…) or n (…)".into())),
        };
        let n: usize = count
            .parse()
            .map_err(|_| bad(format!("{count:?} is not a number of standbys")))?;
        if n == 0 {
            return Err(bad(
                "the number of synchronous standbys must be at least 1".into()
            ));
        }
        let quorum = match method.map(str::to_ascii_uppercase).as_deref() {
            None | Some("FIRST") => SyncQuorum::First(n),
            Some("ANY") => SyncQuorum::Any(n),
            Some(_) => {
                return Err(bad(format!(
                    "{:?} is neither FIRST nor ANY",
                    method.unwrap_or_default()
                )));
            }
        };
        let names = parse_list(inner).map_err(bad)?;
        Ok(SynchronousStandbyNames { quorum, names })
    }
}

/// `a, "b", c` → the names; an empty name, a nested parenthesis or the `*`
/// wildcard is an error.
fn parse_list(list: &str) -> Result<Vec<NodeId>, String> {
    list.split(',')
        .map(|name| {
            let name = name.trim();
            let name = name
                .strip_prefix('"')
                .and_then(|n| n.strip_suffix('"'))
                .unwrap_or(name);
            if name.is_empty() {
                Err("an empty standby name".to_owned())
            } else if name == "*" {
                Err("the * wildcard is not supported: name each standby".to_owned())
            } else if name.contains(['(', ')', '"']) || name.contains(char::is_whitespace) {
                Err(format!("{name:?} is not a standby name"))
            } else {
                Ok(NodeId::new(name))
            }
        })
        .collect()
}
