//! `cargo xtask explore`: the verdict table over seeded fault schedules, and
//! replays of shrunk counterexamples.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use explore::{
    Configuration, HistoryOp, Property, ReplayId, RunReport, Schedule, Status, SweepOptions,
    Verdict,
};

use explore::table::{cell, rows};

use crate::args::{AckArg, ProtocolArg, ReadArg};
use crate::output::{self, Failure};
pub use crate::sweep_all::{Options, StateAt, Stop, sweep_all, write_or_check};

/// `cargo xtask explore`.
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
    /// Only this setting (e.g. default, sync_standby_1, min_insync_1); with
    /// --replay, run the replayed schedule on this setting's row instead.
    #[arg(long)]
    setting: Option<String>,
    /// Schedules per configuration.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    schedules: u64,
    /// The first seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads [default: all cores]; the output is the same for every value.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// Replay one schedule by its id: the schedule, its history as a timeline, the trace.
    #[arg(long, value_name = "ID", conflicts_with_all = ["json", "jsonl", "check", "write", "shard"])]
    replay: Option<String>,
    /// With --replay: also draw the run's space-time diagram to FILE (SVG).
    #[arg(long, value_name = "FILE", requires = "replay")]
    diagram: Option<PathBuf>,
    /// With --replay: also print every node's state line at tick T (the
    /// lines in force at the end of that tick, as the report's state
    /// panel shows them).
    #[arg(long, value_name = "T", requires = "replay")]
    at: Option<u64>,
    /// With --replay: also print every node's state line at the end of
    /// the run.
    #[arg(long, requires = "replay", conflicts_with = "at")]
    state: bool,
    #[command(flatten)]
    trace_filter: crate::trace_filter::ReplayFilter,
    /// Print the verdicts as one JSON document.
    #[arg(long, conflicts_with = "jsonl")]
    json: bool,
    /// Print one JSON verdict per line (for --shard runs, to merge elsewhere).
    #[arg(long)]
    jsonl: bool,
    /// Merge the JSON lines of a sweep's shards (`--shard I/N --jsonl`)
    /// into the table a single run over the same seeds prints; with
    /// --check / --write, the Markdown file (the checker's section is
    /// computed here). A shard missing, given twice, cut short, or from
    /// another version or seed range is an error naming the file.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["replay", "shard", "jsonl", "json", "planted", "protocol", "ack", "read", "setting", "schedules", "seed"])]
    merge: Vec<PathBuf>,
    /// Run only shard I of N (seeds whose position modulo N is I), e.g. 3/16.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(u64, u64)>,
    /// Compare a fresh run with the Markdown FILE; print a diff and exit 1 on any difference.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["write", "json", "jsonl", "shard"])]
    check: Option<PathBuf>,
    /// Write the verdict table as Markdown to FILE.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["json", "jsonl", "shard"])]
    write: Option<PathBuf>,
    /// Sweep every planted bug (the explorer's positive controls) instead:
    /// exit 1 unless each is caught and its unplanted row keeps the property;
    /// with --write / --check, the table (misses listed) is written or
    /// compared, like the verdict table.
    #[arg(long, conflicts_with_all = ["replay", "json", "jsonl", "shard", "ack", "read", "setting"])]
    planted: bool,
    /// Bounded exhaustive mode: run every schedule of at most --depth steps
    /// over a small fixed alphabet instead of seeded random ones.
    #[arg(long, conflicts_with_all = ["replay", "json", "jsonl", "shard", "check", "write", "planted"])]
    exhaustive: bool,
    /// With --exhaustive: the most steps a schedule has.
    #[arg(long, default_value_t = 3, requires = "exhaustive", value_parser = clap::value_parser!(u8).range(0..=8))]
    depth: u8,
    /// Run in a build with every `debug_assert!` and overflow check on
    /// (the `checked` profile, which unwinds): a schedule that reaches an
    /// assertion is reported, and the command exits 1.
    #[arg(long, conflicts_with_all = ["planted"])]
    debug_assertions: bool,
    /// Sweep exactly --schedules per configuration, also where a row asks
    /// for more (its verdicts may then differ from docs/guarantees.md).
    #[arg(long)]
    ignore_floors: bool,
}

fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let (i, n) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not I/N"))?;
    let i: u64 = i
        .parse()
        .map_err(|_| format!("`{i}` is not a shard number"))?;
    let n: u64 = n
        .parse()
        .map_err(|_| format!("`{n}` is not a shard count"))?;
    if n == 0 || i >= n {
        return Err(format!("shard {i}/{n}: need 0 <= I < N"));
    }
    Ok((i, n))
}

/// `explore`.
pub fn command(args: Args) -> Result<ExitCode, Failure> {
    // A planted bug's replay id has a fifth part: it needs the build too.
    let planted_replay = args.replay.as_deref().is_some_and(|text| {
        text.parse::<ReplayId>()
            .is_ok_and(|id| id.config.split('.').count() == 5)
    });
    let features: &[&str] = if args.planted || planted_replay {
        &["planted"]
    } else {
        &[]
    };
    if let Some(code) = crate::optimized::reexec_in("explore", features, args.debug_assertions)? {
        return Ok(code);
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    if !args.merge.is_empty() {
        let print = crate::merge_cmd::Printers { plain, markdown };
        return match crate::merge_cmd::run(
            &args.merge,
            args.check.as_ref(),
            args.write.as_ref(),
            jobs,
            &print,
        ) {
            Ok((text, code)) => {
                output::print(&text)?;
                Ok(code)
            }
            Err(Usage(message)) => Err(Failure::usage("explore", ErrorKind::InvalidValue, message)),
            Err(Failed(message)) => Err(Failure::Failed(message)),
        };
    }
    let opts = Options {
        protocol: args.protocol.map(|p| p.name().to_string()),
        ack: args.ack.map(|a| a.name().to_string()),
        read: args.read.map(|r| r.name().to_string()),
        setting: args.setting,
        schedules: args.schedules,
        seed: args.seed,
        jobs,
        replay: args.replay,
        diagram: args.diagram,
        state_at: if args.state {
            Some(StateAt::End)
        } else {
            args.at.map(StateAt::Tick)
        },
        json: args.json,
        jsonl: args.jsonl,
        shard: args.shard,
        check: args.check,
        write: args.write,
        planted: args.planted,
        exhaustive: args.exhaustive.then_some(usize::from(args.depth)),
        floors: !args.ignore_floors,
        progress: std::io::stderr().is_terminal(),
    };
    match run(&opts) {
        Ok((text, code)) => {
            output::print(&args.trace_filter.apply(text)?)?;
            Ok(code)
        }
        Err(Usage(message)) => Err(Failure::usage("explore", ErrorKind::InvalidValue, message)),
        Err(Failed(message)) => Err(Failure::Failed(message)),
    }
}

use Stop::{Failed, Usage};

/// The configurations `opts` selects.
fn selected(opts: &Options) -> Vec<Configuration> {
    labs::explore_configs()
        .into_iter()
        .filter(|c| opts.protocol.as_deref().is_none_or(|p| p == c.protocol))
        .filter(|c| opts.ack.as_deref().is_none_or(|a| a == c.ack.snake()))
        .filter(|c| {
            opts.read
                .as_deref()
                .is_none_or(|r| r == explore::read_snake(c.read))
        })
        .filter(|c| opts.setting.as_deref().is_none_or(|s| s == c.setting))
        .collect()
}

/// Runs the command; `Ok` text goes to stdout.
pub fn run(opts: &Options) -> Result<(String, ExitCode), Stop> {
    if let Some(id) = &opts.replay {
        return replay(
            id,
            opts.setting.as_deref(),
            opts.diagram.as_ref(),
            opts.state_at,
        )
        .map(|t| (t, ExitCode::SUCCESS));
    }
    if opts.planted {
        return crate::planted_cmd::run(opts);
    }
    let configs = selected(opts);
    if let Some(depth) = opts.exhaustive
        && !configs.is_empty()
    {
        return crate::exhaustive_cmd::run(opts, &configs, depth);
    }
    if configs.is_empty() {
        let known: Vec<String> = labs::explore_configs()
            .iter()
            .map(Configuration::key)
            .collect();
        return Err(Usage(format!(
            "no configuration matches the filters; configurations: {}",
            known.join(", ")
        )));
    }
    let sweep = SweepOptions {
        schedules: opts.schedules,
        first_seed: opts.seed,
        jobs: opts.jobs,
        shard: opts.shard,
        shrink: true,
        floors: opts.floors,
    };
    let verdicts = sweep_all(&configs, &sweep, opts.progress)?;
    let mut markdown = markdown(&verdicts, &sweep);
    if opts.write.is_some() || opts.check.is_some() {
        markdown.push_str(&crate::check_cmd::markdown(&configs, opts.jobs).map_err(Failed)?);
    }
    if let Some((text, code)) = write_or_check(opts, &markdown, "explore --write")? {
        return Ok((text, failed_on_panics(code)));
    }
    let text = if opts.json {
        let mut v = json(&verdicts).to_string();
        v.push('\n');
        v
    } else if opts.jsonl {
        verdicts
            .iter()
            .map(|v| {
                let config = configs.iter().find(|c| {
                    c.protocol == v.protocol
                        && c.ack.snake() == v.ack
                        && explore::read_snake(c.read) == v.read
                        && c.setting == v.config
                });
                let seeds =
                    config.map_or(sweep.schedules, |c| crate::merge_cmd::seeds_of(c, &sweep));
                format!("{}\n", crate::merge_cmd::line(v, &sweep, seeds))
            })
            .collect()
    } else {
        plain(&verdicts)
    };
    Ok((text, failed_on_panics(ExitCode::SUCCESS)))
}

/// `code`, or 1 when a schedule panicked: a panic inside a protocol is a
/// defect whatever the row's verdicts (the table is still printed; its
/// *invariants* column names the panic).
fn failed_on_panics(code: ExitCode) -> ExitCode {
    let panics = explore::panics_caught();
    if panics == 0 {
        return code;
    }
    output::note(&format!(
        "explore: {panics} schedule run(s) panicked inside a protocol (shrinking included); the invariants column names the panic and its replay id"
    ));
    ExitCode::FAILURE
}

/// The committed `docs/guarantees.md`.
fn markdown(verdicts: &[Verdict], sweep: &SweepOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Guarantees: what holds over seeded fault schedules\n"
    );
    let _ = writeln!(
        out,
        "Generated by `cargo xtask explore --write docs/guarantees.md` \
         ({} schedules per configuration from seed {}, more where a row \
         says so below; each schedule draws its own profile from its seed). \
         `holds (N)`: no schedule of N broke it; `violated in K of N`: K \
         schedules broke it, and the shortest of the first three shrunk \
         counterexamples is replayable with the command shown; `unknown`: \
         some schedules could not decide.\n",
        sweep.schedules, sweep.first_seed
    );
    out.push_str(&explore::table::markdown(verdicts));
    out.push_str(DEFINITIONS);
    let mut notes = String::new();
    for v in verdicts {
        if let Some(cx) = &v.counterexample {
            let _ = writeln!(
                notes,
                "- **{}.{}.{}.{} — {}**: {}",
                v.protocol, v.ack, v.read, v.config, v.property, cx.reason
            );
        }
        if let Some(note) = &v.note {
            let _ = writeln!(
                notes,
                "- **{}.{}.{}.{} — {} unknown**: {note}",
                v.protocol, v.ack, v.read, v.config, v.property
            );
        }
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "\n## What the counterexamples show\n\n{notes}");
    }
    out
}

