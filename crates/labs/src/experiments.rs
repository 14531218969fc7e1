//! The seven experiments, one scenario file each
//! (`crates/labs/scenarios/0N-*.txt`, compiled in), and the matrix runs
//! they hold.
//!
//! A file is split into *parts* at its `config` directives. A part whose
//! `config` names a `variant=` is a run of the comparison matrix, for each
//! protocol it runs on (`protocols=`, default all four); its observation
//! is computed from the answers its labelled (`as=`) directives recorded,
//! and its trace is the group's trace when the part ends. A protocol's
//! variants of an experiment are its parts in file order.
//!
//! The labels each experiment reads (a part missing one is an error
//! naming it):
//!
//! | # | labels the file records |
//! |---|---|
//! | 1 | `ack` (write), `at_ack`, `after` (reads of the follower), `leader`, `follower` (probes) |
//! | 2 | `ack` (write), `before` (read), `failover`, `after` (read on the new leader) |
//! | 3 | `failover`, `old_write`, `new_write`, `old_side`, `new_side` (reads during the partition), `fenced`, `converged`, `old_after` (probe), `minority`, `majority` (reads after heal) |
//! | 4 | `ack` (write), `slow` (read of the slow replica), `gate` |
//! | 5 | `inside`, `outside` (probes of the reconnected replica) |
//! | 6 | `written` (write), `local`, `leader`, `linearizable` (reads) |
//! | 7 | `old_local`, `current` (reads), `guard` (LINEARIZABLE at the old leader) or `lease` (a `lease-read` there, when the protocol has one) |
//!
//! The protocol-specific words in a cell (`gate`'s explanation, the
//! catch-up mode of `probe`, what `fenced` counts) are the group's own
//! answers, through [`ScenarioGroup`](replication::ScenarioGroup).

use std::sync::OnceLock;

use replication::GroupError;
use sim_core::Trace;

use scenario::{Directive, PartRun, Protocol, Registry, Scenario};

use crate::observe::observe;
use crate::observed::Observed;
use crate::protocol::{is_builtin, registry, registry_with};
use crate::run::Run;

/// One experiment's scenario file.
#[derive(Debug, Clone, Copy)]
pub struct ExperimentFile {
    /// Experiment number, 1–7.
    pub number: u8,
    /// Its path in the repository.
    pub path: &'static str,
    /// Its text.
    pub text: &'static str,
}

macro_rules! files {
    ($($n:literal => $name:literal,)*) => {
        [$(ExperimentFile {
            number: $n,
            path: concat!("crates/labs/scenarios/", $name),
            text: include_str!(concat!("../scenarios/", $name)),
        },)*]
    };
}

/// The seven experiment files, in experiment order.
pub const FILES: [ExperimentFile; 7] = files! {
    1 => "01-normal-replication.txt",
    2 => "02-crash-after-ack.txt",
    3 => "03-minority-leader.txt",
    4 => "04-slow-replica.txt",
    5 => "05-reconnect.txt",
    6 => "06-read-levels.txt",
    7 => "07-split-brain-read.txt",
};

/// One matrix run: a part of an experiment file on one protocol.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Part {
    pub(crate) experiment: u8,
    pub(crate) protocol: Protocol,
    pub(crate) variant: &'static str,
    /// The part's cases: `cases[start..end]` of the parsed file.
    start: usize,
    end: usize,
}

/// Each file parsed for the protocols of `registry`.
fn parse_all(registry: &Registry) -> Vec<Result<Scenario, String>> {
    FILES
        .iter()
        .map(|f| scenario::parse(f.path, f.text, registry).map_err(|e| e.to_string()))
        .collect()
}

/// Each file parsed once for the built-in protocols, its keys and values
/// pinned ([`pin_bytes`]).
fn parsed() -> &'static [Result<Scenario, String>] {
    static PARSED: OnceLock<Vec<Result<Scenario, String>>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let mut all = parse_all(&registry());
        for scenario in all.iter_mut().flatten() {
            for case in &mut scenario.cases {
                pin_bytes(&mut case.directive);
            }
        }
        all
    })
}

/// Makes the keys and values of `directive` `'static`: the parse they
/// belong to is kept for the whole process, so they are moved into memory
/// that is never freed, and every copy a run makes of one — into an
/// operation, a log, a message — is a pointer copy, with no reference
/// count to update (the matrix's runs copy them thousands of times).
fn pin_bytes(directive: &mut Directive) {
    fn pin(bytes: &mut bytes::Bytes) {
        *bytes = bytes::Bytes::from_static(Box::leak(bytes.to_vec().into_boxed_slice()));
    }
    let op = match directive {
        Directive::Blocking(op) | Directive::Repeat { op, .. } | Directive::Submit { op, .. } => op,
        Directive::LeaseRead { key, .. } => return pin(key),
        _ => return,
    };
    match op {
        scenario::OpSpec::Write { key, value, .. } => {
            pin(key);
            pin(value);
        }
        scenario::OpSpec::Read { key, .. } => pin(key),
    }
}

/// The files parsed for a registry that holds `protocol`: the cached parse
/// for a built-in one.
fn parsed_for(protocol: Protocol) -> std::borrow::Cow<'static, [Result<Scenario, String>]> {
    if is_builtin(protocol) {
        std::borrow::Cow::Borrowed(parsed())
    } else {
        std::borrow::Cow::Owned(parse_all(&registry_with(protocol)))
    }
}

