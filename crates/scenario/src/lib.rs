//! # scenario — experiments as text files, run on every registered protocol
//!
//! A scenario is a file of *cases* in the datadriven style of etcd-io/raft's
//! `testdata/*.txt`: a directive with `key=value` arguments, a `----` line,
//! then the expected output, and a blank line before the next case. Lines
//! starting with `#` are comments. The same file runs on every protocol
//! (each on its own fresh group), so the expected output is per protocol:
//! a plain block when all four print the same, otherwise lines prefixed
//! with the protocols they belong to (see [`Expected`]):
//!
//! ```text
//! # Crash the leader right after a strong write.
//! write key=k value=v level=strong
//! ----
//! async: acked offset=1 (LEADER)
//! wal: acked offset=1 (QUORUM)
//! isr: acked offset=1 (ALL_ISR)
//! raft: acked offset=2 (QUORUM)
//!
//! crash node=leader
//! ----
//! ok
//! ```
//!
//! A directive without a `----` block has no expectation yet;
//! `cargo xtask run FILE --rewrite` fills every block in (from a fresh,
//! deterministic run) and keeps comments and directives as written.
//!
//! ## Directives
//!
//! | directive | what it does | prints |
//! |---|---|---|
//! | `config [variant=NAME] [protocols=a,b] [setting=value …]` | a fresh group with these settings (see [`Config`]: each setting is some registered protocol's, listed by its [`Registration::settings`](replication::Registration::settings); `protocols=` runs the part it starts on those protocols only, `variant=` makes it a matrix run); without one, the first directive builds the defaults | `ok` (and which settings this protocol ignores); nothing on a protocol the part skips |
//! | `write key= value= level= [node=] [repeat=N] [as=]` | blocking write (`client_write`; at a named node through `submit`); `repeat=N` makes N writes of `VALUE1` … `VALUEN`, stopping at the first not acknowledged | `acked offset=N (LEVEL)` (done), `refused …: why` (failed: not applied), `unknown offset=N …: why` (appended, not acknowledged: it may yet take effect), or the error |
//! | `read key= level= [node=] [as=]` | blocking read (`client_read`) | `value=V node=N offset=O (LEVEL)` or the error |
//! | `submit write\|read … [as=NAME]` | start an operation without letting time pass | `NAME submitted as op-N` or the error |
//! | `await op=NAME` | tick until it completes | `NAME done\|failed\|unknown at tick T (…): details` |
//! | `completions` | every completion not yet taken | one line each, or `none` |
//! | `tick [n=1]` | advance n ticks | `tick=T` |
//! | `run-until-idle [max=1000]` | tick until idle | `idle after N ticks` or the error |
//! | `isolate node=` / `heal node=` | cut / restore every link of a node | `ok` or the error |
//! | `cut from= to=` / `restore from= to=` | one-way link | `ok` or the error |
//! | `crash node= [power-loss]` / `restart node=` / `fsync node=` | process crash (or power loss: unfsynced state lost), restart, fsync | `ok` or the error |
//! | `slow node= [off]` | mark a replica slow (or clear it) | `ok` or the error |
//! | `failover [node=] [as=]` | the protocol's leader change | `leader=N` or the error |
//! | `lease-read key= node= [as=]` | isr's `lease_read` at a node (a LINEARIZABLE read the controller's current leader alone may serve); a [`ScenarioGroup`] call outside the trait | as `read`, or `error: lease-read is an isr call; P has none` |
//! | `probe node= [as=]` | the node's role, applied offset and how it last caught up, in the protocol's words ([`ScenarioGroup::catch_up`]) | `N: role=R offset=O catch-up=M` |
//! | `fenced [as=]` | old-lineage messages rejected so far ([`ScenarioGroup::fenced`]) | `fenced=N` |
//! | `converged [as=]` | every alive node holds the leader's data and offset | `converged=yes\|no` |
//! | `gate node= write=NAME [as=]` | why `node` did or did not hold up the write recorded `as=NAME` ([`ScenarioGroup::gate`]) | one line in the protocol's terms |
//! | `summary [fields=tick,leader,alive,role,offset,data]` | the protocol-neutral summary | a line for the group, one per node (a crashed node's adds its state line: its `offset` and `data` are what it has applied, not what it kept on disk) |
//! | `steer [until=T]` | tick until tick T, then hold the network (and Raft's timers, which then fire only by `fire`): from now on a message moves only by the three directives below (the model checker's and the debugger's steered run; `cargo xtask debug` exports a path as such a file) | `ok` or the error |
//! | `deliver from= to= [label=] [index=K]` | the K-th held message on that link (with that label), delivered at the next tick, which then passes | `ok`, or the error listing what is held |
//! | `drop …` / `duplicate …` (as `deliver`) | drop it, or hold a second copy (datagram transports) | `ok` or the error |
//! | `fire node=` | the node's first armed timer (a Raft election timeout, heartbeat) made due; the next tick passes | `ok` or the error |
//! | `state [fields=HW,ISR]` | every node's state line in the protocol's own words (role, term / epoch, log end, HW / commit, ISR, …), all its fields or those labelled | `N: role label value …`, or an error naming a label no node shows |
//! | `trace [kinds=a,b]` | trace events since the last `trace` (or `config`), of the kinds named — a name, or a prefix ending in `*` (`isr_member_*`), as `cargo xtask trace --kinds` takes them | `#seq @tick kind fields…`, or `no events` |
//!
//! A directive with `as=NAME` also records its answer as a value
//! ([`Record`]) under that name, for the part it is in: this is how an
//! experiment file says which answers its matrix cell is computed from
//! (see `labs::experiments`). A name is used once per part.
//!
//! Levels are named (`NONE`, `LEADER`, `QUORUM`, `ALL_ISR`; `LOCAL`,
//! `LEADER`, `LINEARIZABLE`) or given by alias (`weak`, `strong` for
//! writes; `weak`, `authority` for reads), resolved per protocol as the
//! [`AckRef`] docs tabulate. Nodes are roles (`leader`, `old-leader`,
//! `follower-1`, …) resolved when the directive runs, or node ids
//! ([`NodeRef`]).
//!
//! Errors a protocol answers with print as their message (`error: async
//! does not support read level LINEARIZABLE`, `error: LINEARIZABLE read at
//! node-1 blocked (…)`), so *unsupported* and *blocked* are both visible
//! in the expected output. A mistake in the file itself — an unknown
//! directive, argument, setting, level or node, a malformed block — is a
//! [`ScenarioError`] `file:line: message` before anything runs.
//!
//! The interpreter ([`run`]) drives any registered protocol's group
//! through the [`ReplicationGroup`] trait, plus the readings of
//! [`ScenarioGroup`] (`probe`, `fenced`, `gate`, `lease-read`). It knows no
//! protocol: the [`Registry`] it is given says which protocols exist, what
//! their settings and level aliases are, and how to build their groups.
//! Every part starts with a leader: a protocol whose group elects one
//! (Raft) is ticked until it has, at most [`FIRST_ELECTION`] ticks.
//!
//! ## What it mirrors, simplifies, omits
//!
//! - **Mirrors** etcd-io/raft's `datadriven` interaction tests
//!   (`testdata/*.txt`, a handler per directive) and their `--rewrite`.
//! - **Simplifies** every protocol's setup to `config key=value`, and the
//!   expected output of several protocols to one block with prefixes.
//! - **Omits** arbitrary code: a directive only calls the trait.
//!
//! A runnable example: `cargo run -p sim-scenario --example run_inline`.
//!
//! [`ReplicationGroup`]: replication::ReplicationGroup