/// How to read the table; the definitions the verdicts rest on.
pub const DEFINITIONS: &str = "
## How to read it

The matrix (`docs/matrix.md`) answers each question with one scripted run;
this table says what holds over many seeded fault schedules. Each seed
first draws a profile — which fault kinds are on, how dense the nemesis is
(2–40% of the steps), the network settings of the protocol's own transport
(datagrams for Raft, FIFO streams with stalls for the others), the node
count where the protocol offers several, 2–5 clients of which some are
stale (they send everything to one fixed node), 1–3 keys, 30–300 steps and
the protocol's knob values — then the steps: client reads and writes with
think times, while the nemesis isolates and heals nodes, cuts and restores
one-way links, crashes nodes (process crash or power loss), restarts them,
fsyncs, marks replicas slow and fails over (to the protocol's choice or a
named node). Repairs are aimed: a restart restarts a node the run
crashed, a restore restores a link it cut, and four heals in five heal a
node it isolated. Every run then
heals everything, restarts every node, quiesces, and reads every key at the
strongest level the protocol offers. `--replay ID` shows any
counterexample's profile, steps (with the tick each started at), verdicts,
history and trace.

- **durable**: every write acknowledged at the row's ack level is in the
  final read of its key, or superseded by a write not ordered before it in
  real time. `offline at the end`: the run ended with the protocol stating
  why it cannot serve (for ISR: no in-sync replica left to elect, and
  unclean election is off — a claim the explorer checks: a write at the
  strongest level must then not complete), or that the schedule's network
  breaks an assumption its recovery rests on (ISR: `replica.lag.time.max`
  not above the worst delay; a Redis `WAIT` shorter than the slowest round
  trip), so serving is chance; either way it decides nothing — an offline
  partition loses availability, not data.