/// Every matrix run of every file on `protocol`, in experiment order then
/// file order. The parts are read from the built-in parse (the files name
/// only built-in protocols, so any registry parses them into the same
/// parts). A protocol runs the parts whose `protocols=` lists it, and those
/// that list none; a protocol no list of the file names (one registered
/// beyond the built-in four) runs the parts that list none and, when the
/// file has none, its first `variant=default` part — so it gets a cell in
/// every row.
pub(crate) fn parts(protocol: Protocol) -> Vec<Part> {
    let mut parts = Vec::new();
    for (file, parsed) in FILES.iter().zip(parsed()) {
        let Ok(s) = parsed else { continue };
        let configs = || {
            s.cases.iter().filter_map(|c| match &c.directive {
                Directive::Config(config) => Some(config),
                _ => None,
            })
        };
        let named = configs().any(|c| {
            c.protocols
                .as_ref()
                .is_some_and(|list| list.iter().any(|p| p == protocol.name()))
        });
        let unlisted = configs().any(|c| c.variant.is_some() && c.protocols.is_none());
        let mut stand_in_taken = named || unlisted;
        let starts: Vec<usize> = s
            .cases
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c.directive, Directive::Config(_)))
            .map(|(i, _)| i)
            .collect();
        for (k, &start) in starts.iter().enumerate() {
            let end = starts.get(k + 1).copied().unwrap_or(s.cases.len());
            let Directive::Config(config) = &s.cases[start].directive else {
                continue;
            };
            let Some(variant) = config.variant.as_deref() else {
                continue;
            };
            let stand_in = !stand_in_taken && variant == "default";
            if stand_in {
                stand_in_taken = true;
            }
            if config.runs_on(protocol.name()) || stand_in {
                parts.push(Part {
                    experiment: file.number,
                    protocol,
                    variant,
                    start,
                    end,
                });
            }
        }
    }
    parts
}

/// Why the experiment files cannot be used, if one does not parse (a
/// build of this crate with a broken file still compiles; every run then
/// fails with this message).
pub(crate) fn parse_error() -> Option<&'static str> {
    parsed()
        .iter()
        .find_map(|p| p.as_ref().err().map(String::as_str))
}

/// The observation of one protocol's run of a variant part, and its trace.
fn observe_part(
    experiment: u8,
    file: &str,
    protocol: Protocol,
    variant: &str,
    run: PartRun,
) -> Result<(Observed, Trace), GroupError> {
    let at = |e: String| GroupError::config(file, format!("{protocol} variant {variant}: {e}"));
    let trace = run
        .trace
        .map_err(|why| at(format!("the part's group could not be built: {why}")))?;
    let observed = observe(experiment, &run.records).map_err(|e| at(e.to_string()))?;
    Ok((observed, trace))
}

/// What the variant parts of a scenario `text` observe on `protocol`, as
/// experiment `experiment` reads them: `(variant, observation)` in file
/// order. This is how the matrix reads [`FILES`]; call it on an edited copy
/// of one to see what the matrix would say. A file that does not parse, a
/// part whose group cannot be built, or a part missing a label its
/// experiment needs is an error naming it.
pub fn observations(
    experiment: u8,
    file: &str,
    text: &str,
    protocol: Protocol,
) -> Result<Vec<(String, Observed)>, GroupError> {
    let s = scenario::parse(file, text, &registry_with(protocol))
        .map_err(|e| GroupError::config("scenario", e.to_string()))?;
    let (_, runs) = scenario::run_parts(&s, protocol, &registry_with(protocol));
    runs.into_iter()
        .filter_map(|run| run.variant.clone().map(|v| (v, run)))
        .map(|(variant, run)| {
            let (observed, _) = observe_part(experiment, file, protocol, &variant, run)?;
            Ok((variant, observed))
        })
        .collect()
}

impl Part {
    /// Runs this part alone on a fresh group and computes its
    /// observation; its state lines are recorded only when asked for
    /// ([`Run::states`] runs the part again, recording them).
    pub(crate) fn run(&self) -> Result<Run, GroupError> {
        let (run, file) = self.run_part(false)?;
        let (observed, trace) =
            observe_part(self.experiment, file, self.protocol, self.variant, run)?;
        let part = *self;
        let replay = move || {
            // The replay's events are this run's again: they are not
            // mirrored to `tracing` a second time.
            let quiet = tracing::subscriber::NoSubscriber::default();
            tracing::subscriber::with_default(quiet, || {
                part.run_part(true)
                    .ok()
                    .and_then(|(run, _)| run.states)
                    .unwrap_or_default()
            })
        };
        Ok(Run::new(self.protocol, self.variant, observed, trace).with_states_replayed(replay))
    }

    /// The part run in place on a fresh group (recording its state lines
    /// when `record_states`), and its file's name.
    fn run_part(&self, record_states: bool) -> Result<(PartRun, &'static str), GroupError> {
        let index = FILES
            .iter()
            .position(|f| f.number == self.experiment)
            .ok_or_else(|| GroupError::config("experiment", "no such file"))?;
        let all = parsed_for(self.protocol);
        let whole = all[index]
            .as_ref()
            .map_err(|e| GroupError::config("scenario", e.clone()))?;
        // A stand-in part (see `parts`) runs on this protocol too; the
        // part runs in place, its cases borrowed from the parsed file.
        let cases = &whole.cases[self.start..self.end];
        let run = scenario::run_part(
            cases,
            self.protocol,
            &registry_with(self.protocol),
            true,
            record_states,
        )
        .ok_or_else(|| {
            GroupError::config(
                &whole.file,
                format!("{} skipped its own part", self.protocol),
            )
        })?;
        Ok((run, FILES[index].path))
    }
}
