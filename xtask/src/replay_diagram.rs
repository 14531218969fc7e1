//! The space-time diagram of a replayed schedule, as the report's
//! counterexample page draws it and `explore --replay ID --diagram FILE`
//! can: the operation lincheck could not place marked violating (◆), and
//! the nodes' state changes as lane notes when the replay recorded them.
//! It takes the explorer's [`RunReport`] only, so any command can use it.

use explore::RunReport;
use lincheck::{CheckOptions, CheckResult, KvModel};

/// lincheck's check of the run's history, with a witness.
pub fn check(report: &RunReport) -> Result<CheckResult, String> {
    let ops = explore::lincheck_history(&report.history);
    let options = CheckOptions::default().with_witness(true);
    lincheck::check(&KvModel, &ops, &options).map_err(|e| e.to_string())
}

/// The trace's op id of each operation of the history, in history order:
/// the `op` of each `client_op_submitted` with the kind and key the history
/// op has (the explorer records an operation exactly when the group
/// accepted its submission); `None` where they do not line up.
fn trace_op_ids(report: &RunReport) -> Vec<Option<u64>> {
    let trace = report.group.trace();
    let submitted: Vec<(u64, String, String)> = trace
        .of_kind("client_op_submitted")
        .filter_map(|e| {
            let Some(sim_core::Value::UInt(op)) = e.field("op") else {
                return None;
            };
            let kind = e.str_field("kind").unwrap_or_default().to_owned();
            let key = e.field("key").map(|k| k.to_string()).unwrap_or_default();
            Some((op, kind, key))
        })
        .collect();
    report
        .history
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let (id, kind, key) = submitted.get(i)?;
            let (want_kind, want_key) = match &op.kind {
                explore::OpKind::Write { key, .. } => ("write", key),
                explore::OpKind::Read { key } => ("read", key),
            };
            let want_key = sim_core::Value::Bytes(want_key.clone()).to_string();
            (kind == want_kind && *key == want_key).then_some(*id)
        })
        .collect()
}

/// The operation lincheck could not place, as the trace numbers it, with
/// its description.
pub fn violating_op(report: &RunReport, result: Option<&CheckResult>) -> Option<(u64, String)> {
    let stuck = &result?.violation()?.unplaceable;
    let index = usize::try_from(stuck.id).ok()?;
    let id = (*trace_op_ids(report).get(index)?)?;
    Some((
        id,
        format!(
            "client {}'s {} (op {id} in the trace, op {} in the checker's view)",
            stuck.client, stuck.description, stuck.id
        ),
    ))
}

/// The diagram's options: `title`, `violating` marked, and the state
/// notes of the run's state log, if it recorded one.
pub fn options(
    title: String,
    report: &RunReport,
    violating: Option<u64>,
) -> diagram::DiagramOptions {
    let mut options = diagram::DiagramOptions::titled(title).with_violating(violating);
    if let Some(log) = report.group.state_log() {
        options = options.with_state_notes(labs::state_notes(log));
    }
    options
}