- **linearizable**: the whole history — reads at the row's read level, the
  final reads, failed operations left out, unknown writes free to take
  effect at any time after their call or never — checked by `lincheck`.
  The times in its explanations are the explorer's logical clock (one step
  per submission and per completion observed), not ticks; `--replay` shows
  the ticks.
- **invariants**: the protocol's own checker after every step and tick. A
  message storm counts too: a schedule's network holds at most 2,000
  messages in flight, and a run that fills it is stopped there. One
  schedule in 32 (by seed) keeps its trace, and at the end the trace,
  folded from the start, must agree with the group's state (ISR: the
  membership, HW, leader, every log end with each entry's epoch, durable
  mark and fenced count, each removal's and election's reason, each
  catch-up's mode and that it goes to a follower linked to the leader,
  each write's answer following the decision that ended it, and that a
  displaced leader healed with entries above HW resends them to every
  peer, from one past the HW it applied, and that a replica of a newer
  epoch fences them; Raft: every node's log terms, snapshot and commit
  index, each conflict hint as the rejecting log gives it, each
  catch-up's mode). Every refusal, failure and unknown outcome must give
  its reason (a read blocked with an empty reason is a broken answer),
  and a blocked read completes *failed* rather than being refused at
  submission. Last, in one run in 4 (by seed) that recovered, a lease
  lapses as the protocol promises: the leader, cut off from every peer
  for its lease (ISR: `lease_duration`, when `min.insync.replicas` is
  above 1), serves no lease read.
- **recovers**: with every fault healed and every node running, the group
  quiesces (`run_until_idle` within 400 ticks, answering the ticks it
  ran — Raft promises it only inside its timing assumption; where the
  steady state sends nothing while idle, the tick after that answer must
  change nothing); a write at the protocol's strongest ack
  level and a read at its strongest read level complete *done* — retried,
  as a client would, while the protocol's recovery bound has not passed
  (an election may still be settling) — unless the protocol states why it
  cannot serve, or that the network breaks its assumptions (counted as
  `offline at the end`); then, within the bound
  again, every node's `LOCAL` read of the probe key answers the probe (the
  replicas converge: a follower that never learns the commit point, or
  whose log diverged for good, fails); a lease read (the ISR chapter's) is
  served at the leader and refused everywhere else; where the protocol
  states a steady state for the schedule's network (on a network that
  loses, duplicates, reorders and stalls nothing: Raft inside its timing
  assumption, ISR inside its lag assumption), the converged group sends
  no more than its heartbeats while idle (ISR: nothing), acknowledges a
  write and serves a read within one round trip each (ISR: a write in
  one delay, a read at once), a write costing no more than an append and
  its answer per follower beyond the idle chatter (ISR: an append per
  follower; on a fixed delay), and — Raft with PreVote
  — keeps its leader when a follower cut
  off for three election timeouts rejoins; last, a failover to a named
  follower makes it lead (Raft: a leadership transfer; retried up to 5
  times, as an operator would on a lossy network).
- **available**: while the faults in force are ones the protocol claims to
  tolerate (e.g. Raft: a majority up and linked, with delays inside its
  timing assumption) and have been for its recovery bound, every operation
  sent to the leader completes *done*. Schedules rarely leave a fault alone
  that long, so every run that recovered ends with one on purpose: its
  last follower crashes and, when the protocol tolerates that, a write at
  the strongest level submitted once the recovery bound has passed must
  complete *done*, and so must the same write through the blocking
  `client_write` (a commit rule that waits for every replica fails it). A
  LINEARIZABLE read the protocol says, as it is served, that it refuses by
  design must not be served.
