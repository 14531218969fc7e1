//! [`TraceFilter`]: the events of a trace a reader asked for — by kind, by
//! node, without the network's message events — in the trace's own text
//! or JSON-lines form, each event keeping its `#seq` and tick.

use std::fmt::Write as _;

use super::Trace;
use super::event::EventRef;
use super::json::event_to_json;
use super::value::Value;
use crate::node::NodeId;

/// True for the network's own events (`message_sent`, `message_delivered`,
/// `message_dropped`, `message_duplicated`).
pub fn is_message_kind(kind: &str) -> bool {
    kind.starts_with("message_")
}

/// Which events of a trace to keep; the default keeps every one.
///
/// ```
/// use sim_core::{NodeId, Trace, TraceFilter};
/// let mut trace = Trace::new();
/// trace.push(1, "message_sent", vec![("src".into(), NodeId::new("a").into())]);
/// trace.push(1, "node_crashed", vec![("node".into(), NodeId::new("b").into())]);
/// let kept = TraceFilter::new().without_messages().to_text(&trace);
/// assert_eq!(kept, "#1 @1 node_crashed node=b\n");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceFilter {
    kinds: Vec<String>,
    nodes: Vec<NodeId>,
    no_messages: bool,
}

impl TraceFilter {
    /// A filter that keeps every event.
    pub fn new() -> TraceFilter {
        TraceFilter::default()
    }

    /// Keeps only events of these kinds: a name (`node_crashed`) or a
    /// prefix ending in `*` (`isr_*`). An empty list keeps every kind.
    #[must_use]
    pub fn kinds<S: Into<String>>(mut self, kinds: impl IntoIterator<Item = S>) -> TraceFilter {
        self.kinds.extend(kinds.into_iter().map(Into::into));
        self
    }

    /// Keeps only events that name `node` in one of their fields (`node=`,
    /// `src=`, `dst=`, `leader=`, …); called again, events naming any of
    /// the nodes.
    #[must_use]
    pub fn node(mut self, node: NodeId) -> TraceFilter {
        self.nodes.push(node);
        self
    }

    /// Drops the network's message events (see [`is_message_kind`]).
    #[must_use]
    pub fn without_messages(mut self) -> TraceFilter {
        self.no_messages = true;
        self
    }

    /// True when `event` passes every part of the filter.
    pub fn keeps(&self, event: &EventRef<'_>) -> bool {
        if self.no_messages && is_message_kind(event.kind) {
            return false;
        }
        if !self.kinds.is_empty()
            && !self.kinds.iter().any(|k| match k.strip_suffix('*') {
                Some(prefix) => event.kind.starts_with(prefix),
                None => event.kind == k,
            })
        {
            return false;
        }
        if !self.nodes.is_empty()
            && !event
                .fields()
                .any(|(_, v)| matches!(&v, Value::Node(n) if self.nodes.contains(n)))
        {
            return false;
        }
        true
    }

    /// The kept events of `trace` in its text form (one `#seq @tick kind
    /// key=value …` line each).
    pub fn to_text(&self, trace: &Trace) -> String {
        let mut out = String::new();
        for event in trace.events().filter(|e| self.keeps(e)) {
            let _ = writeln!(out, "{event}");
        }
        out
    }

    /// The kept events of `trace` as JSON lines.
    pub fn to_jsonl(&self, trace: &Trace) -> String {
        let mut out = String::new();
        for event in trace.events().filter(|e| self.keeps(e)) {
            out.push_str(&event_to_json(event).to_string());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace() -> Trace {
        let mut t = Trace::new();
        let a = || Value::Node(NodeId::new("a"));
        let b = || Value::Node(NodeId::new("b"));
        t.push(
            0,
            "message_sent",
            vec![("src".into(), a()), ("dst".into(), b())],
        );
        t.push(0, "isr_leader_appended", vec![("node".into(), a())]);
        t.push(1, "isr_entry_appended", vec![("node".into(), b())]);
        t.push(1, "node_crashed", vec![("node".into(), b())]);
        t
    }

    #[test]
    fn a_filter_keeps_kinds_by_name_or_prefix_nodes_named_in_fields_and_drops_messages() {
        let t = trace();
        let kept = |f: TraceFilter| -> Vec<String> {
            t.events()
                .filter(|e| f.keeps(e))
                .map(|e| e.kind.to_owned())
                .collect()
        };
        assert_eq!(kept(TraceFilter::new()).len(), 4);
        assert_eq!(
            kept(TraceFilter::new().without_messages()),
            ["isr_leader_appended", "isr_entry_appended", "node_crashed"]
        );
        assert_eq!(
            kept(TraceFilter::new().kinds(["isr_*"])),
            ["isr_leader_appended", "isr_entry_appended"]
        );
        assert_eq!(
            kept(TraceFilter::new().node(NodeId::new("b"))),
            ["message_sent", "isr_entry_appended", "node_crashed"]
        );
        assert_eq!(
            TraceFilter::new().kinds(["node_crashed"]).to_text(&t),
            "#3 @1 node_crashed node=b\n"
        );
    }
}
