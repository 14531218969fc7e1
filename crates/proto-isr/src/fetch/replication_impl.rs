//! The shared driver surface for a fetch-mode partition. Every fault goes
//! through the harness ([`replication::Cluster`]), then the hook says what
//! it means in Kafka: a crashed leader is replaced by the controller at
//! once (its session ends); a crashed follower stays in the ISR until the
//! leader's lag timeout removes it; a power loss drops the unflushed tail;
//! a restarted or healed broker is told the leader by the controller. An
//! isolated leader is replaced at the next tick (the controller misses its
//! heartbeat) and, until it hears of it, still believes it leads.

use replication::{
    AckLevel, ClientOp, Completion, GroupError, GroupSummary, NodeId, NodeState, OpId,
    ReplicationGroup, ScenarioGroup, StateRecorder, Tick, Trace, WriteResult,
};
use sim_core::record;

use super::controller::ElectionKind;
use super::group::FetchGroup;
use super::inspect;
use super::invariants;
use super::replica::{Phase, REQUEST_TIMEOUT};

impl ReplicationGroup for FetchGroup {
    fn protocol(&self) -> &'static str {
        "isr"
    }

    fn node_ids(&self) -> Vec<NodeId> {
        self.cluster.ids().to_vec()
    }

    /// The controller's leader while it is alive and knows it leads.
    fn leader(&self) -> Option<NodeId> {
        self.serving_leader()
            .ok()
            .map(|l| self.cluster.id(l).clone())
    }

    /// Starts a write or a read; no time passes. Writes take `Leader`
    /// (`acks=1`, done at once) or `AllIsr` (`acks=all`: refused before
    /// append below min.insync; done once HW covers it with the ISR at
    /// min.insync; unknown when the leader loses its epoch or the ack
    /// timeout passes). A named node is a producer with stale metadata: any
    /// broker that believes it leads takes the write. Reads are answered at
    /// once (`Linearizable` blocked while HW is below the leader's epoch
    /// start).
    fn submit(&mut self, op: ClientOp) -> Result<OpId, GroupError> {
        self.submit_op(op)
    }

    fn take_completions(&mut self) -> Vec<Completion> {
        self.cluster.take_completions()
    }

    fn take_completion(&mut self, id: OpId) -> Option<Completion> {
        self.cluster.take_completion(id)
    }

    fn tick(&mut self) {
        self.step_tick();
        if self.cluster.states_due() {
            self.note_states();
        }
    }

    /// No timer of its own keeps it busy: healed, it goes idle.
    fn quiesces(&self) -> bool {
        true
    }

    /// Ticks until no write is pending and every live follower the
    /// controller can reach has fetched the leader's whole log and HW.
    fn run_until_idle(&mut self, max_ticks: u64) -> Result<u64, GroupError> {
        let mut ticks = 0;
        while let Some(waiting) = self.busy() {
            if ticks >= max_ticks {
                return Err(GroupError::NotIdle {
                    ticks: max_ticks,
                    waiting_for: waiting,
                });
            }
            self.tick();
            ticks += 1;
        }
        Ok(ticks)
    }

    /// The harness's crash; the replica loses its role (and with
    /// `lose_unfsynced` its unflushed records). A crashed leader is
    /// replaced at once by the first live ISR member (ELR member, or with
    /// unclean election any live replica), or the partition goes offline.
    fn crash(&mut self, node: &NodeId, lose_unfsynced: bool) -> Result<(), GroupError> {
        let i = self.cluster.crash(node, lose_unfsynced)?;
        let before = self.replicas[i].log_end();
        self.replicas[i].crash(lose_unfsynced);
        if lose_unfsynced {
            let now = self.now();
            record!(
                self.cluster.trace,
                now,
                "isr_power_loss",
                node = node,
                log_end = self.replicas[i].log_end(),
                lost = before - self.replicas[i].log_end()
            );
        }
        if self.controller.leader() == Some(i) {
            self.replace_leader("leader crashed");
        }
        Ok(())
    }

    /// The harness's restart: the broker registers with a new broker epoch
    /// (from the `elr` rung on, the leader's view of it from before the
    /// restart cannot bring it back into the ISR, KIP-903); after an
    /// unclean shutdown the `elr` rung's controller removes it from ISR
    /// and ELR. The controller then
    /// tells it the leader (it may be elected itself when the partition was
    /// offline).
    fn restart(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.restart(node)?;
        let broker_epoch = self.controller.register(i);
        self.replicas[i].register(broker_epoch);
        if self.replicas[i].unclean() && self.controller.unclean_restart(i) {
            let now = self.now();
            record!(self.cluster.trace, now, "isr_unclean_restart", node = node);
        }
        if self.controller.leader().is_none() || self.controller.leader() == Some(i) {
            self.replace_leader("broker restarted");
        }
        self.notify_all();
        Ok(())
    }

    fn isolate(&mut self, node: &NodeId) -> Result<(), GroupError> {
        self.cluster.isolate(node).map(drop)
    }

    /// The harness's heal; the controller tells the broker what it missed.
    fn heal(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.index(node)?;
        let n = self.replicas.len();
        let was_cut =
            (0..n).any(|j| j != i && !(self.cluster.linked(i, j) && self.cluster.linked(j, i)));
        self.cluster.heal(node)?;
        self.notify(i);
        if was_cut {
            for j in 0..n {
                self.reconnected(i, j);
            }
        }
        Ok(())
    }

    /// Restores the link; a follower at either end asks its leader again.
    fn restore_link(&mut self, from: &NodeId, to: &NodeId) -> Result<(), GroupError> {
        let (a, b) = self.cluster.restore_link(from, to)?;
        self.reconnected(a, b);
        Ok(())
    }

    /// Marks `node`'s fetcher stalled (it sends no fetches and falls out of
    /// the ISR by lag) or clears it; marking the leader is refused (a
    /// slow follower elected leader can be cleared).
    fn set_slow(&mut self, node: &NodeId, slow: bool) -> Result<(), GroupError> {
        let i = self.cluster.index(node)?;
        if slow && self.controller.leader() == Some(i) {
            return Err(GroupError::not_permitted(
                node,
                "the leader cannot be marked slow",
            ));
        }
        self.cluster.set_slow(i, slow);
        self.replicas[i].stalled = slow;
        Ok(())
    }

    fn set_network(&mut self, net: replication::NetConfig) -> Result<(), GroupError> {
        self.cluster.set_network(net)
    }

    fn steerable(&self) -> Option<&dyn replication::Steer> {
        Some(self)
    }

    fn steerable_mut(&mut self) -> Option<&mut dyn replication::Steer> {
        Some(self)
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.cluster.check_network()?;
        invariants::check(
            self.cluster.ids(),
            &self.replicas,
            &self.controller,
            self.violation.as_ref(),
        )
    }

    /// The controller's leader is up and reachable and at least
    /// min.insync replicas (the leader among them) are up, not slow and
    /// linked to it both ways, on a network whose fetch round fits in the
    /// lag timeout.
    fn tolerates_current_faults(&self) -> bool {
        let Some(l) = self.controller.leader() else {
            return false;
        };
        if !self.cluster.is_alive(l) || self.cluster.is_isolated(l) || self.round_outpaces_lag() {
            return false;
        }
        let healthy = (0..self.replicas.len())
            .filter(|&i| {
                self.cluster.is_alive(i)
                    && !self.cluster.is_slow(i)
                    && (i == l || (self.cluster.linked(i, l) && self.cluster.linked(l, i)))
            })
            .count();
        healthy >= self.config.min_insync_replicas
    }

    /// Two lag timeouts (the dead leave, the healed rejoin), a request
    /// timeout for a lost fetch, and a few fetch rounds.
    fn recovery_bound(&self) -> u64 {
        2 * self.config.replica_lag_timeout + 2 * REQUEST_TIMEOUT + 12
    }

    /// A fetch round (request and answer, stalls included) at or above
    /// `replica.lag.time.max.ms`: a follower may leave the ISR before it
    /// can catch up, so whether a write is acknowledged is chance.
    fn outside_assumptions(&self) -> Option<String> {
        self.lag_outpaced()
    }

    /// An offline partition nobody can be elected for.
    fn unavailable(&self) -> Option<String> {
        if self.serving_leader().is_ok() {
            return None;
        }
        let up = self.up();
        let unclean = self.unclean();
        if self.controller.candidate(&up, &unclean, None).is_some()
            || self.controller.leader().is_some_and(|l| up[l])
        {
            return None;
        }
        let alive = |set: &[usize]| set.iter().any(|&i| self.cluster.is_alive(i));
        if alive(self.controller.isr()) || (self.rung.elr() && alive(self.controller.elr())) {
            return None;
        }
        (!self.config.unclean_leader_election).then(|| {
            format!(
                "offline partition: no live replica of the ISR {:?}{} to elect, and unclean.leader.election.enable is off",
                self.names(self.controller.isr()),
                if self.rung.elr() {
                    format!(" or the ELR {:?}", self.names(self.controller.elr()))
                } else {
                    String::new()
                }
            )
        })
    }

    /// Flushes `node`'s log (`isr_fsync`).
    fn fsync(&mut self, node: &NodeId) -> Result<(), GroupError> {
        let i = self.cluster.alive_index(node)?;
        let end = self.replicas[i].fsync();
        let now = self.now();
        record!(
            self.cluster.trace,
            now,
            "isr_fsync",
            node = node,
            durable_offset = end
        );
        Ok(())
    }

    /// A controller election: `Some(n)` elects `n` if it is up and in the
    /// ISR (or, with ELR, eligible), or with unclean election on when no
    /// ISR member is up; `None` elects the first live ISR member other than
    /// the leader (then ELR, then unclean).
    fn failover(&mut self, candidate: Option<&NodeId>) -> Result<NodeId, GroupError> {
        let up = self.up();
        let unclean = self.unclean();
        let old = self.controller.leader();
        let (r, kind) = match candidate {
            Some(n) => {
                let r = self.cluster.alive_index(n)?;
                if !up[r] {
                    return Err(GroupError::not_permitted(n, "isolated: the controller cannot reach it"));
                }
                if old == Some(r) {
                    return Err(GroupError::not_permitted(n, "already the leader"));
                }
                let kind = self.controller.eligible(r, &unclean).or_else(|| {
                    let nobody = self.controller.candidate(&up, &unclean, old).is_none_or(|(_, k)| k == ElectionKind::Unclean);
                    (self.config.unclean_leader_election && nobody).then_some(ElectionKind::Unclean)
                });
                let Some(kind) = kind else {
                    return Err(GroupError::not_permitted(
                        n,
                        format!(
                            "not in the ISR {:?}; a clean election picks only ISR members (unclean.leader.election.enable is {})",
                            self.names(self.controller.isr()),
                            if self.config.unclean_leader_election { "on, but an ISR member is up" } else { "off" }
                        ),
                    ));
                };
                (r, kind)
            }
            None => self.controller.candidate(&up, &unclean, old).ok_or_else(|| {
                GroupError::NoLeader(format!(
                    "no live ISR member other than the leader to elect (ISR {:?}; unclean.leader.election.enable is {})",
                    self.names(self.controller.isr()),
                    if self.config.unclean_leader_election { "on, but no replica is up" } else { "off" }
                ))
            })?,
        };
        self.elect(r, kind, "failover");
        Ok(self.cluster.id(r).clone())
    }

    fn trace(&self) -> &Trace {
        &self.cluster.trace
    }

    fn trace_mut(&mut self) -> &mut Trace {
        &mut self.cluster.trace
    }

    fn now(&self) -> Tick {
        self.cluster.now()
    }

    fn summary(&self) -> GroupSummary {
        inspect::summary(&self.cluster, &self.replicas, self.leader())
    }

    fn node_states(&self) -> Vec<NodeState> {
        inspect::lines(&self.cluster, &self.replicas, &self.controller)
    }

    fn recorder(&self) -> Option<&dyn StateRecorder> {
        Some(&self.cluster)
    }

    fn recorder_mut(&mut self) -> Option<&mut dyn StateRecorder> {
        Some(&mut self.cluster)
    }
}

