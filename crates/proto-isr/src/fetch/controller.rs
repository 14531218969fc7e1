//! [`PartitionController`]: the fetch mode's in-process controller as a
//! pure decision maker — leader, leader epoch, partition epoch, ISR and
//! (KIP-966) ELR. It accepts or refuses a leader's AlterPartition and
//! elects leaders; the group carries its decisions out.

use super::rung::Rung;

/// How a leader was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElectionKind {
    /// A live ISR member.
    Clean,
    /// A live Eligible Leader Replica (KIP-966): no ISR member was up.
    Eligible,
    /// Any live replica: `unclean.leader.election.enable` and nobody
    /// eligible.
    Unclean,
}

impl ElectionKind {
    /// `clean`, `eligible`, `unclean`.
    pub fn name(self) -> &'static str {
        match self {
            ElectionKind::Clean => "clean",
            ElectionKind::Eligible => "eligible",
            ElectionKind::Unclean => "unclean",
        }
    }
}

/// Why an AlterPartition was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlterRefusal {
    /// The sender is not the controller's leader.
    NotLeader,
    /// The sender's leader epoch is not the controller's.
    FencedLeaderEpoch,
    /// The sender's partition epoch is stale.
    StalePartitionEpoch,
    /// A replica it adds fetched under a broker epoch older than its
    /// current registration: it restarted since (KIP-903; Kafka answers
    /// `INELIGIBLE_REPLICA`). From the `elr` rung on.
    StaleBrokerEpoch,
}

/// The controller's view of the partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionController {
    rung: Rung,
    min_insync: usize,
    unclean_enabled: bool,
    leader: Option<usize>,
    leader_epoch: u64,
    partition_epoch: u64,
    isr: Vec<usize>,
    elr: Vec<usize>,
    /// Each broker's current registration (1 at the start).
    broker_epochs: Vec<u64>,
}

impl PartitionController {
    /// `n` replicas led by `leader` in epoch 1, all in the ISR.
    pub fn new(
        rung: Rung,
        min_insync: usize,
        unclean_enabled: bool,
        n: usize,
        leader: usize,
    ) -> Self {
        PartitionController {
            rung,
            min_insync,
            unclean_enabled,
            leader: Some(leader),
            leader_epoch: 1,
            partition_epoch: 1,
            isr: (0..n).collect(),
            elr: Vec::new(),
            broker_epochs: vec![1; n],
        }
    }

    /// The leader, or `None` while the partition is offline.
    pub fn leader(&self) -> Option<usize> {
        self.leader
    }

    /// The leader epoch.
    pub fn leader_epoch(&self) -> u64 {
        self.leader_epoch
    }

    /// The partition epoch (bumped by every ISR change).
    pub fn partition_epoch(&self) -> u64 {
        self.partition_epoch
    }

    /// The ISR, by position.
    pub fn isr(&self) -> &[usize] {
        &self.isr
    }

    /// The Eligible Leader Replicas (always empty below the `elr` rung).
    pub fn elr(&self) -> &[usize] {
        &self.elr
    }

    /// The broker epoch of `r`'s current registration.
    pub fn broker_epoch(&self, r: usize) -> u64 {
        self.broker_epochs[r]
    }

    /// The restarted broker `r` registers: a new broker epoch, returned.
    pub fn register(&mut self, r: usize) -> u64 {
        self.broker_epochs[r] += 1;
        self.broker_epochs[r]
    }

    /// `min.insync.replicas`.
    pub fn min_insync(&self) -> usize {
        self.min_insync
    }

    /// `unclean.leader.election.enable`.
    pub fn unclean_enabled(&self) -> bool {
        self.unclean_enabled
    }

