//! The structured, ordered record of a run.

mod event;
mod json;
mod value;

use std::borrow::Cow;
use std::fmt::Write as _;

pub use event::Event;
pub use json::{event_from_json_line, event_to_json, value_from_json, value_to_json};
pub use value::Value;

use crate::clock::Tick;
use crate::error::SimError;

/// An append-only list of [`Event`]s.
///
/// Renders to a stable one-line-per-event text (for `insta` snapshots) and to
/// JSON lines. Every recorded event is also emitted as a `tracing` event at
/// `DEBUG` level with target `minidist::trace`, so `RUST_LOG` can follow a
/// run live. Recording can be switched off for large runs: a disabled trace
/// keeps nothing and the protocol's behaviour is unchanged (use the
/// [`record!`](crate::record) macro so fields are not even built).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    events: Vec<Event>,
    disabled: bool,
}

impl Trace {
    /// An empty, recording trace.
    pub fn new() -> Self {
        Trace::default()
    }

    /// True while events are being recorded.
    #[inline]
    pub fn is_enabled(&self) -> bool {
        !self.disabled
    }

    /// Turns recording on or off. Events already recorded are kept.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.disabled = !enabled;
    }

    /// Appends an event (if recording) and mirrors it to `tracing`.
    pub fn push(
        &mut self,
        tick: Tick,
        kind: &'static str,
        fields: Vec<(Cow<'static, str>, crate::Value)>,
    ) {
        if self.disabled {
            return;
        }
        let event = Event {
            seq: self.events.len() as u64,
            tick,
            kind: Cow::Borrowed(kind),
            fields,
        };
        tracing::debug!(target: "minidist::trace", "{}", event);
        self.events.push(event);
    }

    /// Appends the events of another run's trace after a `run_started`
    /// marker naming it, renumbering `seq` (ticks are kept as recorded).
    /// For an experiment that drives several groups in sequence.
    pub fn append_run(&mut self, name: &'static str, other: &Trace) {
        if self.disabled {
            return;
        }
        let tick = other.events.first().map_or(0, |e| e.tick);
        self.push(
            tick,
            "run_started",
            vec![(Cow::Borrowed("name"), crate::Value::from(name))],
        );
        for event in &other.events {
            let mut event = event.clone();
            event.seq = self.events.len() as u64;
            self.events.push(event);
        }
    }

    /// The recorded events, in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Number of recorded events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Recorded events of one kind, in order.
    pub fn of_kind<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Event> + 'a {
        self.events.iter().filter(move |e| e.kind == kind)
    }

    /// How many events of `kind` were recorded.
    pub fn count(&self, kind: &str) -> usize {
        self.of_kind(kind).count()
    }

    /// Events recorded from position `from` on (for "what happened since").
    pub fn since(&self, from: usize) -> &[Event] {
        self.events.get(from..).unwrap_or(&[])
    }

    /// The stable text form: one `#seq @tick kind key=value …` line per
    /// event, each ending in a newline.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(self.events.len() * 64);
        for event in &self.events {
            let _ = writeln!(out, "{event}");
        }
        out
    }

    /// The JSON-lines form: one JSON object per line.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::with_capacity(self.events.len() * 96);
        for event in &self.events {
            out.push_str(&event_to_json(event).to_string());
            out.push('\n');
        }
        out
    }

    /// Parses the JSON-lines form back into events (blank lines skipped).
    pub fn parse_jsonl(text: &str) -> Result<Vec<Event>, SimError> {
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| event_from_json_line(line, i + 1))
            .collect()
    }
}

/// Records an event on a [`Trace`] without building its fields when
/// recording is off.
///
/// ```
/// use sim_core::{record, NodeId, Trace};
/// let mut trace = Trace::new();
/// let node = NodeId::new("n1");
/// record!(trace, 3, "node_crashed", node = &node, lose_unfsynced = false);
/// assert_eq!(trace.to_text(), "#0 @3 node_crashed node=n1 lose_unfsynced=false\n");
/// ```
#[macro_export]
macro_rules! record {
    ($trace:expr, $tick:expr, $kind:expr $(, $key:ident = $val:expr)* $(,)?) => {{
        let tick: $crate::Tick = $tick;
        if $trace.is_enabled() {
            let fields = ::std::vec![
                $((::std::borrow::Cow::Borrowed(stringify!($key)), $crate::Value::from($val))),*
            ];
            $trace.push(tick, $kind, fields);
        }
    }};
}