impl FetchGroup {
    /// What keeps the partition from being idle, if anything.
    fn busy(&self) -> Option<String> {
        if !self.pending.is_empty() {
            return Some(format!("{} acks=all writes pending", self.pending.len()));
        }
        let Ok(l) = self.serving_leader() else {
            return None;
        };
        let leader = &self.replicas[l];
        let held = self.rung.elr() && self.controller.isr().len() < self.config.min_insync_replicas;
        if leader.high_watermark() < leader.log_end() && !held {
            return Some(format!(
                "the leader's HW {} is below its log end {}",
                leader.high_watermark(),
                leader.log_end()
            ));
        }
        (0..self.replicas.len())
            .filter(|&i| {
                i != l
                    && self.cluster.is_alive(i)
                    && !self.cluster.is_isolated(i)
                    && !self.cluster.is_slow(i)
                    && self.cluster.linked(l, i)
                    && self.cluster.linked(i, l)
            })
            .find(|&i| {
                let r = &self.replicas[i];
                !matches!(r.phase(), Phase::Fetching { .. })
                    || r.log_end() != leader.log_end()
                    || r.high_watermark() != leader.high_watermark()
            })
            .map(|i| {
                format!(
                    "{} has not fetched the leader's log and HW",
                    self.cluster.id(i)
                )
            })
    }

