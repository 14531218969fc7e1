//! The interpreter: runs a scenario's directives against one
//! [`ReplicationGroup`], through the trait (plus the few calls of
//! [`ScenarioGroup`]), and collects each directive's output lines and,
//! part by part, the answers of its labelled (`as=`) directives.

use std::collections::BTreeMap;
use std::io::Write as _;

use replication::{
    ClientOp, Completion, GroupError, NodeId, OpId, Protocol, ReadLevel, Registry,
    ReplicationGroup, ScenarioGroup,
};

use crate::config::Config;
use crate::directive::{Directive, OpSpec};
use crate::nodes::NodeRef;
use crate::parse::{Case, Scenario};
use crate::record::{PartRun, Record, Records};
use crate::show;

/// Ticks a fresh group may take to elect its first leader (a protocol that
/// starts with one takes none): every part starts with a leader.
pub const FIRST_ELECTION: u64 = 400;

/// What a `submit` left behind under its name.
enum Submitted {
    Started(OpId),
    Refused(String),
}

/// The group of the current part.
enum Slot {
    /// Before the first directive.
    Unbuilt,
    /// The part's group.
    Built(Box<dyn ScenarioGroup>),
    /// `config` failed: why.
    Failed(String),
    /// `config protocols=…` does not list this group's protocol: the part
    /// prints nothing.
    Skipped,
}

/// The interpreter's state for one protocol's run of a scenario.
struct Interpreter<'r> {
    protocol: Protocol,
    registry: &'r Registry,
    /// The next `config` runs on this protocol whatever its `protocols=`
    /// says (a matrix stand-in part, see [`run_part`]).
    stand_in: bool,
    /// Each part's group records its state lines.
    record_states: bool,
    /// The output lines are not kept ([`run_part`]): the answers of
    /// `write` / `read` are not formatted.
    quiet: bool,
    group: Slot,
    variant: Option<String>,
    last_leader: Option<NodeId>,
    old_leader: Option<NodeId>,
    ops: BTreeMap<String, Submitted>,
    names: BTreeMap<OpId, String>,
    done: BTreeMap<OpId, Completion>,
    trace_mark: usize,
    /// The answer of the directive being run, kept if it is labelled.
    record: Option<Record>,
    records: Records,
    parts: Vec<PartRun>,
}

/// Runs every case of `scenario` on fresh groups of `protocol` (one per
/// part), built by its registration; one `Vec` of output lines per case,
/// in case order (empty for a case of a part this protocol skips).
/// `registry` names the protocols a setting the group ignores belongs to.
pub fn run(scenario: &Scenario, protocol: Protocol, registry: &Registry) -> Vec<Vec<String>> {
    run_parts(scenario, protocol, registry).0
}

/// [`run`], plus one [`PartRun`] per part of the file this protocol ran (a
/// part starts at a `config`; cases before the first `config` are a part
/// of their own, with the default settings).
pub fn run_parts(
    scenario: &Scenario,
    protocol: Protocol,
    registry: &Registry,
) -> (Vec<Vec<String>>, Vec<PartRun>) {
    let mut it = Interpreter::new(protocol, registry, false, true);
    let outputs = scenario
        .cases
        .iter()
        .map(|case| one_line_each(it.step(case)))
        .collect();
    it.end_part();
    (outputs, it.parts)
}

/// Runs `cases` (a part: its `config` first) in place on a fresh group of
/// `protocol`, as [`run_parts`] runs that part of a file, and returns its
/// [`PartRun`] (`None` when the protocol skips it). With `stand_in`, the
/// first `config` runs on `protocol` whatever its `protocols=` says. With
/// `record_states`, the group records its state lines
/// ([`PartRun::states`]); without, it builds none (they are `None`) and
/// runs as it would with them — the same trace and records. The output
/// lines are not kept and nothing is cloned: this is what the matrix runs.
pub fn run_part(
    cases: &[Case],
    protocol: Protocol,
    registry: &Registry,
    stand_in: bool,
    record_states: bool,
) -> Option<PartRun> {
    let mut it = Interpreter::new(protocol, registry, stand_in, record_states);
    it.quiet = true;
    for case in cases {
        it.step(case);
    }
    it.end_part();
    it.parts.into_iter().next()
}

