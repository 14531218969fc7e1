//! What a person sees at one state of a debugging session: a lane per
//! node (its state line in the protocol's own words, up / down / isolated
//! / slow, its armed timers), the messages held on each link, every
//! enabled action with its replay code, the client history, what the last
//! step did (the run's log line and the trace events it caused), and the
//! properties — the invariants as of now, and what the checker would say
//! if the run ended here.

use replication::{ArmedTimer, HeldMessage, NodeState};

use crate::property::{Check, Property};
use crate::run::Runner;
use crate::schedule::{NodeRef, Step};

use super::Session;

/// One node's lane.
#[derive(Debug, Clone)]
pub struct Lane {
    /// Its state line (role, term / epoch, log, HW / commit, ISR, …).
    pub state: NodeState,
    /// Crashed by the run.
    pub crashed: bool,
    /// Isolated by the run.
    pub isolated: bool,
    /// Made slow by the run.
    pub slow: bool,
    /// Its armed timers.
    pub timers: Vec<ArmedTimer>,
    /// Its log, an entry a line (`3 t2 k0=v1`), where the protocol shows it.
    pub log: Vec<String>,
}

/// One enabled action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// Its replay code (`d0`, `e1`, `c2`, …): what the page sends back.
    pub code: String,
    /// What it does, in words.
    pub label: String,
    /// `message`, `timer`, `time`, `client`, `repair`, `fault`, or
    /// `recorded` (the recorded run's next step).
    pub kind: &'static str,
}

/// Everything shown at one state.
#[derive(Debug, Clone)]
pub struct View {
    /// The state's id in its session.
    pub state: usize,
    /// `protocol.ack.read.setting`.
    pub config: String,
    /// The tick.
    pub tick: u64,
    /// The timers are held with the network (Raft's): none fires by
    /// itself, however long ago it came due; one fires when chosen.
    pub timers_held: bool,
    /// The node names, by position.
    pub names: Vec<String>,
    /// A lane per node.
    pub lanes: Vec<Lane>,
    /// The messages the network holds, in send order.
    pub held: Vec<HeldMessage>,
    /// Every action enabled here.
    pub actions: Vec<Action>,
    /// The client history, one line per operation.
    pub history: Vec<String>,
    /// The run's log, a line per step of the path.
    pub log: Vec<String>,
    /// The trace events the last step caused.
    pub events: Vec<String>,
    /// The invariants as of this state.
    pub invariants: Check,
    /// What the checker would say if the run ended here.
    pub judged: Vec<(Property, Check)>,
    /// The first state on this path that broke a property, with the
    /// property and why.
    pub first_broken: Option<(usize, Property, String)>,
    /// The path's replay id (`cargo xtask explore --replay ID`).
    pub replay: String,
    /// The path, step by step.
    pub path: Vec<String>,
}

pub(super) fn build(
    session: &Session<'_>,
    at: usize,
    path: &[Step],
    run: &Runner<'_>,
    parent_events: usize,
    enabled: &[(String, Step)],
) -> View {
    let group = run.group();
    let names: Vec<String> = group.node_ids().iter().map(ToString::to_string).collect();
    let (crashed, isolated, _) = run.fault_state();
    let steer = group.steerable();
    let timers = steer.map(|s| s.timers()).unwrap_or_default();
    let held = steer.map(|s| s.held()).unwrap_or_default();
    let lanes = group
        .node_states()
        .into_iter()
        .enumerate()
        .map(|(i, state)| Lane {
            state,
            crashed: crashed.contains(&i),
            isolated: isolated.contains(&i),
            slow: run.slowed().contains(&i),
            timers: timers.iter().filter(|t| t.node == i).cloned().collect(),
            log: steer.map(|s| s.node_log(i)).unwrap_or_default(),
        })
        .collect();
    let actions = enabled
        .iter()
        .map(|(code, step)| {
            if code == super::NEXT_RECORDED {
                return Action {
                    code: code.clone(),
                    label: format!("next recorded step: {step}"),
                    kind: "recorded",
                };
            }
            let (kind, label) = describe(session.config(), step, &names, &held, &timers);
            Action {
                code: code.clone(),
                label,
                kind,
            }
        })
        .collect();
    let events = group
        .trace()
        .since(parent_events)
        .map(|e| e.to_string())
        .collect();
    let states = session.states();
    let mut first_broken = None;
    let mut cur = Some(at);
    while let Some(id) = cur {
        let state = &states[id];
        if let Some((p, why)) = state.broken() {
            first_broken = Some((id, p, why.to_string()));
        }
        cur = state.parent;
    }
    let here = &states[at];
    View {
        state: at,
        config: session.config().key(),
        tick: group.now(),
        timers_held: steer.is_some_and(|s| s.chooses_timers()),
        names: names.clone(),
        lanes,
        held,
        actions,
        history: run
            .history()
            .iter()
            .map(crate::HistoryOp::describe)
            .collect(),
        log: run.log().to_vec(),
        events,
        invariants: here.invariants.clone(),
        judged: Property::ALL
            .into_iter()
            .zip(here.judged.iter().cloned())
            .collect(),
        first_broken,
        replay: session
            .replay_id(at)
            .map(|id| id.to_string())
            .unwrap_or_default(),
        path: path.iter().map(ToString::to_string).collect(),
    }
}

