//! A run's state lines ([`StateLog`]) as diagram notes: at each tick a
//! node's line changed, what changed, compactly (`LEO 3 · HW 2`,
//! `ISR {1,3}`, `commit 4`), its whole line as the tooltip. Left out: the
//! lines as recording started, the role and its epoch / term / timeline /
//! generation (the diagram's own role notes say those), crashes (drawn as
//! the lane's crashed stretch), whom a node follows and a plain
//! `streaming` catch-up.

use diagram::StateNote;
use replication::{NodeState, StateLog};

/// Field labels the diagram already shows in its own notes.
const SHOWN_ELSEWHERE: [&str; 6] = ["epoch", "term", "gen", "TL", "follows", "psync"];

/// `{node-1,node-3}` as `{1,3}` when every name is one prefix and a
/// number; any other value as it is.
fn compact(value: &str) -> String {
    let Some(inner) = value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) else {
        return value.to_owned();
    };
    let names: Vec<&str> = inner.split(',').filter(|n| !n.is_empty()).collect();
    let split = |n: &str| -> Option<(String, String)> {
        let digits = n.len() - n.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        (digits > 0 && digits < n.len()).then(|| {
            (
                n[..n.len() - digits].to_owned(),
                n[n.len() - digits..].to_owned(),
            )
        })
    };
    let parts: Option<Vec<(String, String)>> = names.iter().map(|n| split(n)).collect();
    match parts {
        Some(parts) if !parts.is_empty() && parts.iter().all(|(p, _)| *p == parts[0].0) => {
            let numbers: Vec<&str> = parts.iter().map(|(_, n)| n.as_str()).collect();
            format!("{{{}}}", numbers.join(","))
        }
        _ => value.to_owned(),
    }
}

/// What changed from `before` to `now`, as `(label, shown)` pairs.
fn changed(before: &NodeState, now: &NodeState) -> Vec<(&'static str, String)> {
    let mut parts = Vec::new();
    if !before.alive && now.alive {
        parts.push(("up", "up".to_owned()));
    }
    for f in &now.fields {
        if SHOWN_ELSEWHERE.contains(&f.label)
            || before.field(f.label) == Some(f.value.as_str())
            || (f.label == "catch-up" && f.value == "streaming")
        {
            continue;
        }
        parts.push((f.label, format!("{} {}", f.label, compact(&f.value))));
    }
    for f in &before.fields {
        if !SHOWN_ELSEWHERE.contains(&f.label) && now.field(f.label).is_none() {
            parts.push((f.label, format!("{} –", f.label)));
        }
    }
    parts
}

/// The diagram notes of `log`: one per node and tick its line changed at,
/// saying each field's last value in the tick. A change to a crashed node
/// is not noted (the lane shows the crash, and a crash loses volatile
/// state): its restart is noted against its line while down.
pub fn state_notes(log: &StateLog) -> Vec<StateNote> {
    let mut notes: Vec<(StateNote, Vec<(&'static str, String)>)> = Vec::new();
    let mut before: Vec<NodeState> = Vec::new();
    for change in log.changes() {
        let now = &change.state;
        let Some(i) = before.iter().position(|b| b.node == now.node) else {
            before.push(now.clone());
            continue;
        };
        let parts = changed(&before[i], now);
        before[i] = now.clone();
        if !now.alive || parts.is_empty() {
            continue;
        }
        let title = format!("state at tick {}: {now}", change.tick);
        let node = now.node.to_string();
        let same = notes
            .iter_mut()
            .rev()
            .find(|(n, _)| n.node == node)
            .filter(|(n, _)| n.tick == change.tick);
        match same {
            Some((note, shown)) => {
                for (label, text) in parts {
                    match shown.iter_mut().find(|(l, _)| *l == label) {
                        Some(slot) => slot.1 = text,
                        None => shown.push((label, text)),
                    }
                }
                let at = |label: &str| now.fields.iter().position(|f| f.label == label);
                shown.sort_by_key(|(label, _)| (*label != "up", at(label).unwrap_or(usize::MAX)));
                note.title = title;
            }
            None => notes.push((
                StateNote {
                    tick: change.tick,
                    node,
                    text: String::new(),
                    title,
                },
                parts,
            )),
        }
    }
    notes
        .into_iter()
        .map(|(mut note, shown)| {
            note.text = shown
                .into_iter()
                .map(|(_, t)| t)
                .collect::<Vec<_>>()
                .join(" · ");
            note
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use replication::{NodeId, StateField};

    #[test]
    fn a_note_says_what_changed_compactly_and_leaves_out_what_the_diagram_shows() {
        let line = |leo: u64, hw: u64, isr: &[&str]| {
            let isr: Vec<NodeId> = isr.iter().map(NodeId::new).collect();
            NodeState::new(NodeId::new("node-2"), true, "leader")
                .with("epoch", 2)
                .with("LEO", leo)
                .with("HW", hw)
                .with_field(StateField::set("ISR", &isr))
        };
        let mut log = StateLog::new();
        log.note(0, vec![line(1, 1, &["node-1", "node-2", "node-3"])]);
        log.note(4, vec![line(2, 1, &["node-2", "node-3"])]);
        log.note(5, vec![line(2, 2, &["node-2", "node-3"])]);
        log.note(5, vec![line(3, 2, &["node-2", "node-3"])]);
        log.note(5, vec![line(4, 2, &["node-2", "node-3"])]);
        let mut down = line(4, 0, &["node-2", "node-3"]);
        down.alive = false;
        log.note(6, vec![down]);
        log.note(9, vec![line(4, 1, &["node-2", "node-3"])]);
        let notes = state_notes(&log);
        let texts: Vec<(u64, &str)> = notes.iter().map(|n| (n.tick, n.text.as_str())).collect();
        assert_eq!(
            texts,
            [
                (4, "LEO 2 · ISR {2,3}"),
                (5, "LEO 4 · HW 2"),
                (9, "up · HW 1")
            ]
        );
        assert!(
            notes[1]
                .title
                .contains("node-2  leader  epoch 2  LEO 4  HW 2")
        );
        assert_eq!(compact("{primary,standby-1}"), "{primary,standby-1}");
    }
}
