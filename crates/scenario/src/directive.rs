//! The directives a scenario may use, and how each one's words are
//! checked: required and optional `key=value` arguments, bare flags, and
//! nothing else.

use bytes::Bytes;
use replication::{NodeId, Registry};

use crate::config::Config;
use crate::levels::{AckRef, ReadRef};
use crate::nodes::NodeRef;

/// The most ticks one `tick` or `run-until-idle` may ask for.
pub const MAX_TICKS: u64 = 1_000_000;

/// The most writes one `write … repeat=N` may make.
pub const MAX_REPEAT: u64 = 10_000;

/// Which fields `summary` prints.
pub const SUMMARY_FIELDS: [&str; 6] = ["tick", "leader", "alive", "role", "offset", "data"];

/// A client operation as written in a scenario (levels and node not yet
/// resolved against a protocol).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpSpec {
    /// `write key= value= level= [node=]`.
    Write {
        /// The key.
        key: Bytes,
        /// The value.
        value: Bytes,
        /// The level, by name or alias.
        level: AckRef,
        /// The node the write is sent to; `None` = the leader.
        node: Option<NodeRef>,
    },
    /// `read key= level= [node=]`.
    Read {
        /// The key.
        key: Bytes,
        /// The level, by name or alias.
        level: ReadRef,
        /// The node asked; `None` = the protocol's default.
        node: Option<NodeRef>,
    },
}

/// One directive of a scenario file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// `config [setting=value …]`: a fresh group (see [`Config`]).
    Config(Config),
    /// `write …` / `read …`: a blocking operation.
    Blocking(OpSpec),
    /// `write … repeat=N`: N blocking writes of `VALUE1` … `VALUEN`,
    /// stopping at the first one not acknowledged.
    Repeat {
        /// The write (its value is the prefix).
        op: OpSpec,
        /// How many writes.
        times: u64,
    },
    /// `submit write|read … [as=NAME]`: start without waiting.
    Submit {
        /// The operation.
        op: OpSpec,
        /// The name `await` uses; `None` = the op id (`op-3`).
        name: Option<String>,
    },
    /// `await op=NAME`.
    Await {
        /// The `as=` name of the operation.
        op: String,
    },
    /// `completions`: every completion not yet printed.
    Completions,
    /// `tick [n=1]`.
    Tick(u64),
    /// `run-until-idle [max=1000]`.
    RunUntilIdle(u64),
    /// `isolate node=`.
    Isolate(NodeRef),
    /// `heal node=`.
    Heal(NodeRef),
    /// `cut from= to=`.
    Cut(NodeRef, NodeRef),
    /// `restore from= to=`.
    Restore(NodeRef, NodeRef),
    /// `crash node= [power-loss]`.
    Crash(NodeRef, bool),
    /// `restart node=`.
    Restart(NodeRef),
    /// `fsync node=`.
    Fsync(NodeRef),
    /// `slow node= [off]`.
    Slow(NodeRef, bool),
    /// `failover [node=]`.
    Failover(Option<NodeRef>),
    /// `lease-read key= node=`: isr's `lease_read` at `node`.
    LeaseRead {
        /// The key.
        key: Bytes,
        /// The node the read is addressed to.
        node: NodeRef,
    },
    /// `probe node=`: the node's role, applied offset and catch-up mode.
    Probe(NodeRef),
    /// `fenced`: old-lineage messages the protocol has rejected so far.
    Fenced,
    /// `converged`: every alive node holds the leader's data and offset.
    Converged,
    /// `gate node= write=NAME`: why `node` did or did not gate the
    /// write recorded as `NAME`.
    Gate {
        /// The replica asked about.
        node: NodeRef,
        /// The `as=` name of an earlier `write` since the last `config`.
        write: String,
    },
    /// `summary [fields=a,b]`.
    Summary(Vec<String>),
    /// `state [fields=HW,ISR]`: every node's state line in the protocol's
    /// own words (all its fields, or those labelled).
    State(Vec<String>),
    /// `trace [kinds=a,b]`: empty = every kind.
    Trace(Vec<String>),
    /// `steer [until=T]`: tick until tick T, then hold the network (and
    /// Raft's timers): from now on a message is delivered only by
    /// `deliver`, and a Raft timer fires only by `fire` (the model
    /// checker's and the debugger's steered run).
    Steer(u64),
    /// `deliver|drop|duplicate from= to= [label=] [index=K]`: the K-th
    /// held message on the link (with that label), delivered at the next
    /// tick (which then passes), dropped, or held twice.
    Held {
        /// What to do with it.
        act: HeldAct,
        /// The sender.
        from: NodeRef,
        /// The receiver.
        to: NodeRef,
        /// The message's label (`append_entries`, `isr_append`, …).
        label: Option<String>,
        /// Which of the matching held messages, in send order.
        index: usize,
    },
    /// `fire node=`: the node's first armed timer made due, and the next
    /// tick passes.
    Fire(NodeRef),
}

/// What `deliver`, `drop` and `duplicate` do with a held message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldAct {
    /// Deliver it at the next tick, and let that tick pass.
    Deliver,
    /// Drop it.
    Drop,
    /// Hold a second copy (datagram transports).
    Duplicate,
}

