//! [`Rung`]: which historical truncation rule a fetch-mode replica follows
//! — one rung of the Kafka ladder each.

use std::fmt;

/// A rung of the Kafka ladder: the truncation (and fencing, and election)
/// rules of one era of Kafka's replication protocol. Each rung keeps every
/// rule of the rungs below it.
///
/// | rung | rule it adds | came from |
/// |---|---|---|
/// | `hw` | a replica that restarts or becomes a follower truncates to its own high watermark | Kafka before 0.11 |
/// | `kip101` | a leader-epoch cache (epoch → start offset) on every replica; a new follower asks the leader `OffsetsForLeaderEpoch` for the end of its last epoch and truncates there | KIP-101, KAFKA-1211 |
/// | `kip279` | the answer names the epoch it found, the follower truncates to the smaller of both ends of that epoch; a new leader records (its epoch, its log end) in its cache at once | KIP-279, KAFKA-6361 |
/// | `kip320` | fetches and epoch queries carry the current leader epoch; a leader answers `FENCED_LEADER_EPOCH` / `UNKNOWN_LEADER_EPOCH` to another epoch, a follower drops answers of another epoch (the truncation phase fenced too); HW advances only once every ISR member has fetched in the leader's epoch; rejoin only past the start of the leader's epoch | KIP-320, KAFKA-6880 |
/// | `elr` | Eligible Leader Replicas: a replica removed while the ISR is below `min.insync.replicas` joins the ELR; HW does not advance below min.insync; a replica that restarts after an unclean shutdown leaves ISR and ELR; the controller elects from ISR ∪ ELR; a restart registers a new broker epoch, and the controller refuses an ISR addition made under an older one (KIP-903, its prerequisite) | KIP-966, KIP-903 |
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Rung {
    /// Truncate to the high watermark (before KIP-101).
    Hw,
    /// The leader-epoch cache and `OffsetsForLeaderEpoch` (KIP-101).
    Kip101,
    /// Epoch-matching truncation after fast leader changes (KIP-279).
    Kip279,
    /// Fencing by the current leader epoch (KIP-320).
    Kip320,
    /// Eligible Leader Replicas (KIP-966).
    Elr,
}

impl Rung {
    /// Every rung, bottom first.
    pub const ALL: [Rung; 5] = [
        Rung::Hw,
        Rung::Kip101,
        Rung::Kip279,
        Rung::Kip320,
        Rung::Elr,
    ];

    /// `hw`, `kip101`, `kip279`, `kip320`, `elr`.
    pub fn name(self) -> &'static str {
        match self {
            Rung::Hw => "hw",
            Rung::Kip101 => "kip101",
            Rung::Kip279 => "kip279",
            Rung::Kip320 => "kip320",
            Rung::Elr => "elr",
        }
    }

    /// The rung called `name`.
    pub fn from_name(name: &str) -> Option<Rung> {
        Rung::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Truncation to the replica's own high watermark (only `hw`).
    pub(crate) fn truncates_to_hw(self) -> bool {
        self == Rung::Hw
    }

    /// Epoch answers name the epoch found; new leaders cache their epoch.
    pub(crate) fn matches_epochs(self) -> bool {
        self >= Rung::Kip279
    }

    /// Requests and answers fenced by the current leader epoch.
    pub(crate) fn fences(self) -> bool {
        self >= Rung::Kip320
    }

    /// Eligible Leader Replicas.
    pub(crate) fn elr(self) -> bool {
        self >= Rung::Elr
    }
}

impl fmt::Display for Rung {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_rules_accumulate_up_the_ladder() {
        for r in Rung::ALL {
            assert_eq!(Rung::from_name(r.name()), Some(r));
        }
        assert_eq!(Rung::from_name("kip999"), None);
        assert!(Rung::Hw.truncates_to_hw() && !Rung::Kip101.truncates_to_hw());
        assert!(!Rung::Kip101.matches_epochs() && Rung::Kip279.matches_epochs());
        assert!(Rung::Elr.matches_epochs() && Rung::Elr.fences() && Rung::Elr.elr());
        assert!(!Rung::Kip279.fences() && !Rung::Kip320.elr());
    }
}
