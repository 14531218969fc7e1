//! `cargo xtask check`: the model checker over every guarantees row (or
//! the rows the filters name), breadth-first within the bounds, with the
//! shortest path of each violation and its replay id.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::process::ExitCode;

use explore::model::{self, Bounds, ModelVerdict, StateView};
use explore::{Configuration, Status};

use crate::args::{AckArg, ProtocolArg, ReadArg};
use crate::output::{self, Failure};

/// `cargo xtask check`.
#[derive(clap::Args)]
pub struct Args {
    /// Only this protocol.
    #[arg(long, value_parser = crate::args::protocol_parser())]
    protocol: Option<ProtocolArg>,
    /// Only this ack level.
    #[arg(long, value_enum)]
    ack: Option<AckArg>,
    /// Only this read level.
    #[arg(long, value_enum)]
    read: Option<ReadArg>,
    /// Only this setting (e.g. default, fetch_elr_no_flush).
    #[arg(long)]
    setting: Option<String>,
    /// Steps in a path at most.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(0..=64))]
    depth: u16,
    /// Faults in a path at most (crash, power loss, isolate, failover; on
    /// datagrams also drop and duplicate).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=16))]
    faults: u8,
    /// Client writes in a path at most.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=16))]
    writes: u8,
    /// Client reads in a path at most.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=16))]
    reads: u8,
    /// Reads may also go to a named node, as from a client that still
    /// believes that node leads (the sweep's stale clients); by default a
    /// read goes where the protocol routes it.
    #[arg(long)]
    pinned_reads: bool,
    /// Instead of a breadth-first search, take N random walks of `--depth`
    /// steps over the same steps and bounds, judging every state met, and
    /// shorten each violation's path (for bugs deeper than the search
    /// reaches; finding nothing proves nothing).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    walks: Option<u64>,
    /// The seed the walks draw their steps from.
    #[arg(long, default_value_t = 0, requires = "walks")]
    seed: u64,
    /// Swarm walks: each walk first draws directed links it never
    /// delivers on, nodes whose timers it never fires and how often it
    /// delivers (25, 50 or 75%), then its steps among those left — a
    /// bug that needs messages held for the whole path is met far more
    /// often.
    #[arg(long, requires = "walks")]
    swarm: bool,
    /// Distinct states per row at most.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    max_states: u64,
    /// Worker threads [default: all cores]; the output is the same for every value.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// Explore without deduplicating states (a tree search; for checking
    /// that deduplication hides nothing).
    #[arg(long)]
    no_dedup: bool,
    /// What makes two states one: `complete` (every part; a clean search
    /// is a proof within its bounds) or `nodes` (the messages in flight
    /// left out, as TLC's VIEW: far fewer states, so far deeper, but no
    /// longer exhaustive — every violation found is a real path, a clean
    /// search proves nothing).
    #[arg(long, default_value_t = StateView::Complete, conflicts_with_all = ["walks", "no_dedup"])]
    view: StateView,
    /// Build every checked run with this knob value, NAME=VALUE (one of the
    /// settings the sweep varies: max_append_entries for Raft, lag_timeout
    /// for ISR); repeat for several. Its paths' replay ids name it.
    #[arg(long = "knob", value_name = "NAME=VALUE", value_parser = explore::parse_knob)]
    knobs: Vec<(String, String)>,
    /// Check a planted bug's row with the bug switched on (e.g.
    /// raft_commit_old_term; the build gets the `planted` feature).
    #[arg(long, value_name = "BUG")]
    planted: Option<String>,
}