/// The words after the directive name: `key=value` pairs and bare flags,
/// each taken at most once; whatever is left over is an error.
struct Args<'r> {
    pairs: Vec<(String, String)>,
    flags: Vec<String>,
    /// The node ids a literal may name.
    known: &'r [NodeId],
    /// The highest `follower-N`.
    followers: usize,
}

impl<'r> Args<'r> {
    fn new(words: &[String], known: &'r [NodeId], followers: usize) -> Result<Args<'r>, String> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        let mut flags = Vec::new();
        for word in words {
            match word.split_once('=') {
                Some((k, v)) => {
                    if pairs.iter().any(|(seen, _)| seen == k) {
                        return Err(format!("argument `{k}` given twice"));
                    }
                    pairs.push((k.to_owned(), v.to_owned()));
                }
                None => flags.push(word.clone()),
            }
        }
        Ok(Args {
            pairs,
            flags,
            known,
            followers,
        })
    }

    fn take(&mut self, key: &str) -> Option<String> {
        let at = self.pairs.iter().position(|(k, _)| k == key)?;
        Some(self.pairs.remove(at).1)
    }

    fn need(&mut self, directive: &str, key: &str) -> Result<String, String> {
        self.take(key)
            .ok_or_else(|| format!("`{directive}` needs `{key}=`"))
    }

    fn flag(&mut self, name: &str) -> bool {
        let at = self.flags.iter().position(|f| f == name);
        at.map(|i| self.flags.remove(i)).is_some()
    }

    /// A tick count, at most [`MAX_TICKS`].
    fn ticks(&mut self, key: &str, default: u64) -> Result<u64, String> {
        let n = match self.take(key) {
            None => default,
            Some(v) => v
                .parse()
                .map_err(|_| format!("`{key}={v}`: not a whole number"))?,
        };
        if n > MAX_TICKS {
            return Err(format!("`{key}={n}`: at most {MAX_TICKS} ticks"));
        }
        Ok(n)
    }

    fn node(&mut self, directive: &str, key: &str) -> Result<NodeRef, String> {
        NodeRef::parse(&self.need(directive, key)?, self.known, self.followers)
    }

    fn maybe_node(&mut self, key: &str) -> Result<Option<NodeRef>, String> {
        let (known, followers) = (self.known, self.followers);
        self.take(key)
            .map(|n| NodeRef::parse(&n, known, followers))
            .transpose()
    }

