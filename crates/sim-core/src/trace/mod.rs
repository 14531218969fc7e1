//! The structured, ordered record of a run.

mod codec;
mod event;
mod field_value;
mod filter;
mod json;
mod value;

use std::borrow::Cow;
use std::fmt::Write as _;

pub use event::{Event, EventRef, Field, Fields};
pub use field_value::{FieldSink, TraceValue};
pub use filter::{TraceFilter, is_message_kind};
pub use json::{event_from_json_line, event_to_json, value_from_json, value_to_json};
pub use value::Value;

use crate::clock::Tick;
use crate::error::SimError;
use codec::{Interner, encode_value, put_varint};

/// One event's tick, interned kind and where its encoded fields end.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Header {
    tick: Tick,
    kind: u32,
    fields_end: usize,
}

/// An append-only list of events `{seq, tick, kind, fields}`.
///
/// Renders to a stable one-line-per-event text (for `insta` snapshots) and to
/// JSON lines. Every recorded event is also emitted as a `tracing` event at
/// `DEBUG` level with target `minidist::trace`, so `RUST_LOG` can follow a
/// run live. Recording can be switched off for large runs: a disabled trace
/// keeps nothing and the protocol's behaviour is unchanged (use the
/// [`record!`](crate::record) macro so fields are not even built).
///
/// Storage is compact: one header per event and one byte buffer of encoded
/// fields, with kinds, keys, static text and node ids interned, so a traced
/// run costs tens of bytes per event and no allocation per event. Events
/// are read back as [`EventRef`] views that decode on demand.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    headers: Vec<Header>,
    encoded: Vec<u8>,
    interner: Interner,
    disabled: bool,
}

/// Two traces are equal when they hold the same events.
impl PartialEq for Trace {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.events().eq(other.events())
    }
}
impl Eq for Trace {}

/// Iterator over a trace's events, in order.
#[derive(Debug, Clone)]
pub struct Events<'a> {
    trace: &'a Trace,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Events<'a> {
    type Item = EventRef<'a>;

    fn next(&mut self) -> Option<EventRef<'a>> {
        if self.front >= self.back {
            return None;
        }
        let event = self.trace.get(self.front);
        self.front += 1;
        event
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }

    fn last(mut self) -> Option<EventRef<'a>> {
        self.next_back()
    }
}

impl DoubleEndedIterator for Events<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.trace.get(self.back)
    }
}

