//! A debugger path as a scenario file: the row's group (its settings, the
//! model checker's seed), `steer until=30` (the checker's warm-up, then
//! the network held), a directive per step — `deliver from= to= label=`,
//! `fire node=`, `submit write …`, `crash node=`, … — and `state` at the
//! end. `cargo xtask run FILE --rewrite` fills in what each prints, and
//! the run goes through exactly the states the debugger showed.

use std::fmt::Write as _;

use explore::debugger::Session;
use explore::{NodeRef, Step};

/// The scenario file of state `at`'s path, or why there is none. A session
/// that starts from a scenario's part (`prefix`: that part's directives)
/// exports the part, `steer`, then the path.
pub fn scenario(session: &Session<'_>, at: usize, prefix: Option<&str>) -> Result<String, String> {
    if session.is_recorded() {
        return Err(
            "a recorded run of the sweep is not a scenario file: its network delivered by \
             itself, at random (its replay id reproduces it, with `explore --replay`)"
                .into(),
        );
    }
    let config = session.config();
    let path = session.path(at).map_err(|e| e.to_string())?;
    let mut out = String::new();
    match prefix {
        Some(part) => {
            let _ = writeln!(
                out,
                "# A path of `{cmd} debug --scenario`: the part, then the steps.\n\
                 # `{cmd} run FILE --rewrite` fills in what each directive prints.\n",
                cmd = explore::command()
            );
            out.push_str(part);
            let _ = writeln!(out, "steer\n----\n");
        }
        None => out.push_str(&header(session, at)?),
    }
    // Walk the path through the session's states, to name each message.
    let mut state = 0;
    for step in &path {
        let view = session.view(state).map_err(|e| e.to_string())?;
        let name = |n: &NodeRef| match n {
            NodeRef::At(i) => view
                .names
                .get(usize::from(*i))
                .cloned()
                .unwrap_or_else(|| format!("#{i}")),
            other => other.to_string(),
        };
        let held = |act: &str, pick: Option<&replication::HeldMessage>| {
            pick.map(|h| {
                let index = view
                    .held
                    .iter()
                    .filter(|o| o.from == h.from && o.to == h.to && o.label == h.label)
                    .position(|o| o.id == h.id)
                    .unwrap_or(0);
                let mut line = format!(
                    "{act} from={} to={} label={}",
                    view.names[h.from], view.names[h.to], h.label
                );
                if index > 0 {
                    let _ = write!(line, " index={index}");
                }
                line
            })
        };
        let line = match step {
            Step::Deliver(n) => held(
                "deliver",
                view.held
                    .iter()
                    .filter(|h| h.deliverable)
                    .nth(usize::from(*n)),
            ),
            Step::Drop(n) => held("drop", view.held.get(usize::from(*n))),
            Step::Duplicate(n) => held("duplicate", view.held.get(usize::from(*n))),
            Step::Wait(1) => Some("tick".to_owned()),
            Step::Fire(n) => Some(format!("fire node={}", name(n))),
            Step::Write { client, key, value } => Some(format!(
                "submit write key=k{key} value=v{value} level={} as=w{client}",
                config.ack
            )),
            Step::Read { client, key } => {
                let node = if config.read == replication::ReadLevel::Local {
                    format!(
                        " node={}",
                        view.names[usize::from(*client) % view.names.len()]
                    )
                } else {
                    String::new()
                };
                Some(format!(
                    "submit read key=k{key} level={}{node} as=r{client}",
                    config.read
                ))
            }
            Step::WriteAt {
                client,
                value,
                level,
            } => Some(format!(
                "submit write key=k0 value=v{value} level={level} as=w{client}"
            )),
            Step::ReadVia { client, node } => Some(format!(
                "submit read key=k0 level={} node={} as=r{client}",
                config.read,
                name(node)
            )),
            Step::ReadAt { client, level } => {
                let node = if *level == replication::ReadLevel::Local {
                    format!(
                        " node={}",
                        view.names[usize::from(*client) % view.names.len()]
                    )
                } else {
                    String::new()
                };
                Some(format!(
                    "submit read key=k0 level={level}{node} as=r{client}"
                ))
            }
            Step::Crash(n, false) => Some(format!("crash node={}", name(n))),
            Step::Crash(n, true) => Some(format!("crash node={} power-loss", name(n))),
            Step::Restart(n) => Some(format!("restart node={}", name(n))),
            Step::Isolate(n) => Some(format!("isolate node={}", name(n))),
            Step::Heal(n) => Some(format!("heal node={}", name(n))),
            Step::Slow(n, true) => Some(format!("slow node={}", name(n))),
            Step::Slow(n, false) => Some(format!("slow node={} off", name(n))),
            Step::Failover(None) => Some("failover".to_owned()),
            Step::Failover(Some(n)) => Some(format!("failover node={}", name(n))),
            Step::Cut(a, b) => Some(format!("cut from={} to={}", name(a), name(b))),
            Step::Uncut(a, b) => Some(format!("restore from={} to={}", name(a), name(b))),
            _ => None,
        }
        .ok_or_else(|| format!("`{step}` has no scenario directive"))?;
        let _ = writeln!(out, "# {step}\n{line}\n----\n");
        state = session
            .states()
            .get(state)
            .and_then(|s| {
                s.children
                    .iter()
                    .copied()
                    .find(|&c| session.states()[c].step.as_ref() == Some(step))
            })
            .ok_or_else(|| format!("`{step}` is not on the session's tree"))?;
    }
    out.push_str("state\n----\n");
    Ok(out)
}

/// The first two directives of a checker path's file: the row's group
/// (its settings, the checker's seed) and the checker's warm-up.
fn header(session: &Session<'_>, at: usize) -> Result<String, String> {
    let config = session.config();
    let key = config.key();
    let parts: Vec<&str> = key.split('.').collect();
    let registry = labs::registry();
    let protocol = registry
        .protocols()
        .iter()
        .find(|p| p.name() == config.protocol)
        .ok_or_else(|| format!("no protocol {} registered", config.protocol))?;
    let registration = protocol.registration();
    let row = registration
        .explorer_rows()
        .into_iter()
        .find(|r| r.ack == config.ack && r.read == config.read && r.setting == config.setting)
        .ok_or_else(|| format!("no row {key}"))?;
    if row.transport.is_some_and(|t| t != registration.transport()) {
        return Err(format!(
            "{key} runs on another transport than {}'s own, which a scenario file cannot set",
            config.protocol
        ));
    }
    let mut out = String::new();
    let replay = session.replay_id(at).map_err(|e| e.to_string())?;
    let _ = writeln!(
        out,
        "# A path of `{cmd} debug`, step by step: {replay}\n\
         # `{cmd} run FILE --rewrite` fills in what each directive prints.",
        cmd = explore::command()
    );
    let mut config_line = format!(
        "config protocols={} seed={}",
        config.protocol,
        explore::model::SEED
    );
    for (k, v) in row.settings.pairs() {
        if k != "seed" {
            let _ = write!(config_line, " {k}={v}");
        }
    }
    if let Some(bug) = parts.get(4) {
        let _ = write!(config_line, " planted={bug}");
    }
    let _ = writeln!(out, "{config_line}\n----\n");
    let _ = writeln!(out, "steer until={}\n----\n", explore::model::WARM_UP);
    Ok(out)
}
