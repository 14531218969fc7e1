//! Replay ids: a stable name for one (shrunk) schedule.

use std::fmt;
use std::str::FromStr;

/// Names a schedule: the configuration key, the number of clients, the
/// seed and the indices of the steps kept by shrinking, e.g.
/// `async.leader.leader.default-c3-s17-4.9.12` (steps 4, 9 and 12 of the
/// schedule of seed 17). `all` keeps every step; `none` keeps no step (the
/// end phase alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayId {
    /// The configuration key (`protocol.ack.read.setting`).
    pub config: String,
    /// Clients the schedule was generated for.
    pub clients: u8,
    /// The schedule's seed.
    pub seed: u64,
    /// Indices of the kept steps; `None` = every step.
    pub kept: Option<Vec<usize>>,
}

impl fmt::Display for ReplayId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-c{}-s{}-", self.config, self.clients, self.seed)?;
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
                "replay id `{text}` is not of the form protocol.ack.read.setting-c<clients>-s<seed>-<steps>"
            )
        };
        let mut parts = text.rsplitn(4, '-');
        let steps = parts.next().ok_or_else(bad)?;
        let seed = parts.next().ok_or_else(bad)?;
        let clients = parts.next().ok_or_else(bad)?;
        let config = parts.next().ok_or_else(bad)?;
        if config.split('.').count() != 4 {
            return Err(bad());
        }
        let seed = seed
            .strip_prefix('s')
            .and_then(|s| s.parse().ok())
            .ok_or_else(bad)?;
        let clients = clients
            .strip_prefix('c')
            .and_then(|s| s.parse().ok())
            .filter(|c| *c > 0)
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
        Ok(ReplayId {
            config: config.to_string(),
            clients,
            seed,
            kept,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_ids_round_trip_and_bad_ones_are_refused() {
        for text in [
            "async.leader.leader.default-c3-s17-4.9.12",
            "isr.all_isr.linearizable.min_insync_3-c5-s0-all",
            "raft.quorum.leader.default-c3-s123456-none",
        ] {
            let id: ReplayId = text.parse().expect("parses");
            assert_eq!(id.to_string(), text);
        }
        for bad in [
            "",
            "x-c3-s1-1",
            "a.b.c.d-c0-s1-1",
            "a.b.c.d-c3-sx-1",
            "a.b.c.d-c3-s1-1.x",
        ] {
            assert!(bad.parse::<ReplayId>().is_err(), "{bad}");
        }
    }
}
