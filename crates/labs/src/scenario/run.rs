//! The interpreter: runs a scenario's directives against one
//! [`ReplicationGroup`], through the trait (plus the few calls of
//! [`ScenarioGroup`]), and collects each
//! directive's output lines.

use std::collections::BTreeMap;

use replication::{ClientOp, Completion, GroupError, NodeId, OpId, ReadLevel, ReplicationGroup};

use crate::scenario::directive::{Directive, OpSpec};
use crate::scenario::factory::{ScenarioGroup, Settings};
use crate::scenario::nodes::NodeRef;
use crate::scenario::parse::Scenario;
use crate::scenario::show;

/// Builds a fresh group for a `config` directive (or for the defaults,
/// when the scenario starts without one).
pub type Factory<'a> = dyn FnMut(&Settings) -> Result<Box<dyn ScenarioGroup>, GroupError> + 'a;

/// What a `submit` left behind under its name.
enum Submitted {
    Started(OpId),
    Refused(String),
}

/// The interpreter's state for one protocol's run of a scenario.
struct Interpreter<'f, 'a> {
    factory: &'f mut Factory<'a>,
    /// `None` before the first directive; `Err` when `config` failed.
    group: Option<Result<Box<dyn ScenarioGroup>, String>>,
    last_leader: Option<NodeId>,
    old_leader: Option<NodeId>,
    ops: BTreeMap<String, Submitted>,
    names: BTreeMap<OpId, String>,
    done: BTreeMap<OpId, Completion>,
    trace_mark: usize,
}

/// Runs every case of `scenario` against groups built by `factory`; one
/// `Vec` of output lines per case, in case order.
pub fn run_with(scenario: &Scenario, factory: &mut Factory<'_>) -> Vec<Vec<String>> {
    let mut it = Interpreter {
        factory,
        group: None,
        last_leader: None,
        old_leader: None,
        ops: BTreeMap::new(),
        names: BTreeMap::new(),
        done: BTreeMap::new(),
        trace_mark: 0,
    };
    scenario
        .cases
        .iter()
        .map(|case| one_line_each(it.step(&case.directive)))
        .collect()
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

impl Interpreter<'_, '_> {
    fn configure(&mut self, settings: &Settings) -> Vec<String> {
        self.last_leader = None;
        self.old_leader = None;
        self.ops.clear();
        self.names.clear();
        self.done.clear();
        self.trace_mark = 0;
        let built = (self.factory)(settings);
        let line = match &built {
            Ok(group) => {
                let ignored = settings.ignored_by(group.protocol());
                if ignored.is_empty() {
                    "ok".to_owned()
                } else {
                    format!("ok; ignored: {}", ignored.join(", "))
                }
            }
            Err(e) => show::error(e),
        };
        self.group = Some(built.map_err(|e| e.to_string()));
        vec![line]
    }

    fn step(&mut self, directive: &Directive) -> Vec<String> {
        if let Directive::Config(settings) = directive {
            return self.configure(settings);
        }
        if self.group.is_none() {
            self.configure(&Settings::default());
        }
        match self.group.take() {
            Some(Ok(mut group)) => {
                let out = self.act(group.as_mut(), directive);
                if let Some(leader) = group.leader() {
                    self.last_leader = Some(leader);
                }
                self.group = Some(Ok(group));
                out
            }
            Some(Err(e)) => {
                self.group = Some(Err(e.clone()));
                vec![format!("error: no group ({e})")]
            }
            None => vec!["error: no group was built".to_owned()],
        }
    }

    fn node(&self, group: &dyn ReplicationGroup, node: &NodeRef) -> Result<NodeId, Vec<String>> {
        node.resolve(group, self.old_leader.as_ref())
            .map_err(|m| vec![format!("error: {m}")])
    }

    fn op(&self, group: &dyn ReplicationGroup, spec: &OpSpec) -> Result<ClientOp, Vec<String>> {
        let protocol = group.protocol();
        let fail = |m: String| vec![format!("error: {m}")];
        let (op, node) = match spec {
            OpSpec::Write {
                key,
                value,
                level,
                node,
            } => (
                ClientOp::write(
                    key.clone(),
                    value.clone(),
                    level.resolve(protocol).map_err(fail)?,
                ),
                node,
            ),
            OpSpec::Read { key, level, node } => (
                ClientOp::read(key.clone(), level.resolve(protocol).map_err(fail)?),
                node,
            ),
        };
        match node {
            Some(n) => Ok(op.at(&self.node(group, n)?)),
            None => Ok(op),
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
            Directive::Config(settings) => {
                let _ = settings;
                return Err(vec![
                    "error: `config` is run by the interpreter, not on a group".into(),
                ]);
            }
            Directive::Blocking(spec) => {
                let op = self.op(g, spec)?;
                vec![blocking(g, op)]
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
                    let line = show::completion(op, &completion);
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
                        let line = show::completion(&name, &c);
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
                match g.failover(candidate.as_ref()) {
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
                    Some(result) => show::read(ReadLevel::Linearizable, &result),
                    None => format!(
                        "error: lease-read is an isr call; {} has none",
                        g.protocol()
                    ),
                }]
            }
            Directive::Summary(fields) => show::summary(&g.summary(), fields),
            Directive::Trace(kinds) => {
                let trace = g.trace();
                let lines: Vec<String> = trace
                    .since(self.trace_mark)
                    .filter(|e| kinds.is_empty() || kinds.iter().any(|k| k == e.kind))
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

/// `write` / `read`: submit, await, print the answer the blocking API gives.
fn blocking(g: &mut dyn ReplicationGroup, op: ClientOp) -> String {
    match op {
        ClientOp::Write {
            key,
            value,
            level,
            node: None,
        } => show::write(level, &g.client_write(key, value, level)),
        ClientOp::Read { key, level, node } => {
            show::read(level, &g.client_read(&key, level, node.as_ref()))
        }
        ClientOp::Write { level, .. } => {
            let result = g
                .submit(op)
                .and_then(|id| g.await_completion(id))
                .and_then(|c| c.outcome.into_write_result());
            show::write(level, &result)
        }
        other => format!("error: cannot run {other:?}"),
    }
}
