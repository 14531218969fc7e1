//! The model checker's steps as short codes, for replay ids
//! (`isr.all_isr.linearizable.default-m-w0.d0.t.p2`): `d N` deliver the
//! N-th deliverable held message, `x N` drop, `u N` duplicate the N-th
//! held one, `t` one tick, `w C` client C writes `k0 = v(C+1)`, `r C`
//! client C reads `k0`, `v C n N` client C reads `k0` at node N (one that
//! may be deposed), `c N` / `p N` crash node N (process / power
//! loss), `s N` restart it, `i N` isolate it, `h N` heal it, `e N` fire
//! node N's first armed timer, `f` the protocol's failover (`f N`: to node
//! N), `l N` / `q N` make node N slow / not slow, `k AB` / `o AB` cut /
//! restore the one-way link from node A to node B (single digits: at most
//! 9 nodes), `W C L` / `R C L` client C writes / reads at level L (`n`
//! none, `l` leader, `q` quorum, `a` all_isr; `o` local, `l` leader, `z`
//! linearizable) — the debugger's moves; the checker's alphabet has none
//! of them.

/// The seed of every checked run: it seeds the group's rng (Raft's
/// election timeouts). 1, so that no end-of-run sample (trace check, lease
/// probe) runs: the checker judges every state, the sample is the sweep's.
pub const MODEL_SEED: u64 = 1;

use crate::schedule::{NodeRef, Step};

/// The code of `step`, or `None` for a step outside the checker's
/// alphabet.
pub(crate) fn encode(step: &Step) -> Option<String> {
    let at = |n: &NodeRef| match n {
        NodeRef::At(i) => Some(*i),
        _ => None,
    };
    Some(match step {
        Step::Deliver(n) => format!("d{n}"),
        Step::Drop(n) => format!("x{n}"),
        Step::Duplicate(n) => format!("u{n}"),
        Step::Wait(1) => "t".to_string(),
        Step::Write {
            client,
            key: 0,
            value,
        } if *value == u32::from(*client) + 1 => format!("w{client}"),
        Step::Read { client, key: 0 } => format!("r{client}"),
        Step::ReadVia { client, node } => format!("v{client}n{}", at(node)?),
        Step::Crash(n, false) => format!("c{}", at(n)?),
        Step::Crash(n, true) => format!("p{}", at(n)?),
        Step::Restart(n) => format!("s{}", at(n)?),
        Step::Isolate(n) => format!("i{}", at(n)?),
        Step::Heal(n) => format!("h{}", at(n)?),
        Step::Failover(None) => "f".to_string(),
        Step::Failover(Some(n)) => format!("f{}", at(n)?),
        Step::Fire(n) => format!("e{}", at(n)?),
        Step::Slow(n, true) => format!("l{}", at(n)?),
        Step::Slow(n, false) => format!("q{}", at(n)?),
        Step::WriteAt {
            client,
            value,
            level,
        } if *value == u32::from(*client) + 1 => format!("W{client}{}", ack_letter(*level)),
        Step::ReadAt { client, level } => format!("R{client}{}", read_letter(*level)),
        Step::Cut(a, b) if at(a)? < 10 && at(b)? < 10 => format!("k{}{}", at(a)?, at(b)?),
        Step::Uncut(a, b) if at(a)? < 10 && at(b)? < 10 => format!("o{}{}", at(a)?, at(b)?),
        _ => return None,
    })
}

/// The step of `code`, or `None` when it is not one.
pub(crate) fn decode(code: &str) -> Option<Step> {
    let (letter, rest) = code.split_at_checked(1)?;
    let number = || rest.parse::<u16>().ok();
    let node = || rest.parse::<u8>().ok().map(NodeRef::At);
    let none = rest.is_empty();
    Some(match letter {
        "d" => Step::Deliver(number()?),
        "x" => Step::Drop(number()?),
        "u" => Step::Duplicate(number()?),
        "t" if none => Step::Wait(1),
        "w" => {
            let client = rest.parse::<u8>().ok()?;
            Step::Write {
                client,
                key: 0,
                value: u32::from(client) + 1,
            }
        }
        "r" => Step::Read {
            client: rest.parse().ok()?,
            key: 0,
        },
        "v" => {
            let (client, node) = rest.split_once('n')?;
            Step::ReadVia {
                client: client.parse().ok()?,
                node: NodeRef::At(node.parse().ok()?),
            }
        }
        "c" => Step::Crash(node()?, false),
        "p" => Step::Crash(node()?, true),
        "s" => Step::Restart(node()?),
        "i" => Step::Isolate(node()?),
        "h" => Step::Heal(node()?),
        "f" if none => Step::Failover(None),
        "f" => Step::Failover(Some(node()?)),
        "e" => Step::Fire(node()?),
        "l" => Step::Slow(node()?, true),
        "q" => Step::Slow(node()?, false),
        "W" | "R" => {
            let (client, level) = rest.split_at_checked(rest.len().checked_sub(1)?)?;
            let client: u8 = client.parse().ok()?;
            if letter == "W" {
                Step::WriteAt {
                    client,
                    value: u32::from(client) + 1,
                    level: replication::AckLevel::ALL
                        .into_iter()
                        .find(|l| ack_letter(*l) == level)?,
                }
            } else {
                Step::ReadAt {
                    client,
                    level: replication::ReadLevel::ALL
                        .into_iter()
                        .find(|l| read_letter(*l) == level)?,
                }
            }
        }
        "k" | "o" => {
            let digits: Vec<u8> = rest
                .chars()
                .map(|c| c.to_digit(10).and_then(|d| u8::try_from(d).ok()))
                .collect::<Option<_>>()?;
            let [a, b] = digits[..] else { return None };
            let (a, b) = (NodeRef::At(a), NodeRef::At(b));
            if letter == "k" {
                Step::Cut(a, b)
            } else {
                Step::Uncut(a, b)
            }
        }
        _ => return None,
    })
}

/// An ack level's letter in a code.
fn ack_letter(level: replication::AckLevel) -> &'static str {
    match level {
        replication::AckLevel::None => "n",
        replication::AckLevel::Leader => "l",
        replication::AckLevel::Quorum => "q",
        replication::AckLevel::AllIsr => "a",
    }
}

/// A read level's letter in a code.
fn read_letter(level: replication::ReadLevel) -> &'static str {
    match level {
        replication::ReadLevel::Local => "o",
        replication::ReadLevel::Leader => "l",
        replication::ReadLevel::Linearizable => "z",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_reads_back_as_its_step() {
        for code in [
            "d0", "x3", "u1", "t", "w2", "r5", "c0", "p2", "s1", "i0", "h2", "f", "e1", "f2", "l1",
            "q0", "v1n0", "v12n2",
        ] {
            let step = decode(code).unwrap_or_else(|| panic!("{code} decodes"));
            assert_eq!(encode(&step).as_deref(), Some(code));
        }
        for bad in [
            "", "z1", "d", "t1", "v1", "v1n", "vn2", "v1nX", "cX", "fX", "e", "l", "k1", "k123",
            "oX1", "W1", "Wxl", "R1x",
        ] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