    /// With ELR, `removed` members leaving an ISR now below min.insync
    /// become eligible (unless they lost power);
    /// members of `isr` leave the ELR, and an ISR back at min.insync
    /// empties it (HW advances again, past what the ELR members hold).
    fn move_to_elr(&mut self, removed: &[usize], unclean: &[bool]) {
        if !self.rung.elr() {
            return;
        }
        if self.isr.len() >= self.min_insync {
            self.elr.clear();
            return;
        }
        {
            for &r in removed {
                if !unclean[r] && !self.elr.contains(&r) {
                    self.elr.push(r);
                }
            }
            self.elr.sort_unstable();
        }
        let isr = self.isr.clone();
        self.elr.retain(|r| !isr.contains(r));
    }

    /// AlterPartition from `from` (leader epoch, partition epoch, the ISR
    /// it proposes with the broker epoch it last saw fetch from each
    /// replica): accepted from the current leader with current epochs;
    /// returns the new partition epoch. From the `elr` rung on (KIP-903),
    /// a replica added under a broker epoch that is not its current
    /// registration is refused: the leader's view of it predates a
    /// restart, and a broker that lost unflushed records would otherwise
    /// rejoin on the strength of records it no longer holds.
    pub fn alter_partition(
        &mut self,
        from: usize,
        leader_epoch: u64,
        partition_epoch: u64,
        proposed: &[usize],
        seen_broker_epochs: &[u64],
        unclean: &[bool],
    ) -> Result<u64, AlterRefusal> {
        if self.leader != Some(from) {
            return Err(AlterRefusal::NotLeader);
        }
        if leader_epoch != self.leader_epoch {
            return Err(AlterRefusal::FencedLeaderEpoch);
        }
        if partition_epoch != self.partition_epoch {
            return Err(AlterRefusal::StalePartitionEpoch);
        }
        let stale =
            |&r: &usize| !self.isr.contains(&r) && seen_broker_epochs[r] != self.broker_epochs[r];
        if self.rung.elr() && proposed.iter().any(stale) {
            return Err(AlterRefusal::StaleBrokerEpoch);
        }
        let removed: Vec<usize> = self
            .isr
            .iter()
            .copied()
            .filter(|r| !proposed.contains(r))
            .collect();
        self.isr = proposed.to_vec();
        self.move_to_elr(&removed, unclean);
        self.partition_epoch += 1;
        Ok(self.partition_epoch)
    }

    /// The replica an election would pick among those `up` (alive and
    /// reachable), other than `exclude`: the first live ISR member; with
    /// ELR, the first live eligible replica that did not lose power; with
    /// unclean election on, the first live replica.
    pub fn candidate(
        &self,
        up: &[bool],
        unclean: &[bool],
        exclude: Option<usize>,
    ) -> Option<(usize, ElectionKind)> {
        let ok = |r: usize| up[r] && Some(r) != exclude;
        if let Some(&r) = self.isr.iter().find(|&&r| ok(r)) {
            return Some((r, ElectionKind::Clean));
        }
        if let Some(&r) = self.elr.iter().find(|&&r| ok(r) && !unclean[r]) {
            return Some((r, ElectionKind::Eligible));
        }
        if self.unclean_enabled {
            return (0..up.len())
                .find(|&r| ok(r))
                .map(|r| (r, ElectionKind::Unclean));
        }
        None
    }

    /// Whether `r` may be elected as `kind` now.
    pub fn eligible(&self, r: usize, unclean: &[bool]) -> Option<ElectionKind> {
        if self.isr.contains(&r) {
            Some(ElectionKind::Clean)
        } else if self.elr.contains(&r) && !unclean[r] {
            Some(ElectionKind::Eligible)
        } else {
            None
        }
    }

    /// Elects `r` as `kind`: both epochs + 1; replicas not `up` leave the
    /// ISR (to the ELR when it falls below min.insync); an eligible or
    /// unclean leader starts a new ISR of itself.
    pub fn elect(&mut self, r: usize, kind: ElectionKind, up: &[bool], unclean: &[bool]) {
        self.leader = Some(r);
        self.leader_epoch += 1;
        self.partition_epoch += 1;
        match kind {
            ElectionKind::Clean => {
                let removed: Vec<usize> = self
                    .isr
                    .iter()
                    .copied()
                    .filter(|&m| m != r && !up[m])
                    .collect();
                self.isr.retain(|&m| m == r || up[m]);
                self.move_to_elr(&removed, unclean);
            }
            ElectionKind::Eligible => {
                self.isr = vec![r];
                self.elr.retain(|&m| m != r);
            }
            ElectionKind::Unclean => {
                self.isr = vec![r];
                self.elr.clear();
            }
        }
    }

