//! One recorded trace event.

use std::borrow::Cow;
use std::fmt;

use crate::clock::Tick;
use crate::trace::value::Value;

/// An entry of the trace: `{seq, tick, kind, fields}`.
///
/// `seq` is the event's position in its trace, `kind` a stable snake_case
/// name (`message_sent`, `isr_member_removed`, …) and `fields` ordered
/// key/value pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Position in the trace, from 0.
    pub seq: u64,
    /// Tick at which the event was recorded.
    pub tick: Tick,
    /// Stable snake_case event name.
    pub kind: Cow<'static, str>,
    /// Ordered fields.
    pub fields: Vec<(Cow<'static, str>, Value)>,
}

impl Event {
    /// The value of field `key`, if present.
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// The stable one-line text form: `#seq @tick kind key=value …`.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{} @{} {}", self.seq, self.tick, self.kind)?;
        for (key, value) in &self.fields {
            write!(f, " {key}={value}")?;
        }
        Ok(())
    }
}