    /// True when a fetch round reaches `replica.lag.time.max.ms` (see
    /// [`FetchGroup::lag_outpaced`]); builds no text.
    fn round_outpaces_lag(&self) -> bool {
        2 * self.cluster.net_config().worst_delay() >= self.config.replica_lag_timeout
    }

    /// Why a follower may not stay in the ISR on this network: a fetch
    /// round (request and answer, stalls included) at or above
    /// `replica.lag.time.max.ms`.
    fn lag_outpaced(&self) -> Option<String> {
        self.round_outpaces_lag().then(|| {
            format!(
                "replica.lag.time.max.ms ({} ticks) is not above the network's fetch round ({} ticks): a follower may leave the ISR before it can catch up",
                self.config.replica_lag_timeout,
                2 * self.cluster.net_config().worst_delay()
            )
        })
    }
}

/// What a scenario reads from the group in Kafka's words.
impl ScenarioGroup for FetchGroup {
    fn catch_up(&self, node: &NodeId) -> Option<String> {
        self.replica(node).map(|r| inspect::role(r).to_owned())
    }

    fn fenced(&self) -> u64 {
        self.trace().count("isr_request_refused") as u64
            + self.trace().count("isr_answer_fenced") as u64
    }

    fn gate(&self, node: &NodeId, _level: AckLevel, _write: &WriteResult) -> String {
        let Ok(i) = self.cluster.index(node) else {
            return String::new();
        };
        let mut text = if self.controller.isr().contains(&i) {
            "still in ISR".to_owned()
        } else {
            "removed from ISR".to_owned()
        };
        if self.controller.isr().len() < self.config.min_insync_replicas {
            text.push_str(&format!(
                "; ISR {} below min.insync {}",
                self.controller.isr().len(),
                self.config.min_insync_replicas
            ));
        }
        text
    }
}