/// The cases of part `n` (1-based) of `scenario`: a part starts at a
/// `config` (cases before the first `config` are a part of their own).
pub fn part_cases(scenario: &Scenario, n: usize) -> Option<&[Case]> {
    let mut starts: Vec<usize> = scenario
        .cases
        .iter()
        .enumerate()
        .filter(|(i, c)| *i == 0 || matches!(c.directive, Directive::Config(_)))
        .map(|(i, _)| i)
        .collect();
    starts.dedup();
    let start = *starts.get(n.checked_sub(1)?)?;
    let end = starts.get(n).copied().unwrap_or(scenario.cases.len());
    Some(&scenario.cases[start..end])
}

/// The group of `protocol` at the end of `cases` (a part, its `config`
/// first), as [`run_part`] runs them — for a debugger to go on from —
/// or why there is none (the `config` failed, or names other protocols).
pub fn part_group(
    cases: &[Case],
    protocol: Protocol,
    registry: &Registry,
) -> Result<Box<dyn ScenarioGroup>, String> {
    let mut it = Interpreter::new(protocol, registry, false, false);
    it.quiet = true;
    for case in cases {
        it.step(case);
    }
    match std::mem::replace(&mut it.group, Slot::Unbuilt) {
        Slot::Built(group) => Ok(group),
        Slot::Failed(why) => Err(why),
        Slot::Skipped => Err(format!("the part does not run on {}", protocol.name())),
        Slot::Unbuilt => Err("the part builds no group".into()),
    }
}

/// Output lines as the file holds them: a line break inside a message
/// (which would end the block) is shown as `\n`.
fn one_line_each(lines: Vec<String>) -> Vec<String> {
    lines.into_iter().map(|l| l.replace('\n', "\\n")).collect()
}

fn ok_or_error(result: Result<(), GroupError>) -> Vec<String> {
    vec![match result {
        Ok(()) => "ok".to_owned(),
        Err(e) => show::error(&e),
    }]
}

/// A fresh group of `protocol` with `config`'s settings, recording its
/// state lines when `record_states`, with its first leader elected
/// (bounded by [`FIRST_ELECTION`]).
fn build(
    protocol: Protocol,
    config: &Config,
    record_states: bool,
) -> Result<Box<dyn ScenarioGroup>, GroupError> {
    let mut group = protocol.registration().build(&config.settings)?;
    if record_states {
        group.record_states();
    }
    let mut ticks = 0;
    while group.leader().is_none() {
        if ticks >= FIRST_ELECTION {
            return Err(GroupError::NotIdle {
                ticks,
                waiting_for: "a leader".into(),
            });
        }
        group.tick();
        ticks += 1;
    }
    Ok(group)
}

impl<'r> Interpreter<'r> {
    fn new(
        protocol: Protocol,
        registry: &'r Registry,
        stand_in: bool,
        record_states: bool,
    ) -> Self {
        Interpreter {
            protocol,
            registry,
            stand_in,
            record_states,
            quiet: false,
            group: Slot::Unbuilt,
            variant: None,
            last_leader: None,
            old_leader: None,
            ops: BTreeMap::new(),
            names: BTreeMap::new(),
            done: BTreeMap::new(),
            trace_mark: 0,
            record: None,
            records: Records::new(),
            parts: Vec::new(),
        }
    }

    /// Files the finished part's records and trace (nothing for a skipped
    /// part or before the first one). The trace is moved out: the part's
    /// group is replaced or dropped next.
    fn end_part(&mut self) {
        let records = std::mem::take(&mut self.records);
        let (trace, states) = match &mut self.group {
            Slot::Unbuilt | Slot::Skipped => return,
            Slot::Built(group) => {
                let mut trace = std::mem::take(group.trace_mut());
                // Kept to be read: its recording tables are freed.
                trace.shrink_to_fit();
                (Ok(trace), group.state_log().cloned())
            }
            Slot::Failed(why) => (Err(why.clone()), None),
        };
        self.parts.push(PartRun {
            variant: self.variant.take(),
            records,
            trace,
            states,
        });
    }