    fn list(&mut self, key: &str) -> Vec<String> {
        self.take(key).map_or_else(Vec::new, |v| {
            v.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
    }

    /// Fails on any argument or flag not taken, naming the allowed ones.
    fn done(self, directive: &str, allowed: &str) -> Result<(), String> {
        if let Some((k, _)) = self.pairs.first() {
            return Err(format!(
                "unknown argument `{k}` for `{directive}` (allowed: {allowed})"
            ));
        }
        if let Some(f) = self.flags.first() {
            return Err(format!(
                "unknown argument `{f}` for `{directive}` (allowed: {allowed})"
            ));
        }
        Ok(())
    }
}

fn op_spec(kind: &str, args: &mut Args<'_>, registry: &Registry) -> Result<OpSpec, String> {
    let key = Bytes::from(args.need(kind, "key")?);
    let node = args.maybe_node("node")?;
    match kind {
        "write" => Ok(OpSpec::Write {
            key,
            value: Bytes::from(args.need(kind, "value")?),
            level: AckRef::parse_in(&args.need(kind, "level")?, registry)?,
            node,
        }),
        _ => Ok(OpSpec::Read {
            key,
            level: ReadRef::parse_in(&args.need(kind, "level")?, registry)?,
            node,
        }),
    }
}

/// Every directive name, for error messages.
pub const DIRECTIVES: &str = "config, write, read, submit, await, completions, tick, \
     run-until-idle, isolate, heal, cut, restore, crash, restart, fsync, slow, failover, \
     lease-read, probe, fenced, converged, gate, summary, state, trace, steer, deliver, drop, \
     duplicate, fire";

/// Checks an `as=` name: at least one character, no comma.
fn label_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.contains(',') {
        return Err(format!(
            "`as={name}`: a name needs at least one character and no comma"
        ));
    }
    Ok(())
}

/// Parses one directive line, already split into words: the directive and
/// its `as=` label, if it records its answer under one (`submit`'s `as=`
/// names the operation instead and is kept in the directive). A literal
/// node id must be one of `known`, a `follower-N` at most `followers`.
pub(crate) fn parse_directive(
    words: &[String],
    registry: &Registry,
    known: &[NodeId],
    followers: usize,
) -> Result<(Directive, Option<String>), String> {
    let (name, rest) = words.split_first().ok_or("empty directive")?;
    let mut args = Args::new(rest, known, followers)?;
    let name = name.as_str();
    let label = if name == "submit" {
        None
    } else {
        args.take("as")
    };
    if let Some(l) = &label {
        label_name(l)?;
    }
    let (directive, allowed) = match name {
        "config" => (
            Directive::Config(Config::take(&mut args.pairs, registry)?),
            "",
        ),
        "write" => {
            let op = op_spec("write", &mut args, registry)?;
            let directive = match args.take("repeat") {
                None => Directive::Blocking(op),
                Some(n) => match n.parse::<u64>() {
                    Ok(times) if (1..=MAX_REPEAT).contains(&times) => {
                        Directive::Repeat { op, times }
                    }
                    _ => {
                        return Err(format!(
                            "`repeat={n}`: a whole number from 1 to {MAX_REPEAT}"
                        ));
                    }
                },
            };
            (directive, "key, value, level, node, repeat, as")
        }
        "read" => (
            Directive::Blocking(op_spec("read", &mut args, registry)?),
            "key, level, node, as",
        ),
        "submit" => {
            let kind = if args.flag("write") {
                "write"
            } else if args.flag("read") {
                "read"
            } else {
                return Err("`submit` needs `write` or `read` first".into());
            };
            let op = op_spec(kind, &mut args, registry)?;
            let name = args.take("as");
            if let Some(n) = &name {
                label_name(n)?;
            }
            (
                Directive::Submit { op, name },
                "write|read, key, value, level, node, as",
            )
        }
        "await" => (
            Directive::Await {
                op: args.need("await", "op")?,
            },
            "op",
        ),
        "completions" => (Directive::Completions, "none"),
        "tick" => (Directive::Tick(args.ticks("n", 1)?), "n"),
        "run-until-idle" => (Directive::RunUntilIdle(args.ticks("max", 1_000)?), "max"),
        "isolate" => (Directive::Isolate(args.node(name, "node")?), "node"),
        "heal" => (Directive::Heal(args.node(name, "node")?), "node"),
        "cut" => (
            Directive::Cut(args.node(name, "from")?, args.node(name, "to")?),
            "from, to",
        ),
        "restore" => (
            Directive::Restore(args.node(name, "from")?, args.node(name, "to")?),
            "from, to",
        ),
        "crash" => {
            let node = args.node(name, "node")?;
            (
                Directive::Crash(node, args.flag("power-loss")),
                "node, power-loss",
            )
        }
        "restart" => (Directive::Restart(args.node(name, "node")?), "node"),
        "fsync" => (Directive::Fsync(args.node(name, "node")?), "node"),
        "slow" => {
            let node = args.node(name, "node")?;
            (Directive::Slow(node, !args.flag("off")), "node, off")
        }
        "failover" => (Directive::Failover(args.maybe_node("node")?), "node, as"),
        "lease-read" => (
            Directive::LeaseRead {
                key: Bytes::from(args.need(name, "key")?),
                node: args.node(name, "node")?,
            },
            "key, node, as",
        ),
        "probe" => (Directive::Probe(args.node(name, "node")?), "node, as"),
        "fenced" => (Directive::Fenced, "as"),
        "converged" => (Directive::Converged, "as"),
        "gate" => (
            Directive::Gate {
                node: args.node(name, "node")?,
                write: args.need(name, "write")?,
            },
            "node, write, as",
        ),
        "summary" => {
            let fields = args.list("fields");
            if let Some(f) = fields
                .iter()
                .find(|f| !SUMMARY_FIELDS.contains(&f.as_str()))
            {
                return Err(format!(
                    "unknown summary field `{f}` (known: {}; a protocol's own fields, \
                     such as HW or ISR, are printed by `state fields={f}`)",
                    SUMMARY_FIELDS.join(", ")
                ));
            }
            (Directive::Summary(fields), "fields")
        }
        "state" => (Directive::State(args.list("fields")), "fields"),
        "steer" => (Directive::Steer(args.ticks("until", 0)?), "until"),
        "deliver" | "drop" | "duplicate" => {
            let act = match name {
                "deliver" => HeldAct::Deliver,
                "drop" => HeldAct::Drop,
                _ => HeldAct::Duplicate,
            };
            let from = args.node(name, "from")?;
            let to = args.node(name, "to")?;
            let label = args.take("label");
            let index = match args.take("index") {
                None => 0,
                Some(v) => v
                    .parse()
                    .map_err(|_| format!("`index={v}`: not a whole number"))?,
            };
            (
                Directive::Held {
                    act,
                    from,
                    to,
                    label,
                    index,
                },
                "from, to, label, index",
            )
        }
        "fire" => (Directive::Fire(args.node(name, "node")?), "node"),
        "trace" => (Directive::Trace(args.list("kinds")), "kinds"),
        other => {
            return Err(format!("unknown directive `{other}` (known: {DIRECTIVES})"));
        }
    };
    args.done(name, allowed)?;
    let labelled = matches!(
        directive,
        Directive::Blocking(_)
            | Directive::Repeat { .. }
            | Directive::Failover(_)
            | Directive::LeaseRead { .. }
            | Directive::Probe(_)
            | Directive::Fenced
            | Directive::Converged
            | Directive::Gate { .. }
    );
    if label.is_some() && !labelled {
        return Err(format!(
            "unknown argument `as` for `{name}` (allowed: {})",
            if allowed.is_empty() {
                "settings"
            } else {
                allowed
            }
        ));
    }
    Ok((directive, label))
}
