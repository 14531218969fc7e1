//! Scenario `config` settings as a protocol receives them.

use crate::error::GroupError;
use sim_core::NodeId;

/// The largest group a `nodes=` setting builds ([`Settings::node_count`]).
pub const MAX_NODES: usize = 9;

/// What values a setting takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKind {
    /// A whole number.
    Number,
    /// `true` or `false`.
    Flag,
    /// Comma-separated node ids.
    Nodes,
    /// Any text (the protocol checks it).
    Text,
}

impl SettingKind {
    /// Checks `value`; the message names the setting.
    pub fn check(self, key: &str, value: &str) -> Result<(), String> {
        match self {
            SettingKind::Number if value.parse::<u64>().is_err() => {
                Err(format!("`{key}={value}`: not a whole number"))
            }
            SettingKind::Flag if value != "true" && value != "false" => {
                Err(format!("`{key}={value}`: not `true` or `false`"))
            }
            _ => Ok(()),
        }
    }
}

/// One setting a protocol accepts, documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingDoc {
    /// The key (`min_insync`).
    pub name: &'static str,
    /// Its values.
    pub kind: SettingKind,
    /// What it sets, in the real system's words
    /// (`` `min.insync.replicas` (default 2) ``).
    pub doc: &'static str,
}

/// `key=value` pairs in the order a `config` directive wrote them, plus the
/// seed. Getters answer [`GroupError::Config`] naming the setting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pairs: Vec<(String, String)>,
}

impl Settings {
    /// No setting: every protocol's defaults.
    pub fn new() -> Settings {
        Settings::default()
    }

    /// Settings from `(key, value)` pairs.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Settings {
        Settings {
            pairs: pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }

    /// Adds (or replaces) `key=value`.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        let (key, value) = (key.into(), value.into());
        match self.pairs.iter_mut().find(|(k, _)| *k == key) {
            Some(pair) => pair.1 = value,
            None => self.pairs.push((key, value)),
        }
    }

    /// These settings with `seed=seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Settings {
        self.set("seed", seed.to_string());
        self
    }

    /// Every pair, in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// True when no setting is given.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The raw value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `seed=`, if given.
    pub fn seed(&self) -> Result<Option<u64>, GroupError> {
        self.number("seed")
    }

    /// A whole-number setting.
    pub fn number(&self, key: &str) -> Result<Option<u64>, GroupError> {
        self.get(key)
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| GroupError::config(key, format!("`{v}` is not a whole number")))
            })
            .transpose()
    }

    /// A count (a whole number that fits a `usize`).
    pub fn count(&self, key: &str) -> Result<Option<usize>, GroupError> {
        self.number(key)?
            .map(|n| usize::try_from(n).map_err(|_| GroupError::config(key, "too large")))
            .transpose()
    }

    /// A group size (`nodes=`): a count from `min` to [`MAX_NODES`]; the
    /// error names the setting and the bounds.
    pub fn node_count(&self, key: &str, min: usize) -> Result<Option<usize>, GroupError> {
        match self.count(key) {
            Ok(Some(n)) if !(min..=MAX_NODES).contains(&n) => Err(GroupError::config(
                key,
                format!("`{key}={n}`: this protocol's group has {min} to {MAX_NODES} nodes"),
            )),
            Err(_) => Err(GroupError::config(
                key,
                format!(
                    "`{}` is not a node count ({min} to {MAX_NODES})",
                    self.get(key).unwrap_or_default()
                ),
            )),
            other => other,
        }
    }

    /// A `true` / `false` setting.
    pub fn flag(&self, key: &str) -> Result<Option<bool>, GroupError> {
        self.get(key)
            .map(|v| match v {
                "true" => Ok(true),
                "false" => Ok(false),
                other => Err(GroupError::config(
                    key,
                    format!("`{other}` is not `true` or `false`"),
                )),
            })
            .transpose()
    }

    /// A comma-separated list of node ids.
    pub fn nodes(&self, key: &str) -> Option<Vec<NodeId>> {
        self.get(key).map(|v| {
            v.split(',')
                .filter(|s| !s.is_empty())
                .map(NodeId::new)
                .collect()
        })
    }
}