/// `check`: optimized, like `explore`.
pub fn command(args: Args) -> Result<ExitCode, Failure> {
    let features: &[&str] = if args.planted.is_some() {
        &["planted"]
    } else {
        &[]
    };
    if let Some(code) = crate::optimized::reexec("check", features)? {
        return Ok(code);
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let bounds = Bounds {
        depth: args.depth,
        faults: args.faults,
        writes: args.writes,
        reads: args.reads,
        pinned_reads: args.pinned_reads,
        max_states: args.max_states,
        jobs,
        dedup: !args.no_dedup,
        view: args.view,
    };
    let all: Vec<Configuration> = match &args.planted {
        None => labs::explore_configs(),
        Some(bug) => labs::planted_configs()
            .into_iter()
            .filter(|(b, _)| b.name == bug.as_str())
            .map(|(_, c)| c)
            .collect(),
    };
    let configs: Vec<Configuration> = all
        .into_iter()
        .filter(|c| args.protocol.is_none_or(|p| p.name() == c.protocol))
        .filter(|c| args.ack.is_none_or(|a| a.name() == c.ack.snake()))
        .filter(|c| {
            args.read
                .is_none_or(|r| r.name() == explore::read_snake(c.read))
        })
        .filter(|c| args.setting.as_deref().is_none_or(|s| s == c.setting))
        .collect();
    let configs = with_knobs(configs, &args.knobs)?;
    if configs.is_empty() {
        return Err(Failure::usage(
            "check",
            clap::error::ErrorKind::InvalidValue,
            "no configuration matches the filters (see `cargo xtask explore --help`)",
        ));
    }
    let terminal = std::io::stderr().is_terminal();
    let mut text = String::new();
    for config in &configs {
        let progress = |depth: u16, distinct: u64| {
            if terminal {
                eprint!(
                    "\r{}: depth {depth}, {distinct} distinct states   ",
                    config.key()
                );
            }
        };
        let verdict = match args.walks {
            None => model::check(config, &bounds, &progress),
            Some(count) => {
                let walks = model::walk::Walks {
                    count,
                    seed: args.seed,
                    swarm: args.swarm,
                };
                let progress = |walked: u64, distinct: u64| {
                    if terminal {
                        eprint!(
                            "\r{}: {walked} walks, {distinct} distinct states   ",
                            config.key()
                        );
                    }
                };
                model::walk::walk(config, &bounds, &walks, &progress)
            }
        }
        .map_err(|e| Failure::Failed(format!("{}: {e}", config.key())))?;
        if terminal {
            eprintln!();
        }
        render(&mut text, &verdict);
        output::print(&std::mem::take(&mut text))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `configs` built with the knob values `knobs`: a row that does not
/// have one of the knobs (a setting it fixes itself, as ISR's fetch rows
/// fix `lag_timeout`) is skipped, and said so on stderr; when no row has
/// them, the first row's error (naming the knobs it has) is the answer.
fn with_knobs(
    configs: Vec<Configuration>,
    knobs: &[(String, String)],
) -> Result<Vec<Configuration>, Failure> {
    if knobs.is_empty() {
        return Ok(configs);
    }
    let mut kept = Vec::new();
    let mut first_error = None;
    for config in configs {
        let key = config.key();
        match config.with_knob_values(knobs) {
            Ok(config) => kept.push(config),
            Err(e) => {
                eprintln!("check: skipped {key}: {e}");
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) if kept.is_empty() => Err(Failure::usage(
            "check",
            clap::error::ErrorKind::InvalidValue,
            e.to_string(),
        )),
        _ => Ok(kept),
    }
}

/// One row's verdicts, as the terminal shows them.
pub fn render(out: &mut String, v: &ModelVerdict) {
    let rate = if v.seconds > 0.0 {
        v.distinct as f64 / v.seconds
    } else {
        0.0
    };
    let knobs = if v.knobs.is_empty() {
        String::new()
    } else {
        format!(" [{}]", v.knobs)
    };
    let _ = writeln!(
        out,
        "{}{knobs}: {} ({} generated; {:.1} s, {:.0} distinct states/s)",
        v.config,
        v.bound_text(),
        v.generated,
        v.seconds,
        rate
    );
    for (property, status, finding) in &v.properties {
        match (status, finding) {
            (Status::Violated, Some(f)) => {
                let _ = writeln!(
                    out,
                    "  {:<13} violated: {} steps — {} explore --replay {}",
                    property.name(),
                    f.path.len(),
                    explore::command(),
                    f.replay
                );
                let steps: Vec<String> = f.path.iter().map(ToString::to_string).collect();
                let _ = writeln!(out, "      path: {}", steps.join("; "));
                let _ = writeln!(out, "      {}", f.reason);
            }
            (status, _) => {
                let _ = writeln!(out, "  {:<13} {}", property.name(), status.name());
            }
        }
    }
}

/// The bounds of `docs/guarantees.md`'s and `docs/planted.md`'s checker
/// columns: a breadth-first search stopped at the level that would pass
/// 100,000 distinct states, so every row takes seconds (the whole table
/// under a minute on 2 cores) and the depth reached says how far it
/// went.
pub const TABLE_BOUNDS: Bounds = Bounds {
    depth: 12,
    faults: 2,
    writes: 1,
    reads: 1,
    pinned_reads: false,
    max_states: 100_000,
    jobs: 1,
    dedup: true,
    view: StateView::Complete,
};

/// A property's cell: `holds`, or `violated: K steps — replay id`.
fn cell(status: Status, finding: Option<&model::Finding>) -> String {
    match (status, finding) {
        (Status::Violated, Some(f)) => format!(
            "violated: {} steps — `{} explore --replay {}`",
            f.path.len(),
            explore::command(),
            f.replay
        ),
        (status, _) => status.name().to_string(),
    }
}

/// The row's verdicts at [`TABLE_BOUNDS`].
pub fn table_verdict(config: &Configuration, jobs: usize) -> Result<ModelVerdict, String> {
    verdict_within(config, TABLE_BOUNDS, jobs)
}

/// The checker's verdict of `config` within `bounds`, on `jobs` workers.
pub fn verdict_within(
    config: &Configuration,
    bounds: Bounds,
    jobs: usize,
) -> Result<ModelVerdict, String> {
    let bounds = Bounds { jobs, ..bounds };
    model::check(config, &bounds, &|_, _| {}).map_err(|e| format!("{}: {e}", config.key()))
}

/// The bounded model checking section of `docs/guarantees.md`.
pub fn markdown(configs: &[Configuration], jobs: usize) -> Result<String, String> {
    let b = TABLE_BOUNDS;
    let mut out = format!(
        "\n## Bounded model checking: every path within the bounds\n\n\
         `cargo xtask check --depth {} --faults {} --writes {} --reads {} --max-states {}` \
         explores, breadth-first, every path of steps on a steered run of the real protocol code \
         — deliver any held message (on datagrams also drop or duplicate it), let a tick pass \
         (timers fire), one write and one read from their own clients, crash (process or power \
         loss), restart, isolate, heal, fail over — after a {}-tick warm-up, on the protocol's \
         transport, states deduplicated by a fingerprint of the state (on Raft up to time: not when things happened) and of the history. \
         Every distinct state is judged as the explorer judges a schedule's end (heal, restart, \
         settle, read the key at the strongest level). The search stops at the level that would \
         pass {} distinct states: `holds` is a bounded proof over every path of at most the depth \
         reached (the *bound* column); a violation shows the shortest path, which \
         `cargo xtask explore --replay` opens. *available* is judged at the end only (with a \
         follower crashed after the heal, as every sweep run ends): a held message may wait for \
         ever, and the random sweep judges availability over time.\n\n\
         | protocol | ack | read | setting | bound | durable | linearizable | invariants | recovers | available |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
        b.depth,
        b.faults,
        b.writes,
        b.reads,
        b.max_states,
        model::WARM_UP,
        b.max_states,
    );
    for config in configs {
        let v = table_verdict(config, jobs)?;
        let cells: Vec<String> = v
            .properties
            .iter()
            .map(|(_, status, finding)| cell(*status, finding.as_ref()))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} distinct states, {} steps | {} |",
            config.key().replace('.', " | "),
            v.distinct,
            v.depth,
            cells.join(" | ")
        );
    }
    Ok(out)
}
