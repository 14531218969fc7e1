//! How results print in a scenario's output: one stable line per answer.

use bytes::Bytes;
use replication::{
    Completion, GroupError, GroupSummary, NodeState, Outcome, OutcomeStatus, ReadResult,
    WriteResult,
};

/// A value: its text if it is printable UTF-8, else escaped bytes; absent
/// is `<none>`.
pub fn value(value: Option<&Bytes>) -> String {
    match value {
        None => "<none>".to_owned(),
        Some(bytes) => match std::str::from_utf8(bytes) {
            Ok(text)
                if !text.is_empty()
                    && !text.chars().any(|c| c.is_whitespace() || c.is_control()) =>
            {
                text.to_owned()
            }
            _ => format!("b\"{}\"", bytes.escape_ascii()),
        },
    }
}

/// An error, as its message.
pub fn error(e: &GroupError) -> String {
    format!("error: {e}")
}

/// A blocking write's answer: `acked` (done), `refused` (failed: not
/// applied) or `unknown` (not acknowledged, and it may yet take effect);
/// `level` is the level's name in the protocol's words.
pub fn write(level: &str, result: &Result<WriteResult, GroupError>) -> String {
    match result {
        Err(e) => error(e),
        Ok(w) => {
            let offset = w.offset.map_or(String::new(), |o| format!(" offset={o}"));
            match (w.accepted, w.status) {
                (true, _) => format!("acked{offset} ({level})"),
                (false, OutcomeStatus::Unknown) => {
                    format!("unknown{offset} ({level}): {}", w.message)
                }
                (false, _) => format!("refused{offset} ({level}): {}", w.message),
            }
        }
    }
}

fn served(r: &ReadResult) -> String {
    format!(
        "value={} node={} offset={}",
        value(r.value.as_ref()),
        r.node,
        r.offset
    )
}

/// A blocking read's answer; `level` is the level's name in the
/// protocol's words.
pub fn read(level: &str, result: &Result<ReadResult, GroupError>) -> String {
    match result {
        Err(e) => error(e),
        Ok(r) => format!("{} ({level})", served(r)),
    }
}

/// A completion: `NAME STATUS at tick T: details`; `level` is the
/// operation's level in the protocol's words.
pub fn completion(name: &str, c: &Completion, level: &str) -> String {
    let details = match &c.outcome {
        Outcome::Written { offset, .. } => format!("acked offset={offset}"),
        Outcome::Read(r) => served(r),
        Outcome::Failed { message, .. } => message.clone(),
        Outcome::Unknown { offset, message } => match offset {
            Some(o) => format!("offset={o}: {message}"),
            None => message.clone(),
        },
        // A kind of outcome this interpreter does not know yet: its status.
        other => other.status().name().to_owned(),
    };
    format!(
        "{name} {} at tick {} ({} {}): {details}",
        c.outcome.status().name(),
        c.completed,
        c.op.kind(),
        level
    )
}

/// The summary, restricted to `fields` (empty = all). A crashed node's
/// `offset` and `data` are its applied state in memory (Raft's state
/// machine is empty until it re-applies its log after a restart), so its
/// line adds its state line from `states` (`term 1, log 2, commit 0`):
/// the log it kept is not mistaken for lost data.
/// `state [fields=…]`: a line per node, `node-1: leader epoch 1 LEO 2 HW 2
/// …` (a crashed node's role as `down (leader)`), with only the fields
/// labelled in `fields` when it names some. A label no node shows is an
/// error that lists the labels there are.
pub fn state(states: &[NodeState], fields: &[String]) -> Result<Vec<String>, String> {
    if let Some(unknown) = fields
        .iter()
        .find(|f| !states.iter().any(|s| s.field(f).is_some()))
    {
        let mut labels: Vec<&str> = Vec::new();
        for s in states {
            for f in &s.fields {
                if !labels.contains(&f.label) {
                    labels.push(f.label);
                }
            }
        }
        return Err(format!(
            "no node shows a field `{unknown}` (the fields: {})",
            labels.join(", ")
        ));
    }
    Ok(states
        .iter()
        .map(|s| {
            let mut parts = vec![s.shown_role()];
            parts.extend(
                s.fields
                    .iter()
                    .filter(|f| fields.is_empty() || fields.iter().any(|x| x == f.label))
                    .map(ToString::to_string),
            );
            format!("{}: {}", s.node, parts.join(" "))
        })
        .collect())
}

/// `summary [fields=…]`: the protocol-neutral summary.
pub fn summary(s: &GroupSummary, states: &[NodeState], fields: &[String]) -> Vec<String> {
    let want = |f: &str| fields.is_empty() || fields.iter().any(|x| x == f);
    let mut out = Vec::new();
    let mut head = Vec::new();
    if want("tick") {
        head.push(format!("tick={}", s.tick));
    }
    if want("leader") {
        let leader = s
            .leader
            .as_ref()
            .map_or("<none>".to_owned(), ToString::to_string);
        head.push(format!("leader={leader}"));
    }
    if !head.is_empty() {
        out.push(head.join(" "));
    }
    for node in &s.nodes {
        let mut parts = Vec::new();
        if want("alive") {
            parts.push(if node.alive { "up" } else { "down" }.to_owned());
        }
        if want("role") {
            parts.push(format!("role={}", node.role));
        }
        if want("offset") {
            parts.push(format!("offset={}", node.applied_offset));
        }
        if want("data") {
            let pairs: Vec<String> = node
                .data
                .iter()
                .map(|(k, v)| format!("{}={}", value(Some(k)), value(Some(v))))
                .collect();
            parts.push(format!("data={{{}}}", pairs.join(", ")));
        }
        let state = states.iter().find(|st| st.node == node.id);
        if !node.alive
            && (want("offset") || want("data"))
            && let Some(state) = state.filter(|st| !st.fields.is_empty())
        {
            let kept: Vec<String> = state.fields.iter().map(ToString::to_string).collect();
            parts.push(format!("(crashed; its state line: {})", kept.join(", ")));
        }
        if !parts.is_empty() {
            out.push(format!("{}: {}", node.id, parts.join(" ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use replication::AckLevel;

    #[test]
    fn values_print_as_text_unless_they_need_escaping() {
        assert_eq!(value(Some(&Bytes::from_static(b"v1"))), "v1");
        assert_eq!(value(Some(&Bytes::from_static(b"a b"))), "b\"a b\"");
        assert_eq!(value(None), "<none>");
    }

    #[test]
    fn a_write_prints_acked_refused_or_unknown_as_its_outcome_was_done_failed_or_unknown() {
        let blocking =
            |outcome: Outcome| write(AckLevel::AllIsr.name(), &outcome.into_write_result());
        assert_eq!(
            blocking(Outcome::Written {
                offset: 2,
                message: String::new()
            }),
            "acked offset=2 (ALL_ISR)"
        );
        assert_eq!(
            blocking(Outcome::refused_before_append("ISR too small")),
            "refused (ALL_ISR): ISR too small"
        );
        assert_eq!(
            blocking(Outcome::Unknown {
                offset: Some(2),
                message: "epoch 2 now".into()
            }),
            "unknown offset=2 (ALL_ISR): epoch 2 now"
        );
    }
}