impl ExactSizeIterator for Events<'_> {}

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
        fields: impl IntoIterator<Item = Field>,
    ) {
        self.push_kind(tick, Cow::Borrowed(kind), fields);
    }

    fn push_kind(
        &mut self,
        tick: Tick,
        kind: Cow<'static, str>,
        fields: impl IntoIterator<Item = Field>,
    ) {
        if self.disabled {
            return;
        }
        self.begin_event();
        let kind = self.interner.text(&kind);
        for (key, value) in fields {
            let key = self.interner.text(&key);
            put_varint(&mut self.encoded, u64::from(key));
            encode_value(&mut self.encoded, &mut self.interner, &value);
        }
        self.end_event(tick, kind);
    }

    /// Starts an event whose fields are then written one by one with
    /// [`FieldWriter::field`], each encoder called directly, no field
    /// cloned or built as a [`Value`] (what [`record!`](crate::record)
    /// expands to). Reads back exactly as [`Trace::push`] of the same values
    /// converted with `Value::from`. The event is recorded by
    /// [`FieldWriter::finish`]; a writer dropped unfinished records nothing
    /// it began (its fields are cut off again).
    #[doc(hidden)]
    #[inline]
    pub fn begin_fields(&mut self, tick: Tick, kind: &'static str) -> FieldWriter<'_> {
        debug_assert!(!self.disabled, "begin_fields on a disabled trace");
        self.begin_event();
        let kind = self.interner.static_text(kind);
        let start = self.encoded.len();
        FieldWriter {
            trace: self,
            tick,
            kind,
            start,
        }
    }

    /// Before an event's fields are encoded: a run's trace holds some
    /// dozens of events at least, so the first skips the smallest growth
    /// steps.
    #[inline]
    fn begin_event(&mut self) {
        if self.headers.capacity() == 0 {
            self.headers.reserve(64);
            self.encoded.reserve(2048);
        }
    }

    /// Closes the event whose fields were just encoded, and mirrors it to
    /// `tracing`.
    #[inline]
    fn end_event(&mut self, tick: Tick, kind: u32) {
        self.headers.push(Header {
            tick,
            kind,
            fields_end: self.encoded.len(),
        });
        if tracing::enabled!(target: "minidist::trace", tracing::Level::DEBUG)
            && let Some(event) = self.events().next_back()
        {
            tracing::debug!(target: "minidist::trace", "{}", event);
        }
    }

    /// The event at position `seq`.
    pub fn get(&self, seq: usize) -> Option<EventRef<'_>> {
        let header = self.headers.get(seq)?;
        let start = match seq {
            0 => 0,
            _ => self.headers[seq - 1].fields_end,
        };
        Some(EventRef {
            seq: seq as u64,
            tick: header.tick,
            kind: self.interner.text_of(header.kind),
            encoded: self.encoded.get(start..header.fields_end).unwrap_or(&[]),
            interner: &self.interner,
        })
    }

    /// The recorded events, in order.
    pub fn events(&self) -> Events<'_> {
        self.since(0)
    }

    /// Events recorded from position `from` on (for "what happened since").
    pub fn since(&self, from: usize) -> Events<'_> {
        Events {
            trace: self,
            front: from.min(self.headers.len()),
            back: self.headers.len(),
        }
    }

    /// Owned copies of every event.
    pub fn to_events(&self) -> Vec<Event> {
        self.events().map(|e| e.to_owned()).collect()
    }

    /// Frees what only recording needs — the interner's lookup tables and
    /// the buffers' spare capacity — for a trace that is kept to be read
    /// (a finished run's). Its events are unchanged; recording may go on
    /// (the next event rebuilds the tables).
    pub fn shrink_to_fit(&mut self) {
        self.headers.shrink_to_fit();
        self.encoded.shrink_to_fit();
        self.interner.release_lookups();
    }

    /// Number of recorded events.
    pub fn len(&self) -> usize {
        self.headers.len()
    }

    /// True when nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.headers.is_empty()
    }

    /// Recorded events of one kind, in order.
    ///
    /// The kind is looked up once among the interned texts; events are
    /// then matched by id, not by comparing their kind's text.
    pub fn of_kind<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = EventRef<'a>> + 'a {
        let ids = self.interner.ids_of(kind);
        (0..self.headers.len())
            .filter(move |&seq| ids.contains(self.headers[seq].kind))
            .filter_map(move |seq| self.get(seq))
    }

    /// How many events of `kind` were recorded.
    pub fn count(&self, kind: &str) -> usize {
        let ids = self.interner.ids_of(kind);
        self.headers.iter().filter(|h| ids.contains(h.kind)).count()
    }

    /// Appends the events of another run's trace after a `run_started`
    /// marker naming it, renumbering `seq` (ticks are kept as recorded).
    /// For an experiment that drives several groups in sequence.
    pub fn append_run(&mut self, name: &'static str, other: &Trace) {
        if self.disabled {
            return;
        }
        let tick = other.headers.first().map_or(0, |h| h.tick);
        self.push(
            tick,
            "run_started",
            [(Cow::Borrowed("name"), Value::from(name))],
        );
        for event in other.events() {
            let fields: Vec<Field> = event
                .fields()
                .map(|(k, v)| (Cow::Owned(k.to_owned()), v))
                .collect();
            self.push_kind(event.tick, Cow::Owned(event.kind.to_owned()), fields);
        }
    }

    /// The stable text form: one `#seq @tick kind key=value …` line per
    /// event, each ending in a newline.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(self.headers.len() * 64);
        for event in self.events() {
            let _ = writeln!(out, "{event}");
        }
        out
    }

    /// The JSON-lines form: one JSON object per line.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::with_capacity(self.headers.len() * 96);
        for event in self.events() {
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

/// One event being written field by field ([`Trace::begin_fields`]).
#[doc(hidden)]
pub struct FieldWriter<'t> {
    trace: &'t mut Trace,
    tick: Tick,
    kind: u32,
    /// Where the event's fields begin in the buffer.
    start: usize,
}

impl FieldWriter<'_> {
    /// Appends field `key` = `value`.
    #[inline]
    pub fn field<V: TraceValue + ?Sized>(&mut self, key: &'static str, value: &V) {
        let trace = &mut *self.trace;
        let key = trace.interner.static_text(key);
        put_varint(&mut trace.encoded, u64::from(key));
        value.encode(&mut FieldSink {
            out: &mut trace.encoded,
            interner: &mut trace.interner,
        });
    }

    /// Records the event.
    #[inline]
    pub fn finish(self) {
        let (tick, kind) = (self.tick, self.kind);
        // Finished: the drop below must not cut the fields off.
        let trace = &mut *std::mem::ManuallyDrop::new(self).trace;
        trace.end_event(tick, kind);
    }
}

impl Drop for FieldWriter<'_> {
    /// Unfinished (a panic while a value encoded): the fields written so
    /// far are cut off, so the buffer holds whole events only.
    fn drop(&mut self) {
        let start = self.start;
        self.trace.encoded.truncate(start);
    }
}

/// Records an event on a [`Trace`] without building its fields when
/// recording is off. Each field encodes itself from a borrow straight into
/// the trace's arena (no per-event allocation, no clone of a node name or
/// byte string); a value may be anything that is a [`TraceValue`].
///
/// The values are evaluated first, in order, and stay borrowed until the
/// event is recorded: a value borrowed from the struct that also owns the
/// trace through a method (`node = self.cluster.id(i)` while recording on
/// `self.cluster.trace`) does not compile — clone it
/// (`self.cluster.id(i).clone()`), or read it before the call. The
/// trace expression is evaluated after the values, where each field's name
/// names its value: a field may not be named like a variable the trace
/// expression uses (`record!(trace, 1, "k", trace = 2)` does not compile).
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
            let kind: &'static str = $kind;
            // Every value is evaluated first, in order, and borrowed (its
            // temporaries live to the end of the match); then each encodes
            // itself into the trace, called directly (no `dyn`).
            #[allow(unused_variables)]
            match ($(&$val,)*) {
                ($($key,)*) => {
                    let mut __event = $trace.begin_fields(tick, kind);
                    $(__event.field(stringify!($key), $key);)*
                    __event.finish();
                }
            }
        }
    }};
}
