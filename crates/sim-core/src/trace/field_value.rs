//! What a [`record!`](crate::record) field can hold, encoded straight into
//! the trace's byte buffer.
//!
//! The macro used to build a [`Value`] for every field — cloning each node
//! name and byte string (an atomic reference-count update each way), moving
//! an array of 56-byte fields and dropping it — only to encode it at once.
//! A [`TraceValue`] writes the same bytes from a borrow, so recording a
//! message costs no clone and no drop. Every type `Value::from` accepts is a
//! `TraceValue`, encoded exactly as its `Value` would be: the trace reads
//! back the same events.

use bytes::Bytes;

use crate::node::NodeId;
use crate::trace::codec::{self, Interner};
use crate::trace::value::Value;

/// Where a [`TraceValue`] writes its encoding: the trace's field buffer and
/// interner, lent for one field.
pub struct FieldSink<'a> {
    pub(crate) out: &'a mut Vec<u8>,
    pub(crate) interner: &'a mut Interner,
}

impl FieldSink<'_> {
    #[inline]
    fn uint(&mut self, v: u64) {
        codec::put_uint(self.out, v);
    }
}

/// A value a [`record!`](crate::record) field can take: every type that
/// converts into a [`Value`] in this crate (integers, `bool`, `'static`
/// text, `String`, [`NodeId`], [`Bytes`], `Option` and `Vec` of these, and
/// `Value` itself), and a borrow of any of them.
pub trait TraceValue {
    /// Appends this value's encoding (the same bytes as `Value::from(self)`).
    fn encode(&self, sink: &mut FieldSink<'_>);
}

macro_rules! uint_value {
    ($($t:ty),*) => {$(
        impl TraceValue for $t {
            #[inline]
            fn encode(&self, sink: &mut FieldSink<'_>) {
                sink.uint(*self as u64);
            }
        }
    )*};
}
uint_value!(u8, u16, u32, u64, usize);

impl TraceValue for i64 {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        codec::put_int(sink.out, *self);
    }
}

impl TraceValue for i32 {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        codec::put_int(sink.out, i64::from(*self));
    }
}

impl TraceValue for bool {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        codec::put_bool(sink.out, *self);
    }
}

impl TraceValue for &'static str {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        codec::put_static_str(sink.out, sink.interner, self);
    }
}

impl TraceValue for String {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        codec::put_owned_str(sink.out, self);
    }
}

impl TraceValue for NodeId {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        codec::put_node(sink.out, sink.interner, self);
    }
}

impl TraceValue for Bytes {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        codec::put_bytes(sink.out, self);
    }
}

/// A borrow of any value (`&NodeId`, `&Bytes`, …) encodes as the value.
/// (`&'static str` is its own impl: `str` itself is not a value.)
impl<T: TraceValue + ?Sized> TraceValue for &T {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        (**self).encode(sink);
    }
}

impl<T: TraceValue> TraceValue for Option<T> {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        match self {
            Some(v) => v.encode(sink),
            None => codec::put_absent(sink.out),
        }
    }
}

impl<T: TraceValue> TraceValue for Vec<T> {
    fn encode(&self, sink: &mut FieldSink<'_>) {
        codec::put_list_header(sink.out, self.len());
        for item in self {
            item.encode(sink);
        }
    }
}

impl TraceValue for Value {
    #[inline]
    fn encode(&self, sink: &mut FieldSink<'_>) {
        codec::encode_value(sink.out, sink.interner, self);
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::Trace;

    /// One event recorded through `record!` and the same built from
    /// `Value`s read back identically, field by field.
    #[test]
    fn every_trace_value_reads_back_as_its_value() {
        let node = NodeId::new("n1");
        let bytes = Bytes::from_static(b"v\x00");
        let mut direct = Trace::new();
        crate::record!(
            direct,
            4,
            "every_kind",
            a = 7u8,
            b = 9usize,
            c = -3i64,
            d = 5i64,
            e = -2i32,
            f = true,
            g = "static",
            h = String::from("owned"),
            i = &node,
            j = node.clone(),
            k = &bytes,
            l = bytes.clone(),
            m = Some(3u64),
            n = None::<u64>,
            o = vec![1u64, 2],
            p = vec![Some(&node), None],
            q = Value::Int(4),
        );
        let mut built = Trace::new();
        let fields: Vec<(Cow<'static, str>, Value)> = vec![
            ("a".into(), Value::from(7u8)),
            ("b".into(), Value::from(9usize)),
            ("c".into(), Value::from(-3i64)),
            ("d".into(), Value::from(5i64)),
            ("e".into(), Value::from(-2i32)),
            ("f".into(), Value::from(true)),
            ("g".into(), Value::from("static")),
            ("h".into(), Value::from(String::from("owned"))),
            ("i".into(), Value::from(&node)),
            ("j".into(), Value::from(node.clone())),
            ("k".into(), Value::from(&bytes)),
            ("l".into(), Value::from(bytes.clone())),
            ("m".into(), Value::from(Some(3u64))),
            ("n".into(), Value::from(None::<u64>)),
            ("o".into(), Value::from(vec![1u64, 2])),
            ("p".into(), Value::from(vec![Some(&node), None])),
            ("q".into(), Value::Int(4)),
        ];
        built.push(4, "every_kind", fields);
        assert_eq!(direct, built);
        assert_eq!(direct.to_text(), built.to_text());
        assert_eq!(
            direct.to_text(),
            "#0 @4 every_kind a=7 b=9 c=-3 d=5 e=-2 f=true g=\"static\" h=\"owned\" \
             i=n1 j=n1 k=b\"v\\x00\" l=b\"v\\x00\" m=3 n=none o=[1, 2] p=[n1, none] q=4\n"
        );
    }
}