- `wal … sync_standby_1`, `first_1` (`FIRST 1 (standby-1, standby-2)`) and
  `any_1` (`ANY 1 (standby-1, standby-2)`): one confirmation commits, so a
  standby may lack an acknowledged commit (a cut kept it away), and failing
  over to exactly that standby loses it — PostgreSQL lets you promote any
  standby and leaves picking the most advanced one to the operator. 200
  schedules do not line the cut and that failover up (the first seed that
  does is 610), so these rows run at least 1,000 however few `--schedules`
  asks for.
- `wal … sync_standby_all` (`FIRST 2 (standby-1, standby-2)`,
  `synchronous_commit = on`): every standby failover can promote flushed
  each acknowledged commit, and durable holds. After a failover the
  promoted standby is still listed and a primary never confirms its own
  commit, so QUORUM commits wait: PostgreSQL does the same until the
  operator edits `synchronous_standby_names` (recovers: `offline at the
  end`). `remote_apply` (the same, waiting until the standbys have
  replayed, with a 2-tick `recovery_min_apply_delay`) holds too.
- `wal … remote_write` (`sync_standby_all` with `synchronous_commit =
  remote_write`): a standby confirms on receipt, before its fsync, so a
  power loss on it followed by a failover to it loses the commit. That
  needs a power loss, a restart and a failover to the same standby in a
  row, which 3 of the first 5,000 seeds line up, so these two rows run
  5,000 schedules: the loss shrinks to 5 steps, and the same steps keep
  the write with `on` (replay it as
  `wal.quorum.leader.sync_standby_all-s3895-7.12.14.184.214`).
- `async … wait_1`: a LEADER write counts as acknowledged only once
  `WAIT 1` returned ≥ 1 (a replica sent `REPLCONF ACK` for its offset).
  It is still not durable: failing over to a replica that had not
  acknowledged (e.g. one a cut link kept the write from) loses it, and so
  does a primary power loss that restarts with an empty data set its
  replicas then copy. `async … min_replicas_1` (`min-replicas-to-write 1`,
  max lag 2 ticks) only shortens the window in which a cut-off primary
  acknowledges writes; it is not durable either.
- `isr … unclean_election` (`unclean.leader.election.enable`): when no
  in-sync replica is alive the controller elects an out-of-sync one, so the
  partition is never offline at the end, and ALL_ISR writes it lacks are
  lost — the counterexample. With the setting off (the default rows) those
  runs end offline and ALL_ISR stays durable.
- `isr … linearizable`: the chapter's LINEARIZABLE read fails at once
  (`read_blocked`, guard `above high watermark`) while the leader holds an
  entry above the high watermark — a write still in flight — instead of
  waiting for it to commit, even with no fault in force. A client must
  retry; Kafka itself offers no linearizable read. The protocol states
  that refusal from its own state (`read_refused_by_design`: the leader's
  log end is above HW as the read is served), and *available* excuses
  exactly that one; a LINEARIZABLE read refused for any other reason (an
  ISR below min.insync, an expired lease) while the faults are tolerated
  still counts against it.
- `isr … datagram`: the same ISR protocol on datagrams (loss,
  duplication, reordering) instead of the TCP-like streams Kafka
  replicates over. The chapter's catch-up messages carry no sequence a
  follower could check, so an old catch-up delivered after a newer one
  (datagrams reorder) makes an ISR member truncate an entry it had
  acknowledged, leaving it below the high watermark: the invariants break,
  as they may — the protocol's guarantees are claimed on its own transport
  only (replay the counterexample to see the late `isr_catch_up`). A
  catch-up is also sent once and never re-sent, so a dropped one leaves a
  follower out of the ISR for good: *recovers* fails (the ALL_ISR probe is
  refused below min.insync) — and datagram delays vary, so a catch-up
  from a deposed leader can arrive after its successor's and truncate an
  acknowledged entry: *linearizable* fails too.
- `isr … fetch_kip101`: KIP-101's epoch-based truncation still lets two
  logs diverge when leadership changes fast (two leaders in a row append
  at the same offset, and the follower's OffsetsForLeaderEpoch answer
  keeps its own record): the history KIP-279 fixed — see
  `docs/kafka-ladder.md`.
