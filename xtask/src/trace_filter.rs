//! `explore --replay ID --node N --kinds K,… --no-messages`: the filters of
//! `cargo xtask trace`, applied to the trace section of a replay's text
//! (the lines after its `## trace` heading), with the same meaning as
//! [`sim_core::TraceFilter`]: an event is kept when its kind is one of
//! `--kinds` (a name, or a prefix ending in `*`), it is not a `message_*`
//! event under `--no-messages`, and one of its fields is one of the
//! `--node`s. A trace line's node values are its bare words (text is
//! quoted, numbers are digits), so the text alone says which fields name
//! nodes; a test checks this against `TraceFilter` on every experiment's
//! trace.

use clap::error::ErrorKind;

use crate::output::Failure;

/// The heading the replay's trace section starts with.
const TRACE_HEADING: &str = "## trace\n";

/// The trace filters of `explore --replay`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ReplayFilter {
    /// With --replay: only trace events naming this node; repeat for several.
    #[arg(long = "node", value_name = "NODE", requires = "replay")]
    nodes: Vec<String>,
    /// With --replay: only trace events of these kinds (comma-separated;
    /// `isr_*` for a prefix).
    #[arg(long, value_delimiter = ',', value_name = "KIND", requires = "replay")]
    kinds: Vec<String>,
    /// With --replay: leave out the network's message_* events.
    #[arg(long, requires = "replay")]
    no_messages: bool,
}

/// A trace line's kind and the values of its fields that are bare words.
type Read<'a> = (&'a str, Vec<&'a str>);

/// One trace line read back: its kind and the values of its fields that
/// are bare words (node ids), or `None` when it is not a trace line.
fn read_line(line: &str) -> Option<Read<'_>> {
    let mut head = line.splitn(4, ' ');
    let seq = head.next()?;
    let tick = head.next()?;
    if !seq.starts_with('#') || !tick.starts_with('@') {
        return None;
    }
    let kind = head.next()?;
    Some((kind, bare_values(head.next().unwrap_or(""))))
}

/// The values of `key=value …` that are bare words: not quoted text
/// (`"…"`, `b"…"`), not a list (`[…]`).
fn bare_values(fields: &str) -> Vec<&str> {
    let bytes = fields.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        // The key, up to `=`.
        while i < bytes.len() && bytes[i] != b'=' {
            i += 1;
        }
        i += 1;
        let start = i;
        let quoted = bytes.get(i) == Some(&b'"')
            || (bytes.get(i) == Some(&b'b') && bytes.get(i + 1) == Some(&b'"'));
        let mut depth = 0usize;
        let mut in_text = false;
        while i < bytes.len() {
            let c = bytes[i];
            if in_text {
                if c == b'\\' {
                    i += 1;
                } else if c == b'"' {
                    in_text = false;
                }
            } else if c == b'"' {
                in_text = true;
            } else if c == b'[' {
                depth += 1;
            } else if c == b']' {
                depth = depth.saturating_sub(1);
            } else if c == b' ' && depth == 0 {
                break;
            }
            i += 1;
        }
        let value = fields.get(start..i.min(bytes.len())).unwrap_or("");
        if !quoted && !value.starts_with('[') && !value.is_empty() {
            out.push(value);
        }
        i += 1;
    }
    out
}