    fn configure(&mut self, config: &Config) -> Vec<String> {
        self.end_part();
        self.last_leader = None;
        self.old_leader = None;
        self.ops.clear();
        self.names.clear();
        self.done.clear();
        self.trace_mark = 0;
        self.variant.clone_from(&config.variant);
        let stand_in = std::mem::take(&mut self.stand_in);
        if !stand_in && !config.runs_on(self.protocol.name()) {
            return self.skip();
        }
        let (slot, line) = match build(self.protocol, config, self.record_states) {
            Ok(group) => {
                let ignored = self.registry.ignored_by(self.protocol, &config.settings);
                let line = if ignored.is_empty() {
                    "ok".to_owned()
                } else {
                    format!("ok; ignored: {}", ignored.join(", "))
                };
                (Slot::Built(group), line)
            }
            Err(e) => (Slot::Failed(e.to_string()), show::error(&e)),
        };
        self.group = slot;
        vec![line]
    }

    fn skip(&mut self) -> Vec<String> {
        self.group = Slot::Skipped;
        self.variant = None;
        Vec::new()
    }

    fn step(&mut self, case: &Case) -> Vec<String> {
        if let Directive::Config(config) = &case.directive {
            return self.configure(config);
        }
        if matches!(self.group, Slot::Unbuilt) {
            self.configure(&Config::default());
        }
        self.record = None;
        let out = match std::mem::replace(&mut self.group, Slot::Unbuilt) {
            Slot::Built(mut group) => {
                let out = self.act(group.as_mut(), &case.directive);
                group.note_states();
                if let Some(leader) = group.leader() {
                    self.last_leader = Some(leader);
                }
                self.group = Slot::Built(group);
                out
            }
            Slot::Failed(e) => {
                let line = format!("error: no group ({e})");
                self.group = Slot::Failed(e);
                vec![line]
            }
            Slot::Skipped => {
                self.group = Slot::Skipped;
                Vec::new()
            }
            Slot::Unbuilt => vec!["error: no group was built".to_owned()],
        };
        if let (Some(label), Some(record)) = (&case.label, self.record.take()) {
            self.records.insert(label.clone(), record);
        }
        out
    }

    fn node(&self, group: &dyn ReplicationGroup, node: &NodeRef) -> Result<NodeId, Vec<String>> {
        node.resolve(group, self.old_leader.as_ref())
            .map_err(|m| vec![format!("error: {m}")])
    }

    fn op(&self, group: &dyn ReplicationGroup, spec: &OpSpec) -> Result<ClientOp, Vec<String>> {
        self.op_with_value(group, spec, None)
    }

    /// [`Interpreter::op`], a write carrying `value` in place of its own
    /// when one is given (a read has none and ignores it).
    fn op_with_value(
        &self,
        group: &dyn ReplicationGroup,
        spec: &OpSpec,
        value: Option<bytes::Bytes>,
    ) -> Result<ClientOp, Vec<String>> {
        let protocol = self.protocol;
        let (op, node) = match spec {
            OpSpec::Write {
                key,
                value: own,
                level,
                node,
            } => (
                ClientOp::write(
                    key.clone(),
                    value.unwrap_or_else(|| own.clone()),
                    level
                        .resolve(protocol)
                        .map_err(|e| vec![format!("error: {e}")])?,
                ),
                node,
            ),
            OpSpec::Read { key, level, node } => (
                ClientOp::read(
                    key.clone(),
                    level
                        .resolve(protocol)
                        .map_err(|e| vec![format!("error: {e}")])?,
                ),
                node,
            ),
        };
        match node {
            Some(n) => Ok(op.at(&self.node(group, n)?)),
            None => Ok(op),
        }
    }