- `raft …`: without PreVote, a node that reaches the majority but no
  longer hears the leader (a one-way cut) deposes every leader with
  higher terms, so availability is judged only while the nodes outside
  the majority cannot send to it; with no leader on a network outside
  Raft's timing assumption (a heartbeat round not shorter than the lowest
  election timeout) recovery is not promised (`offline at the end`).
  Raft's liveness is probabilistic even inside it: elections can split
  again and again, so its recovery bound is a measured definition, six of
  the highest election timeout. With three, 2 of 2,000 schedules of
  `raft.quorum.local.default` (seed 1370: one node down, the other two
  splitting terms 1–3 and a vote reply dropped) outlast it; with six, no
  row of 20,000 schedules does.
- The heals and restarts before the final reads are nemesis moves too:
  an operation in flight when they start is not judged for availability
  (a Raft node healed with a higher term deposes the leader).
- `isr` (the chapter's model, every row but `fetch_*`): the controller
  elects a new leader only on a failover, so a leader that is down, or
  restarted without the committed prefix (a power loss), is a fault the
  protocol does not tolerate until an operator fails over.
- LOCAL and LEADER reads are not linearizable in any protocol: a follower
  lags, and a leader cut off or newly elected (Raft, before it commits an
  entry of its term) answers from its own state.
";

/// A plain table for a terminal.
fn plain(verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    for (name, three) in rows(verdicts) {
        let _ = writeln!(out, "{}", name.replace(" | ", " "));
        for v in three {
            // The replay command on its own line, so a 100-column terminal
            // does not wrap it.
            match (&v.status, &v.counterexample) {
                (Status::Violated, Some(cx)) => {
                    let _ = writeln!(
                        out,
                        "    {:<13} violated in {} of {}: {} steps\n      {} explore --replay {}",
                        v.property.name(),
                        v.violations,
                        v.schedules,
                        cx.steps,
                        explore::command(),
                        cx.replay
                    );
                }
                _ => {
                    let _ = writeln!(out, "    {:<13} {}", v.property.name(), cell(v));
                }
            }
        }
    }
    out
}

fn json(verdicts: &[Verdict]) -> serde_json::Value {
    serde_json::json!({ "verdicts": verdicts.iter().map(crate::merge_cmd::verdict_json).collect::<Vec<_>>() })
}

/// `--replay ID [--setting S]`: the minimal schedule, its history as a
/// timeline, and the trace — with `--setting`, the same schedule on the
/// row of setting `S` of the id's protocol and levels (a counterexample of
/// one rung of the Kafka ladder run on the next).
fn replay(
    text: &str,
    setting: Option<&str>,
    diagram: Option<&PathBuf>,
    state_at: Option<StateAt>,
) -> Result<String, Stop> {
    let run = || match setting {
        None => replay_id(text),
        Some(s) => replay_on(text, s),
    };
    let replayed = if state_at.is_some() {
        labs::recording_states(run)?
    } else {
        run()?
    };
    if let Some(path) = diagram {
        std::fs::write(path, replayed.diagram())
            .map_err(|e| Failed(format!("cannot write {}: {e}", path.display())))?;
        output::note(&format!("wrote {}", path.display()));
    }
    let mut out = describe(&replayed.id, &replayed.schedule, &replayed.report);
    if let Some(at) = state_at {
        out.push_str(&state_section(&replayed.report, at)?);
    }
    Ok(out)
}

/// `## state at tick T`: every node's state line in force at that tick.
fn state_section(report: &explore::RunReport, at: StateAt) -> Result<String, Stop> {
    let group = &report.group;
    let Some(log) = group.state_log() else {
        return Err(Failed(format!(
            "{} records no state lines",
            group.summary().protocol
        )));
    };
    let end = group.now();
    let tick = match at {
        StateAt::End => end,
        StateAt::Tick(t) if t > end => {
            return Err(Usage(format!(
                "--at {t}: the run ended at tick {end} (its state then: --state)"
            )));
        }
        StateAt::Tick(t) => t,
    };
    let lines = log.at(tick);
    let width = lines
        .iter()
        .map(|s| s.node.as_str().len())
        .max()
        .unwrap_or(0);
    let mut out = format!("\n## state at tick {tick}\n");
    for state in lines {
        let _ = writeln!(out, "  {:<width$}  {}", state.node.as_str(), state.line());
    }
    Ok(out)
}

/// One schedule run again from its replay id.
pub struct Replayed {
    /// The id it was replayed from.
    pub id: ReplayId,
    /// The schedule the id names (only the kept steps).
    pub schedule: Schedule,
    /// What the run did: its log, history, checks and group (with the trace).
    pub report: RunReport,
}

impl Replayed {
    /// The run's space-time diagram (SVG), titled `counterexample ID`.
    pub fn diagram(&self) -> String {
        diagram::render_svg(
            self.report.group.trace(),
            &diagram::DiagramOptions::titled(format!("counterexample {}", self.id)),
        )
    }
}

/// Parses `text` as a replay id and runs the schedule it names on the row
/// of the same protocol and levels with `setting` (schedules are drawn from
/// the protocol's knobs and transport, so a seed names the same schedule on
/// every row of the protocol that shares them).
pub fn replay_on(text: &str, setting: &str) -> Result<Replayed, Stop> {
    let mut id: ReplayId = text.parse().map_err(Usage)?;
    let row = id
        .config
        .rsplit_once('.')
        .map_or(id.config.as_str(), |(row, _)| row);
    id.config = format!("{row}.{setting}");
    replay_id(&id.to_string())
}

/// Parses `text` as a replay id, finds its configuration and runs the
/// schedule it names again.
pub fn replay_id(text: &str) -> Result<Replayed, Stop> {
    let id: ReplayId = text.parse().map_err(Usage)?;
    let not_found = |e: labs::GroupError| match e {
        labs::GroupError::Config { ref setting, .. } if setting == "replay" => Usage(e.to_string()),
        other => Failed(other.to_string()),
    };
    let config = labs::explore_configs()
        .into_iter()
        .chain(labs::planted_configs().into_iter().map(|(_, c)| c))
        .find(|c| c.key() == id.config)
        .ok_or_else(|| {
            Usage(format!(
                "no configuration `{}` (see `cargo xtask explore --json`)",
                id.config
            ))
        })?
        .with_knob_values(&id.knobs)
        .map_err(|e| Usage(e.to_string()))?;
    let (schedule, report) = explore::replay(&config, &id).map_err(not_found)?;
    Ok(Replayed {
        id,
        schedule,
        report,
    })
}

/// What follows every schedule's steps.
pub const AFTER_SCHEDULE: &str =
    "then: heal and restart every node, quiesce, read every key, probe recovery, crash a follower";

fn describe(id: &ReplayId, schedule: &Schedule, report: &RunReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "replay {id}: {} steps\n", schedule.steps.len());
    let _ = writeln!(out, "## profile (drawn from seed {})", schedule.seed);
    let _ = writeln!(out, "  {}\n", schedule.profile);
    let _ = writeln!(out, "## schedule (tick each step started at)");
    for line in &report.log {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(out, "  {AFTER_SCHEDULE}\n");
    let _ = writeln!(out, "## verdict");
    for p in Property::ALL {
        let _ = writeln!(out, "  {:<13} {}", p.name(), report.check(p));
    }
    let _ = writeln!(
        out,
        "\n## history (ticks; [ submitted, ] completed, ? unknown, x failed)"
    );
    out.push_str(&timeline(&report.history));
    let _ = writeln!(out, "\n## trace");
    out.push_str(&report.group.trace().to_text());
    out
}

/// One row per operation, a bar from submission to completion over the
/// ticks the history spans (`[` submitted, `]` completed, `?` unknown, `x`
/// failed), then the ticks the columns stand for.
pub fn timeline(history: &[HistoryOp]) -> String {
    let mut ticks: Vec<u64> = history
        .iter()
        .flat_map(|op| [Some(op.call_tick), op.ret_tick])
        .flatten()
        .collect();
    ticks.sort_unstable();
    ticks.dedup();
    let col = |t: u64| ticks.binary_search(&t).unwrap_or_else(|i| i);
    let width = ticks.len().max(1);
    let mut out = String::new();
    for op in history {
        let start = col(op.call_tick);
        let end = op.ret_tick.map_or(width - 1, col);
        let mut bar = vec![' '; width];
        for c in bar.iter_mut().take(end + 1).skip(start) {
            *c = '-';
        }
        bar[start] = '[';
        bar[end] = match op.status.map(|s| s.name()) {
            Some("done") => ']',
            Some("failed") => 'x',
            _ => '?',
        };
        let bar: String = bar.into_iter().collect();
        let _ = writeln!(out, "  {bar}  {}", op.describe());
    }
    let _ = writeln!(
        out,
        "  ticks: {}",
        ticks
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    );
    out
}