/// What `step` does, in words, at a state whose network holds `held` and
/// whose nodes have `timers` armed: its kind and its label.
pub(super) fn describe(
    config: &crate::Configuration,
    step: &Step,
    names: &[String],
    held: &[HeldMessage],
    timers: &[ArmedTimer],
) -> (&'static str, String) {
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("#{i}"));
    let node = |n: &NodeRef| match n {
        NodeRef::At(i) => name(usize::from(*i)),
        other => other.to_string(),
    };
    let message = |h: Option<&HeldMessage>| {
        h.map_or_else(String::new, |h| {
            format!("{} {} → {}", h.label, name(h.from), name(h.to))
        })
    };
    match step {
        Step::Deliver(n) => (
            "message",
            format!(
                "deliver {}",
                message(held.iter().filter(|h| h.deliverable).nth(usize::from(*n)))
            ),
        ),
        Step::Drop(n) => (
            "fault",
            format!("drop {}", message(held.get(usize::from(*n)))),
        ),
        Step::Duplicate(n) => (
            "fault",
            format!("duplicate {}", message(held.get(usize::from(*n)))),
        ),
        Step::Fire(n) => {
            let label = match n {
                NodeRef::At(i) => timers
                    .iter()
                    .find(|t| t.node == usize::from(*i))
                    .map_or("timer", |t| t.label),
                _ => "timer",
            };
            ("timer", format!("fire {}'s {label} timer", node(n)))
        }
        Step::Wait(_) => ("time", "let a tick pass".to_string()),
        Step::Write { client, value, .. } => (
            "client",
            format!("client {client} writes k0=v{value} ({})", config.ack),
        ),
        Step::Read { client, .. } => (
            "client",
            format!("client {client} reads k0 ({})", config.read),
        ),
        Step::WriteAt {
            client,
            value,
            level,
        } => (
            "client",
            format!("client {client} writes k0=v{value} ({level}, not judged)"),
        ),
        Step::ReadAt { client, level } => (
            "client",
            format!("client {client} reads k0 ({level}, not judged)"),
        ),
        Step::ReadVia { client, node: at } => (
            "client",
            format!("client {client} reads k0 at {}", node(at)),
        ),
        Step::Restart(n) => ("repair", format!("restart {}", node(n))),
        Step::Heal(n) => ("repair", format!("heal {}", node(n))),
        Step::Slow(n, false) => ("repair", format!("{} no longer slow", node(n))),
        Step::Crash(n, false) => ("fault", format!("crash {}", node(n))),
        Step::Crash(n, true) => ("fault", format!("power loss at {}", node(n))),
        Step::Isolate(n) => ("fault", format!("isolate {}", node(n))),
        Step::Slow(n, true) => ("fault", format!("make {} slow", node(n))),
        Step::Failover(None) => ("fault", "fail over (the protocol's choice)".into()),
        Step::Failover(Some(n)) => ("fault", format!("fail over to {}", node(n))),
        Step::Cut(a, b) => ("fault", format!("cut {} → {}", node(a), node(b))),
        Step::Uncut(a, b) => ("repair", format!("restore {} → {}", node(a), node(b))),
        other => ("fault", other.to_string()),
    }
}