    /// `op`'s level in the protocol's words.
    fn level_name(&self, op: &ClientOp) -> &'static str {
        let registration = self.protocol.registration();
        match op {
            ClientOp::Write { level, .. } => registration.ack_name(*level),
            ClientOp::Read { level, .. } => registration.read_name(*level),
            _ => op.level_name(),
        }
    }

    fn act(&mut self, g: &mut dyn ScenarioGroup, directive: &Directive) -> Vec<String> {
        match self.try_act(g, directive) {
            Ok(lines) | Err(lines) => lines,
        }
    }

    fn try_act(
        &mut self,
        g: &mut dyn ScenarioGroup,
        directive: &Directive,
    ) -> Result<Vec<String>, Vec<String>> {
        Ok(match directive {
            Directive::Config(_) => {
                return Err(vec![
                    "error: `config` is run by the interpreter, not on a group".into(),
                ]);
            }
            Directive::Blocking(spec) => {
                let op = self.op(g, spec)?;
                let (line, record) = blocking(g, op, self.quiet, self.protocol.registration());
                self.record = Some(record);
                vec![line]
            }
            Directive::Repeat { op, times } => {
                let OpSpec::Write { value, .. } = op else {
                    return Err(vec!["error: only a write repeats".to_owned()]);
                };
                let mut last = String::new();
                // The i-th value is the value with i appended, built in one
                // buffer (no clone of the directive per write).
                let mut numbered = Vec::with_capacity(value.len() + 20);
                for i in 1..=*times {
                    numbered.clear();
                    numbered.extend_from_slice(value);
                    let _ = write!(numbered, "{i}");
                    let spec =
                        self.op_with_value(g, op, Some(bytes::Bytes::copy_from_slice(&numbered)))?;
                    let (line, record) =
                        blocking(g, spec, self.quiet, self.protocol.registration());
                    let acked =
                        matches!(&record, Record::Write { result: Ok(w), .. } if w.accepted);
                    self.record = Some(record);
                    if !acked {
                        return Ok(vec![format!("write {i} of {times}: {line}")]);
                    }
                    last = line;
                }
                vec![format!("{times} writes, the last {last}")]
            }
            Directive::Submit { op, name } => {
                let op = self.op(g, op)?;
                match g.submit(op) {
                    Ok(id) => {
                        let name = name.clone().unwrap_or_else(|| id.to_string());
                        self.names.insert(id, name.clone());
                        self.ops.insert(name.clone(), Submitted::Started(id));
                        vec![format!("{name} submitted as {id}")]
                    }
                    Err(e) => {
                        if let Some(name) = name {
                            self.ops
                                .insert(name.clone(), Submitted::Refused(e.to_string()));
                        }
                        vec![show::error(&e)]
                    }
                }
            }
            Directive::Await { op } => match self.ops.get(op) {
                None => vec![format!("error: {op} was not submitted")],
                Some(Submitted::Refused(why)) => vec![format!("error: {op} never started: {why}")],
                Some(Submitted::Started(id)) => {
                    let id = *id;
                    let completion = match self.done.get(&id) {
                        Some(done) => done.clone(),
                        None => g.await_completion(id).map_err(|e| vec![show::error(&e)])?,
                    };
                    let line = show::completion(op, &completion, self.level_name(&completion.op));
                    self.done.insert(id, completion);
                    vec![line]
                }
            },
            Directive::Completions => {
                let taken = g.take_completions();
                if taken.is_empty() {
                    return Ok(vec!["none".to_owned()]);
                }
                taken
                    .into_iter()
                    .map(|c| {
                        let name = self
                            .names
                            .get(&c.id)
                            .cloned()
                            .unwrap_or_else(|| c.id.to_string());
                        let line = show::completion(&name, &c, self.level_name(&c.op));
                        self.done.insert(c.id, c);
                        line
                    })
                    .collect()
            }
            Directive::Tick(n) => {
                for _ in 0..*n {
                    g.tick();
                }
                vec![format!("tick={}", g.now())]
            }
            Directive::RunUntilIdle(max) => vec![match g.run_until_idle(*max) {
                Ok(ticks) => format!("idle after {ticks} ticks"),
                Err(e) => show::error(&e),
            }],
            Directive::Isolate(n) => ok_or_error(g.isolate(&self.node(g, n)?)),
            Directive::Heal(n) => ok_or_error(g.heal(&self.node(g, n)?)),
            Directive::Cut(a, b) => ok_or_error(g.cut_link(&self.node(g, a)?, &self.node(g, b)?)),
            Directive::Restore(a, b) => {
                ok_or_error(g.restore_link(&self.node(g, a)?, &self.node(g, b)?))
            }
            Directive::Crash(n, power_loss) => ok_or_error(g.crash(&self.node(g, n)?, *power_loss)),
            Directive::Restart(n) => ok_or_error(g.restart(&self.node(g, n)?)),
            Directive::Fsync(n) => ok_or_error(g.fsync(&self.node(g, n)?)),
            Directive::Slow(n, slow) => ok_or_error(g.set_slow(&self.node(g, n)?, *slow)),
            Directive::Failover(candidate) => {
                let candidate = candidate.as_ref().map(|n| self.node(g, n)).transpose()?;
                let before = g.leader().or_else(|| self.last_leader.clone());
                let answer = g.failover(candidate.as_ref());
                self.record = Some(Record::Failover {
                    old: before.clone(),
                    new: answer.clone(),
                });
                match answer {
                    Ok(new) => {
                        self.old_leader = before;
                        vec![format!("leader={new}")]
                    }
                    Err(e) => vec![show::error(&e)],
                }
            }
            Directive::LeaseRead { key, node } => {
                let node = self.node(g, node)?;
                vec![match g.lease_read(&node, key) {
                    Some(result) => {
                        let line = show::read(
                            self.protocol
                                .registration()
                                .read_name(ReadLevel::Linearizable),
                            &result,
                        );
                        self.record = Some(Record::Read(result));
                        line
                    }
                    None => format!(
                        "error: lease-read is an isr call; {} has none",
                        g.protocol()
                    ),
                }]
            }
            Directive::Probe(n) => {
                let id = self.node(g, n)?;
                let summary = g.summary();
                let (Some(node), Some(catch_up)) = (summary.node(&id), g.catch_up(&id)) else {
                    return Err(vec![show::error(&GroupError::UnknownNode(id))]);
                };
                let line = format!(
                    "{id}: role={} offset={} catch-up={catch_up}",
                    node.role, node.applied_offset
                );
                self.record = Some(Record::Node {
                    id: id.clone(),
                    role: node.role.to_owned(),
                    offset: node.applied_offset,
                    catch_up,
                });
                vec![line]
            }
            Directive::Fenced => {
                let n = g.fenced();
                self.record = Some(Record::Count(n));
                vec![format!("fenced={n}")]
            }
            Directive::Converged => {
                let summary = g.summary();
                let leader_data = summary
                    .leader
                    .as_ref()
                    .and_then(|l| summary.node(l))
                    .map(|n| &n.data);
                let converged = summary.alive_nodes_agree()
                    && summary
                        .nodes
                        .iter()
                        .filter(|n| n.alive)
                        .all(|n| Some(&n.data) == leader_data);
                self.record = Some(Record::Flag(converged));
                vec![format!(
                    "converged={}",
                    if converged { "yes" } else { "no" }
                )]
            }
            Directive::Gate { node, write } => {
                let id = self.node(g, node)?;
                let Some(Record::Write { level, result, .. }) = self.records.get(write) else {
                    return Err(vec![format!("error: no write recorded as `{write}`")]);
                };
                let text = match result {
                    Ok(w) => g.gate(&id, *level, w),
                    Err(e) => return Err(vec![show::error(e)]),
                };
                self.record = Some(Record::Text(text.clone()));
                vec![text]
            }
            Directive::Summary(fields) => show::summary(&g.summary(), &g.node_states(), fields),
            Directive::Steer(until) => {
                while g.now() < *until {
                    g.tick();
                }
                let Some(steer) = g.steerable_mut() else {
                    return Err(vec![format!(
                        "error: {} offers no steerable run",
                        g.summary().protocol
                    )]);
                };
                ok_or_error(steer.hold(true))
            }
            Directive::Held {
                act,
                from,
                to,
                label,
                index,
            } => {
                let (from, to) = (self.node(g, from)?, self.node(g, to)?);
                let ids = g.node_ids();
                let (a, b) = (
                    ids.iter().position(|n| *n == from),
                    ids.iter().position(|n| *n == to),
                );
                let Some(steer) = g.steerable_mut() else {
                    return Err(vec!["error: not a steered run (`steer` first)".to_owned()]);
                };
                let held = steer.held();
                let pick = held
                    .iter()
                    .filter(|h| Some(h.from) == a && Some(h.to) == b)
                    .filter(|h| label.as_deref().is_none_or(|l| l == h.label))
                    .nth(*index);
                let Some(h) = pick else {
                    return Err(vec![format!(
                        "error: no held message {from} -> {to}{} (index {index}); held: {}",
                        label
                            .as_ref()
                            .map_or(String::new(), |l| format!(" labelled {l}")),
                        if held.is_empty() {
                            "none".to_owned()
                        } else {
                            held.iter()
                                .map(|h| format!("{} {}->{}", h.label, ids[h.from], ids[h.to]))
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    )]);
                };
                let id = h.id;
                let done = match act {
                    crate::directive::HeldAct::Deliver => steer.release(id),
                    crate::directive::HeldAct::Drop => steer.drop_held(id),
                    crate::directive::HeldAct::Duplicate => steer.duplicate_held(id),
                };
                if done.is_ok() && *act == crate::directive::HeldAct::Deliver {
                    g.tick();
                }
                ok_or_error(done)
            }
            Directive::Fire(n) => {
                let id = self.node(g, n)?;
                let Some(i) = g.node_ids().iter().position(|x| *x == id) else {
                    return Err(vec![format!("error: unknown node {id}")]);
                };
                let Some(steer) = g.steerable_mut() else {
                    return Err(vec!["error: not a steered run (`steer` first)".to_owned()]);
                };
                let done = steer.expire(i);
                if done.is_ok() {
                    g.tick();
                }
                ok_or_error(done)
            }
            Directive::State(fields) => {
                show::state(&g.node_states(), fields).map_err(|e| vec![format!("error: {e}")])?
            }
            Directive::Trace(kinds) => {
                let trace = g.trace();
                // The command line's filter: a name, or a prefix ending in `*`.
                let filter = sim_core::TraceFilter::new().kinds(kinds.iter().cloned());
                let lines: Vec<String> = trace
                    .since(self.trace_mark)
                    .filter(|e| filter.keeps(e))
                    .map(|e| e.to_string())
                    .collect();
                self.trace_mark = trace.len();
                if lines.is_empty() {
                    vec!["no events".to_owned()]
                } else {
                    lines
                }
            }
        })
    }
}

