//! Swarm walks: each random walk first draws a *swarm* — links it never
//! delivers on, nodes whose timers it never fires, and how often it
//! delivers rather than acts — and then draws its steps among those the
//! swarm leaves. A uniform walk spreads its steps over every link and
//! node, so a bug that needs some messages held for the whole path (a
//! partition made of held messages) is met rarely; a swarm holds them by
//! construction in a share of the walks.
//!
//! Mirrors swarm testing (Groce et al., ISSTA 2012), as the explorer's
//! sweep does with its schedule profiles. The swarm only narrows the
//! steps drawn: a path it finds is a path of the checker's alphabet,
//! replayed and shortened without it.

use replication::{HeldMessage, Rng};

use crate::schedule::{NodeRef, Step};

/// What one walk may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Swarm {
    /// Directed links never delivered on, bit `from * 8 + to`.
    blocked: u64,
    /// Nodes whose timers may fire, bit `node`.
    timers: u8,
    /// In percent: how often a step is a delivery when both a delivery
    /// and another step are left.
    deliver: u64,
}

impl Swarm {
    /// Every step allowed, drawn uniformly: a plain walk.
    pub(crate) const NONE: Swarm = Swarm {
        blocked: 0,
        timers: u8::MAX,
        deliver: 0,
    };

    /// A swarm for a group of `nodes` nodes, drawn from `rng`: each
    /// directed link blocked with probability one in three, each node's
    /// timers allowed with probability two in three, deliveries chosen
    /// 25, 50 or 75% of the time.
    pub(crate) fn draw(rng: &mut Rng, nodes: usize) -> Swarm {
        let nodes = nodes.min(8);
        let mut blocked = 0u64;
        for from in 0..nodes {
            for to in (0..nodes).filter(|&to| to != from) {
                if rng.next_u64().is_multiple_of(3) {
                    blocked |= 1 << (from * 8 + to);
                }
            }
        }
        let mut timers = 0u8;
        for node in 0..nodes {
            if !rng.next_u64().is_multiple_of(3) {
                timers |= 1 << node;
            }
        }
        let deliver = [25, 50, 75][usize::try_from(rng.next_u64() % 3).unwrap_or(0)];
        Swarm {
            blocked,
            timers,
            deliver,
        }
    }

    /// Keeps the `steps` this walk's swarm allows, with `held` the
    /// messages held (a delivery names the n-th deliverable one).
    pub(crate) fn retain(&self, steps: &mut Vec<Step>, held: &[HeldMessage]) {
        let deliverable: Vec<&HeldMessage> = held.iter().filter(|m| m.deliverable).collect();
        steps.retain(|step| self.allows(step, &deliverable));
    }

    /// True when the swarm lets this walk take `step`, with `deliverable`
    /// the messages that may be delivered next, in order.
    fn allows(&self, step: &Step, deliverable: &[&HeldMessage]) -> bool {
        match step {
            Step::Deliver(i) => deliverable.get(usize::from(*i)).is_none_or(|m| {
                m.from >= 8 || m.to >= 8 || self.blocked & (1 << (m.from * 8 + m.to)) == 0
            }),
            Step::Fire(NodeRef::At(n)) => *n >= 8 || self.timers & (1 << n) != 0,
            _ => true,
        }
    }

