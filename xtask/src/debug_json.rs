//! The debugger's answers as JSON: one state's [`View`] and its session's
//! tree, as the page draws them.

use explore::Check;
use explore::debugger::{Session, View};
use serde_json::{Value, json};

/// `check` as `{status, why}`.
fn check(check: &Check) -> Value {
    let (status, why) = match check {
        Check::Holds => ("holds", ""),
        Check::Violated(w) => ("violated", w.as_str()),
        Check::Unknown(w) => ("unknown", w.as_str()),
        Check::Undecided(w) => ("undecided", w.as_str()),
    };
    json!({ "status": status, "why": why })
}

/// State `v` of `session`, with the session's whole tree.
pub fn view(session: &Session<'_>, v: &View) -> Value {
    let lanes: Vec<Value> = v
        .lanes
        .iter()
        .map(|l| {
            json!({
                "node": l.state.node.to_string(),
                "alive": l.state.alive,
                "role": l.state.role,
                "fields": l.state.fields.iter().map(|f| json!([f.label, f.value])).collect::<Vec<_>>(),
                "crashed": l.crashed,
                "isolated": l.isolated,
                "slow": l.slow,
                "log": l.log,
                "timers": l.timers.iter().map(|t| json!({"label": t.label, "due_in": t.due_in})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let held: Vec<Value> = v
        .held
        .iter()
        .map(|h| {
            json!({
                "id": h.id,
                "from": h.from,
                "to": h.to,
                "label": h.label,
                "deliverable": h.deliverable,
            })
        })
        .collect();
    let actions: Vec<Value> = v
        .actions
        .iter()
        .map(|a| json!({ "code": a.code, "label": a.label, "kind": a.kind }))
        .collect();
    let tree: Vec<Value> = session
        .states()
        .iter()
        .enumerate()
        .map(|(id, s)| {
            json!({
                "id": id,
                "parent": s.parent,
                "step": s.label,
                "broken": s.broken().map(|(p, _)| p.name()),
            })
        })
        .collect();
    json!({
        "state": v.state,
        "config": v.config,
        "tick": v.tick,
        "timers_held": v.timers_held,
        "names": v.names,
        "lanes": lanes,
        "held": held,
        "actions": actions,
        "history": v.history,
        "log": v.log,
        "events": v.events,
        "invariants": check(&v.invariants),
        "judged": v.judged.iter().map(|(p, c)| json!({"property": p.name(), "check": check(c)})).collect::<Vec<_>>(),
        "first_broken": v.first_broken.as_ref().map(|(id, p, why)| json!({"state": id, "property": p.name(), "why": why})),
        "replay": v.replay,
        "path": v.path,
        "tree": tree,
    })
}