mod config;
mod directive;
mod expected;
mod levels;
mod nodes;
mod parse;
mod record;
mod run;
mod show;

use std::fmt;

pub use config::Config;
pub use directive::{DIRECTIVES, Directive, MAX_TICKS, OpSpec, SUMMARY_FIELDS};
pub use expected::Expected;
pub use levels::{AckRef, ReadRef};
pub use nodes::{NodeRef, known_nodes, known_nodes_with, most_followers};
pub use parse::{Case, Scenario, ScenarioError, parse};
pub use record::{PartRun, Record, Records};
pub use replication::{Protocol, Registry, ScenarioGroup};
pub use run::{FIRST_ELECTION, part_cases, part_group, run, run_part, run_parts};

/// Each protocol's output, in the order run: one `Vec` of lines per case,
/// in case order.
pub type Outputs = Vec<(Protocol, Vec<Vec<String>>)>;

/// Runs `scenario` on each of `protocols` (a fresh group each).
pub fn run_protocols(scenario: &Scenario, protocols: &[Protocol], registry: &Registry) -> Outputs {
    protocols
        .iter()
        .map(|&p| (p, run(scenario, p, registry)))
        .collect()
}

/// One case whose output on one protocol is not the expected one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// `file:line` of the directive.
    pub at: String,
    /// The directive as written.
    pub directive: String,
    /// The protocol.
    pub protocol: Protocol,
    /// What the file expects (`None`: no expectation for this protocol).
    pub expected: Option<Vec<String>>,
    /// What the run printed.
    pub actual: Vec<String>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {} [{}]", self.at, self.directive, self.protocol)?;
        match &self.expected {
            None => writeln!(f, "  (no expected output for {})", self.protocol)?,
            Some(lines) => {
                for line in lines {
                    writeln!(f, "  - {line}")?;
                }
            }
        }
        for line in &self.actual {
            writeln!(f, "  + {line}")?;
        }
        Ok(())
    }
}

