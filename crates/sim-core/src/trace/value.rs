//! Typed values carried by trace events.

use std::borrow::Cow;
use std::fmt;

use bytes::Bytes;

use crate::node::NodeId;

/// One field value of a trace event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A non-negative integer (offsets, ids, epochs, ticks).
    UInt(u64),
    /// A negative integer. `From<i64>` stores non-negative numbers as
    /// [`Value::UInt`] so every number has one canonical form.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// Text (a reason, a mode, a role).
    Str(Cow<'static, str>),
    /// A node id.
    Node(NodeId),
    /// A byte string (keys, values, WAL frames), rendered escaped.
    Bytes(Bytes),
    /// A list of values.
    List(Vec<Value>),
    /// No value (e.g. a leader that does not exist).
    Absent,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::UInt(v) => write!(f, "{v}"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Str(s) => write!(f, "{:?}", s.as_ref()),
            Value::Node(n) => write!(f, "{n}"),
            Value::Bytes(b) => {
                f.write_str("b\"")?;
                for &byte in b.iter() {
                    write!(f, "{}", std::ascii::escape_default(byte))?;
                }
                f.write_str("\"")
            }
            Value::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Value::Absent => f.write_str("none"),
        }
    }
}

macro_rules! from_uint {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Self { Value::UInt(v as u64) }
        }
    )*};
}
from_uint!(u8, u16, u32, u64, usize);

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        match u64::try_from(v) {
            Ok(u) => Value::UInt(u),
            Err(_) => Value::Int(v),
        }
    }
}

impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Value::from(i64::from(v))
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl From<&'static str> for Value {
    fn from(v: &'static str) -> Self {
        Value::Str(Cow::Borrowed(v))
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Str(Cow::Owned(v))
    }
}

impl From<NodeId> for Value {
    fn from(v: NodeId) -> Self {
        Value::Node(v)
    }
}

impl From<&NodeId> for Value {
    fn from(v: &NodeId) -> Self {
        Value::Node(v.clone())
    }
}

impl From<Bytes> for Value {
    fn from(v: Bytes) -> Self {
        Value::Bytes(v)
    }
}

impl From<&Bytes> for Value {
    fn from(v: &Bytes) -> Self {
        Value::Bytes(v.clone())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Absent, Into::into)
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Self {
        Value::List(v.into_iter().map(Into::into).collect())
    }
}