    /// No replica can be elected: the partition goes offline, its ISR kept
    /// (Kafka keeps the last ISR so that its members can be elected when
    /// they return).
    pub fn go_offline(&mut self) {
        self.leader = None;
    }

    /// KIP-966: a broker that registers after an unclean shutdown leaves
    /// the ISR and the ELR. Returns true when that changed anything.
    pub fn unclean_restart(&mut self, r: usize) -> bool {
        if !self.rung.elr() || !(self.isr.contains(&r) || self.elr.contains(&r)) {
            return false;
        }
        self.isr.retain(|&m| m != r);
        self.elr.retain(|&m| m != r);
        self.partition_epoch += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elr_keeps_the_replicas_removed_below_min_insync_and_elects_from_them() {
        let none = [false; 3];
        let mut c = PartitionController::new(Rung::Elr, 2, false, 3, 0);
        c.alter_partition(0, 1, 1, &[0, 1], &[1; 3], &none).unwrap();
        assert_eq!(c.elr(), &[] as &[usize], "2 is still min.insync");
        c.alter_partition(0, 1, 2, &[0], &[1; 3], &none).unwrap();
        assert_eq!(c.elr(), &[1]);
        let up = [false, true, true];
        assert_eq!(
            c.candidate(&up, &none, Some(0)),
            Some((1, ElectionKind::Eligible))
        );
        // Below the elr rung the same shrink leaves nobody to elect.
        let mut k = PartitionController::new(Rung::Kip320, 2, false, 3, 0);
        k.alter_partition(0, 1, 1, &[0, 1], &[1; 3], &none).unwrap();
        k.alter_partition(0, 1, 2, &[0], &[1; 3], &none).unwrap();
        assert_eq!(k.candidate(&up, &none, Some(0)), None);
    }

    #[test]
    fn alter_partition_is_fenced_by_both_epochs() {
        let none = [false; 3];
        let mut c = PartitionController::new(Rung::Hw, 2, false, 3, 0);
        assert_eq!(
            c.alter_partition(1, 1, 1, &[1], &[1; 3], &none),
            Err(AlterRefusal::NotLeader)
        );
        assert_eq!(
            c.alter_partition(0, 2, 1, &[0], &[1; 3], &none),
            Err(AlterRefusal::FencedLeaderEpoch)
        );
        assert_eq!(
            c.alter_partition(0, 1, 0, &[0], &[1; 3], &none),
            Err(AlterRefusal::StalePartitionEpoch)
        );
        assert_eq!(c.isr(), &[0, 1, 2]);
    }

    #[test]
    fn from_the_elr_rung_a_replica_added_under_a_stale_broker_epoch_is_refused() {
        let none = [false; 3];
        for (rung, refused) in [(Rung::Kip320, false), (Rung::Elr, true)] {
            let mut c = PartitionController::new(rung, 2, false, 3, 0);
            c.alter_partition(0, 1, 1, &[0, 1], &[1; 3], &none).unwrap();
            assert_eq!(c.register(2), 2, "broker 2 restarted: a new registration");
            let add = c.alter_partition(0, 1, 2, &[0, 1, 2], &[1, 1, 1], &none);
            assert_eq!(
                add == Err(AlterRefusal::StaleBrokerEpoch),
                refused,
                "{rung:?}: {add:?}"
            );
            if refused {
                assert_eq!(c.isr(), &[0, 1], "a refusal changes nothing");
                assert_eq!(
                    c.alter_partition(0, 1, 2, &[0, 1, 2], &[1, 1, 2], &none),
                    Ok(3),
                    "a fetch from the new registration is accepted"
                );
            }
        }
    }
}