impl ReplayFilter {
    fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.kinds.is_empty() && !self.no_messages
    }

    /// True when the trace line `line` passes the filter.
    fn keeps(&self, kind: &str, nodes: &[&str]) -> bool {
        if self.no_messages && sim_core::is_message_kind(kind) {
            return false;
        }
        if !self.kinds.is_empty()
            && !self.kinds.iter().any(|k| match k.strip_suffix('*') {
                Some(prefix) => kind.starts_with(prefix),
                None => kind == k,
            })
        {
            return false;
        }
        self.nodes.is_empty() || nodes.iter().any(|n| self.nodes.iter().any(|m| m == n))
    }

    /// `text` (a replay's output) with only the kept lines of its trace
    /// section; the heading says how many were kept. Unchanged without a
    /// filter. A `--node` no event names is a usage error listing the
    /// trace's nodes.
    pub fn apply(&self, text: String) -> Result<String, Failure> {
        if self.is_empty() {
            return Ok(text);
        }
        let Some(at) = text.rfind(TRACE_HEADING) else {
            return Ok(text);
        };
        let (before, trace) = text.split_at(at + TRACE_HEADING.len());
        let lines: Vec<(&str, Option<Read<'_>>)> =
            trace.lines().map(|l| (l, read_line(l))).collect();
        let mut named: Vec<&str> = Vec::new();
        for (_, read) in &lines {
            for n in read.iter().flat_map(|(_, nodes)| nodes) {
                if !named.contains(n) && !n.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                    named.push(n);
                }
            }
        }
        if let Some(unknown) = self.nodes.iter().find(|n| !named.contains(&n.as_str())) {
            named.retain(|n| !["true", "false", "none"].contains(n));
            named.sort_unstable();
            return Err(Failure::usage(
                "explore",
                ErrorKind::InvalidValue,
                format!(
                    "no event of this replay names node `{unknown}` (its nodes: {})",
                    named.join(", ")
                ),
            ));
        }
        let kept: Vec<&str> = lines
            .iter()
            .filter(|(_, read)| {
                read.as_ref()
                    .is_some_and(|(kind, nodes)| self.keeps(kind, nodes))
            })
            .map(|(l, _)| *l)
            .collect();
        let total = lines.iter().filter(|(_, r)| r.is_some()).count();
        let mut out = before.trim_end_matches(TRACE_HEADING).to_owned();
        out.push_str(&format!(
            "## trace ({} of {total} events kept by the filter)\n",
            kept.len()
        ));
        for line in kept {
            out.push_str(line);
            out.push('\n');
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(nodes: &[&str], kinds: &[&str], no_messages: bool) -> ReplayFilter {
        ReplayFilter {
            nodes: nodes.iter().map(|s| (*s).to_owned()).collect(),
            kinds: kinds.iter().map(|s| (*s).to_owned()).collect(),
            no_messages,
        }
    }

    #[test]
    fn bare_values_are_the_node_ids_of_a_line() {
        let (kind, nodes) = read_line(
            r#"#7 @3 isr_follower_removed leader=node-1 follower=node-3 reason="lag of node-2 [x]" isr=[node-1] v=b"a\"b" n=4"#,
        )
        .expect("a trace line");
        assert_eq!(kind, "isr_follower_removed");
        assert_eq!(nodes, ["node-1", "node-3", "4"]);
    }

    #[test]
    fn every_experiment_trace_filters_as_trace_filter_does() {
        for run in labs::all_runs().expect("the experiments run") {
            let text = format!("head\n{TRACE_HEADING}{}", run.trace.to_text());
            let nodes = run.states().nodes();
            let first = nodes.first().map(ToString::to_string).unwrap_or_default();
            let cases = [
                (
                    filter(&[&first], &[], false),
                    sim_core::TraceFilter::new().node(nodes[0].clone()),
                ),
                (
                    filter(&[], &["*_crashed", "client_op_completed"], false),
                    sim_core::TraceFilter::new().kinds(["*_crashed", "client_op_completed"]),
                ),
                (
                    filter(&[], &[], true),
                    sim_core::TraceFilter::new().without_messages(),
                ),
                (
                    filter(&[&first], &["message_*"], false),
                    sim_core::TraceFilter::new()
                        .node(nodes[0].clone())
                        .kinds(["message_*"]),
                ),
            ];
            for (ours, theirs) in cases {
                let got = ours.apply(text.clone()).expect("filters");
                let body = got
                    .split_once(" kept by the filter)\n")
                    .map_or("", |(_, b)| b);
                assert_eq!(
                    body,
                    theirs.to_text(&run.trace),
                    "exp{} {} {}: {ours:?}",
                    run.experiment,
                    run.protocol,
                    run.variant
                );
            }
        }
    }

    #[test]
    fn an_unknown_node_is_a_usage_error_naming_the_replay_s_nodes() {
        let text = format!("x\n{TRACE_HEADING}#0 @0 node_crashed node=node-2 n=3\n");
        let Err(Failure::Usage(error)) = filter(&["node-9"], &[], false).apply(text) else {
            panic!("a usage error");
        };
        let message = error.to_string();
        assert!(
            message.contains("`node-9`") && message.contains("its nodes: node-2"),
            "{message}"
        );
    }

    #[test]
    fn without_a_filter_the_text_is_unchanged() {
        let text = format!("x\n{TRACE_HEADING}#0 @0 message_sent src=a dst=b\n");
        assert_eq!(
            filter(&[], &[], false).apply(text.clone()).expect("ok"),
            text
        );
        let kept = filter(&[], &[], true).apply(text).expect("ok");
        assert_eq!(kept, "x\n## trace (0 of 1 events kept by the filter)\n");
    }
}
