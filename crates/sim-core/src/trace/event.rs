//! One trace event: the owned form and the borrowed view.

use std::borrow::Cow;
use std::fmt;

use crate::clock::Tick;
use crate::node::NodeId;
use crate::trace::codec::{Interner, Reader};
use crate::trace::value::Value;

/// One ordered key/value field of an event.
pub type Field = (Cow<'static, str>, Value);

/// An entry of the trace, owned: `{seq, tick, kind, fields}`.
///
/// `seq` is the event's position in its trace, `kind` a stable snake_case
/// name (`message_sent`, `isr_member_removed`, …) and `fields` ordered
/// key/value pairs. [`Trace`](crate::Trace) stores events compactly and
/// hands out [`EventRef`] views; this owned form is what
/// [`Trace::parse_jsonl`](crate::Trace::parse_jsonl) and
/// [`Trace::to_events`](crate::Trace::to_events) return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Position in the trace, from 0.
    pub seq: u64,
    /// Tick at which the event was recorded.
    pub tick: Tick,
    /// Stable snake_case event name.
    pub kind: Cow<'static, str>,
    /// Ordered fields.
    pub fields: Vec<Field>,
}

/// A borrowed view of one recorded event; its fields are decoded from the
/// trace's compact storage on demand.
#[derive(Clone, Copy)]
pub struct EventRef<'a> {
    /// Position in the trace, from 0.
    pub seq: u64,
    /// Tick at which the event was recorded.
    pub tick: Tick,
    /// Stable snake_case event name.
    pub kind: &'a str,
    pub(crate) encoded: &'a [u8],
    pub(crate) interner: &'a Interner,
}

/// Iterator over an event's fields, decoded in order.
pub struct Fields<'a> {
    reader: Reader<'a>,
}

impl<'a> Iterator for Fields<'a> {
    type Item = (&'a str, Value);

    fn next(&mut self) -> Option<Self::Item> {
        if self.reader.is_empty() {
            return None;
        }
        let key = self.reader.interner.text_of(self.reader.varint()? as u32);
        Some((key, self.reader.value()?))
    }
}

fn find<'a>(fields: &'a [Field], key: &str) -> Option<&'a Value> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn render<K: fmt::Display, V: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    seq: u64,
    tick: Tick,
    kind: &str,
    fields: impl Iterator<Item = (K, V)>,
) -> fmt::Result {
    write!(f, "#{seq} @{tick} {kind}")?;
    for (key, value) in fields {
        write!(f, " {key}={value}")?;
    }
    Ok(())
}

impl Event {
    /// The value of field `key`, if present.
    pub fn field(&self, key: &str) -> Option<&Value> {
        find(&self.fields, key)
    }
}

impl<'a> EventRef<'a> {
    fn reader(&self) -> Reader<'a> {
        Reader {
            bytes: self.encoded,
            interner: self.interner,
        }
    }

    /// The fields, decoded in order.
    pub fn fields(&self) -> Fields<'a> {
        Fields {
            reader: self.reader(),
        }
    }

    /// The value of field `key`, if present.
    pub fn field(&self, key: &str) -> Option<Value> {
        self.fields().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// A reader positioned at field `key`'s value, if the field is present.
    fn at(&self, key: &str) -> Option<Reader<'a>> {
        let mut reader = self.reader();
        while !reader.is_empty() {
            if reader.interner.text_of(reader.varint()? as u32) == key {
                return Some(reader);
            }
            reader.value()?;
        }
        None
    }

    /// The text value of field `key`, if it is present and text (no
    /// allocation).
    pub fn str_field(&self, key: &str) -> Option<&'a str> {
        self.at(key)?.text_value()
    }

    /// The node value of field `key`, if it is present and a node (no
    /// clone of the id).
    pub fn node_field(&self, key: &str) -> Option<&'a NodeId> {
        self.at(key)?.node_value()
    }

    /// The number in field `key`, or an error naming the event and the
    /// field (for folds that read a trace back).
    pub fn uint(&self, key: &str) -> Result<u64, String> {
        match self.field(key) {
            Some(Value::UInt(n)) => Ok(n),
            other => Err(format!("{} has no number {key} ({other:?})", self.kind)),
        }
    }

    /// The position in `ids` of the node in field `key`, or an error
    /// naming the event (for folds that read a trace back).
    pub fn node_index(&self, key: &str, ids: &[NodeId]) -> Result<usize, String> {
        let node = self
            .node_field(key)
            .ok_or_else(|| format!("{} names no {key}", self.kind))?;
        ids.iter()
            .position(|n| n == node)
            .ok_or_else(|| format!("{} names unknown node {node}", self.kind))
    }

    /// An owned copy.
    pub fn to_owned(&self) -> Event {
        Event {
            seq: self.seq,
            tick: self.tick,
            kind: Cow::Owned(self.kind.to_owned()),
            fields: self
                .fields()
                .map(|(k, v)| (Cow::Owned(k.to_owned()), v))
                .collect(),
        }
    }
}

impl fmt::Debug for EventRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_owned(), f)
    }
}

impl PartialEq for EventRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.seq == other.seq
            && self.tick == other.tick
            && self.kind == other.kind
            && self.fields().eq(other.fields())
    }
}

impl PartialEq<Event> for EventRef<'_> {
    fn eq(&self, other: &Event) -> bool {
        self.seq == other.seq
            && self.tick == other.tick
            && self.kind == other.kind
            && self
                .fields()
                .eq(other.fields.iter().map(|(k, v)| (k.as_ref(), v.clone())))
    }
}

/// The stable one-line text form: `#seq @tick kind key=value …`.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(
            f,
            self.seq,
            self.tick,
            &self.kind,
            self.fields.iter().map(|(k, v)| (k, v)),
        )
    }
}

/// The stable one-line text form: `#seq @tick kind key=value …`.
impl fmt::Display for EventRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, self.seq, self.tick, self.kind, self.fields())
    }
}

#[cfg(test)]
mod tests {
    use crate::{NodeId, Trace, record};

    /// `node_field` answers the recorded node itself (the interned id, not
    /// a decoded copy), and nothing for a missing key or a field of another
    /// kind.
    #[test]
    fn node_field_answers_a_node_field_and_nothing_else() {
        let (a, b) = (NodeId::new("a"), NodeId::new("b"));
        let mut trace = Trace::new();
        record!(
            trace,
            1,
            "caught_up",
            leader = &a,
            follower = &b,
            mode = "log_replay"
        );
        let event = trace.events().next().expect("one event");
        assert_eq!(event.node_field("follower"), Some(&b));
        assert_eq!(event.node_field("leader"), Some(&a));
        assert_eq!(event.node_field("mode"), None);
        assert_eq!(event.node_field("missing"), None);
        assert_eq!(event.str_field("mode"), Some("log_replay"));
    }

    #[test]
    fn uint_and_node_index_answer_or_name_what_is_missing() {
        let (a, b) = (NodeId::new("a"), NodeId::new("b"));
        let mut trace = Trace::new();
        record!(trace, 1, "appended", node = &b, offset = 4u64, mode = "x");
        let event = trace.events().next().expect("one event");
        assert_eq!(event.uint("offset"), Ok(4));
        assert!(
            event
                .uint("mode")
                .unwrap_err()
                .contains("appended has no number mode")
        );
        let ids = [a.clone(), b.clone()];
        assert_eq!(event.node_index("node", &ids), Ok(1));
        assert_eq!(
            event.node_index("leader", &ids),
            Err("appended names no leader".to_owned())
        );
        assert_eq!(
            event.node_index("node", &ids[..1]),
            Err("appended names unknown node b".to_owned())
        );
    }
}