/// `write` / `read`: submit, await, print the answer the blocking API
/// gives (nothing when `quiet`); and that answer as a record.
fn blocking(
    g: &mut dyn ReplicationGroup,
    op: ClientOp,
    quiet: bool,
    names: &dyn replication::Registration,
) -> (String, Record) {
    let (value, level, result) = match op {
        ClientOp::Read { key, level, node } => {
            let result = g.client_read(&key, level, node.as_ref());
            let line = if quiet {
                String::new()
            } else {
                show::read(names.read_name(level), &result)
            };
            return (line, Record::Read(result));
        }
        ClientOp::Write {
            key,
            value,
            level,
            node: None,
        } => (value.clone(), level, g.client_write(key, value, level)),
        ClientOp::Write {
            ref value, level, ..
        } => {
            let value = value.clone();
            let result = g
                .submit(op)
                .and_then(|id| g.await_completion(id))
                .and_then(|c| c.outcome.into_write_result());
            (value, level, result)
        }
        other => {
            let line = format!(
                "error: cannot run a {} at {} as a blocking operation",
                other.kind(),
                other.level_name()
            );
            return (line.clone(), Record::Text(line));
        }
    };
    let line = if quiet {
        String::new()
    } else {
        show::write(names.ack_name(level), &result)
    };
    (
        line,
        Record::Write {
            value,
            level,
            result,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_run_without_state_lines_has_none_and_the_same_trace_and_records() {
        let registry = crate::test_registry();
        let text = "config variant=default\n----\nok\n\n\
                    write key=k value=v level=quorum as=ack\n----\nx\n\n\
                    isolate node=leader\n----\nok\n\n\
                    tick n=30\n----\nx\n\n\
                    read key=k level=local node=leader as=read\n----\nx\n";
        let s = crate::parse("t.txt", text, &registry).expect("parses");
        for &protocol in registry.protocols() {
            let with = run_part(&s.cases, protocol, &registry, false, true).expect("runs");
            let without = run_part(&s.cases, protocol, &registry, false, false).expect("runs");
            let log = with.states.as_ref().expect("recorded");
            assert!(!log.is_empty(), "{protocol}");
            assert!(without.states.is_none(), "{protocol}");
            let jsonl = |r: &PartRun| r.trace.as_ref().expect("built").to_jsonl();
            assert_eq!(jsonl(&with), jsonl(&without), "{protocol}");
            assert_eq!(
                format!("{:?}", with.records),
                format!("{:?}", without.records),
                "{protocol}"
            );
            assert_eq!(with.records.len(), 2, "{protocol}");
        }
    }
}