/// Every case × protocol of `outputs` that differs from the file.
pub fn differences(scenario: &Scenario, outputs: &Outputs) -> Vec<Difference> {
    let mut found = Vec::new();
    for (i, case) in scenario.cases.iter().enumerate() {
        for &(protocol, ref per_case) in outputs {
            // Nothing printed: this protocol skips the case's part.
            let Some(actual) = per_case.get(i).filter(|lines| !lines.is_empty()) else {
                continue;
            };
            let expected = case.expected.get(protocol);
            if expected != Some(actual.as_slice()) {
                found.push(Difference {
                    at: format!("{}:{}", scenario.file, case.line),
                    directive: case.text.clone(),
                    protocol,
                    expected: expected.map(<[String]>::to_vec),
                    actual: actual.clone(),
                });
            }
        }
    }
    found
}

/// The scenario's text with each case's block replaced (in the column
/// order of `registry`): `outputs` for the
/// protocols it has, the file's own expectations for the others when
/// `keep_others` (that is `--rewrite --protocol P`), nothing for them
/// otherwise (that is what `cargo xtask run` prints; there, a case that
/// none of the protocols run — a part for other protocols — is left out).
pub fn render(
    scenario: &Scenario,
    outputs: &Outputs,
    keep_others: bool,
    registry: &Registry,
) -> String {
    let mut text = String::new();
    let mut first = true;
    for (i, case) in scenario.cases.iter().enumerate() {
        let ran = |per_case: &Vec<Vec<String>>| per_case.get(i).is_some_and(|l| !l.is_empty());
        if !keep_others && !outputs.is_empty() && !outputs.iter().any(|(_, o)| ran(o)) {
            continue;
        }
        if !first {
            text.push('\n');
        }
        first = false;
        for line in &case.preamble {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&case.text);
        text.push_str("\n----\n");
        let mut block = if keep_others {
            case.expected.clone()
        } else {
            Expected::new(registry)
        };
        for &(protocol, ref per_case) in outputs {
            if let Some(lines) = per_case.get(i).filter(|lines| !lines.is_empty()) {
                block.set(protocol, lines.clone());
            }
        }
        for line in block.render() {
            text.push_str(&line);
            text.push('\n');
        }
    }
    if !scenario.trailer.is_empty() {
        text.push('\n');
        for line in &scenario.trailer {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// The four built-in protocols, for this crate's own tests.
#[cfg(test)]
pub(crate) fn test_registry() -> Registry {
    Registry::new(vec![
        Protocol::new(&proto_async::AsyncRegistration),
        Protocol::new(&proto_wal::WalRegistration),
        Protocol::new(&proto_isr::IsrRegistration),
        Protocol::new(&proto_raft::RaftRegistration),
    ])
}

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