    /// Draws one of `steps` (0 when there is none): a delivery
    /// `deliver`% of the time when there are both kinds, uniformly
    /// within the kind; uniformly among all otherwise (a plain walk's
    /// draw).
    pub(crate) fn pick(&self, steps: &[Step], rng: &mut Rng) -> usize {
        let draw =
            |rng: &mut Rng, n: usize| usize::try_from(rng.next_u64() % n as u64).unwrap_or(0);
        let delivery = |s: &Step| matches!(s, Step::Deliver(_));
        let deliveries = steps.iter().filter(|s| delivery(s)).count();
        if steps.is_empty() {
            return 0;
        }
        if self.deliver == 0 || deliveries == 0 || deliveries == steps.len() {
            return draw(rng, steps.len());
        }
        let (kind, among) = if rng.next_u64() % 100 < self.deliver {
            (true, deliveries)
        } else {
            (false, steps.len() - deliveries)
        };
        let k = draw(rng, among);
        steps
            .iter()
            .enumerate()
            .filter(|(_, s)| delivery(s) == kind)
            .nth(k)
            .map_or(0, |(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(from: usize, to: usize) -> HeldMessage {
        HeldMessage {
            id: 0,
            from,
            to,
            label: "append_entries",
            deliverable: true,
        }
    }

    #[test]
    fn no_swarm_draws_as_a_plain_walk_does() {
        // The plain walk's draw, unchanged: the n-th step, n = next % len.
        let steps = vec![Step::Deliver(0), Step::Deliver(1), Step::Wait(1)];
        let (mut a, mut b) = (Rng::new(3), Rng::new(3));
        for _ in 0..50 {
            let plain = usize::try_from(a.next_u64() % steps.len() as u64).unwrap_or(9);
            assert_eq!(Swarm::NONE.pick(&steps, &mut b), plain);
        }
        let (a, b) = (held(0, 1), held(1, 0));
        let messages = [&a, &b];
        for step in [
            Step::Deliver(0),
            Step::Deliver(1),
            Step::Fire(NodeRef::At(2)),
        ] {
            assert!(Swarm::NONE.allows(&step, &messages));
        }
    }

    #[test]
    fn a_swarm_never_delivers_on_a_blocked_link_nor_fires_a_left_out_timer() {
        let swarm = Swarm {
            blocked: 1 << 1, // 0 -> 1
            timers: 0b101,   // nodes 0 and 2
            deliver: 50,
        };
        let (a, b) = (held(0, 1), held(1, 0));
        let messages = [&a, &b];
        assert!(!swarm.allows(&Step::Deliver(0), &messages));
        assert!(swarm.allows(&Step::Deliver(1), &messages));
        assert!(swarm.allows(&Step::Fire(NodeRef::At(0)), &messages));
        assert!(!swarm.allows(&Step::Fire(NodeRef::At(1)), &messages));
        assert!(swarm.allows(
            &Step::Write {
                client: 0,
                key: 0,
                value: 1
            },
            &messages
        ));
    }

    #[test]
    fn a_swarm_names_deliveries_as_the_walk_does_among_the_deliverable_messages() {
        let swarm = Swarm {
            blocked: 1 << 1, // 0 -> 1
            timers: u8::MAX,
            deliver: 50,
        };
        // A stream link's later message is not deliverable yet: delivery 0
        // is the message 1 -> 0, delivery 1 the message 0 -> 1.
        let mut waiting = held(0, 1);
        waiting.deliverable = false;
        let held = [waiting, held(1, 0), held(0, 1)];
        let mut steps = vec![Step::Deliver(0), Step::Deliver(1), Step::Wait(1)];
        swarm.retain(&mut steps, &held);
        assert_eq!(steps, vec![Step::Deliver(0), Step::Wait(1)]);
    }

    #[test]
    fn a_swarm_delivers_as_often_as_it_drew() {
        let steps = vec![Step::Deliver(0), Step::Wait(1), Step::Fire(NodeRef::At(0))];
        for deliver in [25, 75] {
            let swarm = Swarm {
                blocked: 0,
                timers: u8::MAX,
                deliver,
            };
            let mut rng = Rng::new(11);
            let delivered = (0..4000)
                .filter(|_| swarm.pick(&steps, &mut rng) == 0)
                .count();
            let share = delivered * 100 / 4000;
            assert!(
                share.abs_diff(deliver as usize) <= 3,
                "{deliver}%: {share}%"
            );
        }
    }

    #[test]
    fn swarms_differ_from_walk_to_walk() {
        let mut rng = Rng::new(0);
        let drawn: Vec<Swarm> = (0..20).map(|_| Swarm::draw(&mut rng, 3)).collect();
        assert!(drawn.iter().any(|s| s.blocked != 0));
        assert!(drawn.iter().any(|s| s.timers != 0b111));
        assert!(drawn.windows(2).any(|w| w[0] != w[1]));
        // Only the group's own links and nodes.
        let links: u64 = [1, 2, 8, 10, 16, 17].iter().map(|b| 1u64 << b).sum();
        assert!(
            drawn
                .iter()
                .all(|s| s.blocked & !links == 0 && s.timers & !0b111 == 0)
        );
    }
}
