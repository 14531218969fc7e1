//! Replay ids: a stable name for one (shrunk) schedule.

use std::fmt;
use std::str::FromStr;

/// Names a schedule: the configuration key, the seed (which also draws
/// the schedule's profile: its clients, keys, length, faults and network)
/// and the indices of the steps kept by shrinking, e.g.
/// `async.leader.leader.default-s17-4.9.12` (steps 4, 9 and 12 of the
/// schedule of seed 17). `all` keeps every step; `none` keeps no step (the
/// end phase alone). A planted bug's configuration has a fifth part, the
/// bug (`raft.quorum.linearizable.default.raft_commit_old_term-s3-all`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayId {
    /// The configuration key (`protocol.ack.read.setting`).
    pub config: String,
    /// The schedule's seed.
    pub seed: u64,
    /// Indices of the kept steps; `None` = every step.
    pub kept: Option<Vec<usize>>,
    /// A model checker's path (`…-m-w0.d0.t`): these steps on a steered
    /// run of the model checker's seed (`model::SEED`), instead of a seed's
    /// schedule.
    pub path: Option<Vec<crate::Step>>,
    /// The knob values a checker's path runs with, `(setting, value)`
    /// (`…-m:max_append_entries=1-w0.e2`; empty: the protocol's defaults).
    /// A sweep's id has none: its seed draws them.
    pub knobs: Vec<(String, String)>,
}

impl ReplayId {
    /// The id of the checker's `path` on `config` (with the knob values
    /// its checked runs are built with).
    pub fn of_path(config: &crate::Configuration, path: Vec<crate::Step>) -> ReplayId {
        ReplayId {
            config: config.key(),
            seed: crate::step_codes::MODEL_SEED,
            kept: None,
            path: Some(path),
            knobs: config
                .knob_values
                .iter()
                .map(|(k, v)| ((*k).to_string(), v.clone()))
                .collect(),
        }
    }
}

/// A knob's name or value as an id spells it: lowercase letters, digits,
/// `_` and `.` (no `-`, `=` or `,`, which separate the id's parts).
fn knob_word(w: &str) -> bool {
    !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.')
}

/// `name=value` as a replay id spells a knob value
/// (`max_append_entries=1`), or an error saying what it must be.
pub fn parse_knob(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if knob_word(k) && knob_word(v) => Ok((k.to_string(), v.to_string())),
        _ => Err(format!(
            "`{text}` is not a knob value NAME=VALUE (lowercase letters, digits, `_` and `.`), e.g. max_append_entries=1"
        )),
    }
}

impl fmt::Display for ReplayId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            let codes: Vec<String> = path.iter().filter_map(crate::step_codes::encode).collect();
            let codes = if codes.is_empty() {
                "none".to_string()
            } else {
                codes.join(".")
            };
            let knobs: Vec<String> = self.knobs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let knobs = if knobs.is_empty() {
                String::new()
            } else {
                format!(":{}", knobs.join(","))
            };
            return write!(f, "{}-m{knobs}-{codes}", self.config);
        }
        write!(f, "{}-s{}-", self.config, self.seed)?;
        match &self.kept {
            None => f.write_str("all"),
            Some(kept) if kept.is_empty() => f.write_str("none"),
            Some(kept) => {
                let parts: Vec<String> = kept.iter().map(usize::to_string).collect();
                f.write_str(&parts.join("."))
            }
        }
    }
}

impl FromStr for ReplayId {
    type Err = String;

    fn from_str(text: &str) -> Result<ReplayId, String> {
        let bad = || {
            format!(
                "replay id `{text}` is not of the form protocol.ack.read.setting-s<seed>-<steps> (steps: all, none, or indices such as 4.9.12)"
            )
        };
        let mut parts = text.rsplitn(3, '-');
        let steps = parts.next().ok_or_else(bad)?;
        let seed = parts.next().ok_or_else(bad)?;
        let config = parts.next().ok_or_else(bad)?;
        let word = |w: &str| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        };
        if !matches!(config.split('.').count(), 4 | 5) || !config.split('.').all(word) {
            return Err(bad());
        }
        if let Some(knobs) = seed.strip_prefix("m") {
            let knobs = match knobs {
                "" => Vec::new(),
                list => list
                    .strip_prefix(':')
                    .ok_or_else(bad)?
                    .split(',')
                    .map(|kv| parse_knob(kv).map_err(|e| format!("replay id `{text}`: {e}")))
                    .collect::<Result<Vec<_>, String>>()?,
            };
            let path = match steps {
                "none" => Vec::new(),
                list => list
                    .split('.')
                    .map(|code| {
                        crate::step_codes::decode(code).ok_or_else(|| {
                            format!("replay id `{text}`: `{code}` is not a model checker step")
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?,
            };
            return Ok(ReplayId {
                config: config.to_string(),
                seed: crate::step_codes::MODEL_SEED,
                kept: None,
                path: Some(path),
                knobs,
            });
        }
        let seed = seed
            .strip_prefix('s')
            .and_then(|s| s.parse().ok())
            .ok_or_else(bad)?;
        let kept = match steps {
            "all" => None,
            "none" => Some(Vec::new()),
            list => Some(
                list.split('.')
                    .map(|s| s.parse().map_err(|_| bad()))
                    .collect::<Result<Vec<usize>, String>>()?,
            ),
        };
        if let Some(kept) = &kept
            && kept.windows(2).any(|w| w[0] >= w[1])
        {
            return Err(format!(
                "replay id `{text}`: the kept steps must be increasing indices"
            ));
        }
        Ok(ReplayId {
            config: config.to_string(),
            seed,
            kept,
            path: None,
            knobs: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_ids_round_trip_and_bad_ones_are_refused() {
        for text in [
            "async.leader.leader.default-s17-4.9.12",
            "isr.all_isr.linearizable.min_insync_3-s0-all",
            "raft.quorum.leader.default-s123456-none",
            "raft.quorum.linearizable.default.raft_commit_old_term-s3-1.2",
            "raft.quorum.linearizable.default-m-w0.d0",
            "raft.quorum.linearizable.default-m:max_append_entries=1-w0.e2",
            "isr.all_isr.linearizable.default-m:lag_timeout=3,x=y-none",
        ] {
            let id: ReplayId = text.parse().expect("parses");
            assert_eq!(id.to_string(), text);
        }
        for bad in [
            "",
            "x-s1-1",
            "a.b.c.d-c3-s1-1",
            "a.b.c.d-sx-1",
            "a.b.c.d-s1-1.x",
            "a.b.c.d-s1-4.2",
            "a.b.c.d-s1-3.3",
            "a.b.c.d.e.f-s1-all",
            "a.b.c.d-m:-w0",
            "a.b.c.d-m:k-w0",
            "a.b.c.d-m:k=-w0",
            "a.b.c.d-m:K=1-w0",
            "a.b.c.d-mk=1-w0",
            "a.b.c.d-m:k=1,,j=2-w0",
        ] {
            assert!(bad.parse::<ReplayId>().is_err(), "{bad}");
        }
    }
}
