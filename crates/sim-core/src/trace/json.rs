//! The JSON-lines form of a trace, and parsing it back.
//!
//! One object per line: `{"seq":0,"tick":1,"kind":"message_sent","fields":{…}}`.
//! Field values keep their type: numbers and booleans as JSON numbers and
//! booleans, text as a string, a node as `{"node":"n1"}`, bytes as
//! `{"bytes":"utf-8 text"}` (or `{"bytes_hex":"00ff"}` when not UTF-8), a list
//! as an array, an absent value as `null`. Field order is preserved.

use std::borrow::Cow;
use std::fmt::Write as _;

use bytes::Bytes;
use serde_json::{Map, Value as Json, json};

use crate::error::SimError;
use crate::node::NodeId;
use crate::trace::event::{Event, EventRef};
use crate::trace::value::Value;

/// A value in its JSON form.
pub fn value_to_json(value: &Value) -> Json {
    match value {
        Value::UInt(v) => json!(v),
        Value::Int(v) => json!(v),
        Value::Bool(v) => json!(v),
        Value::Str(s) => json!(s.as_ref()),
        Value::Node(n) => json!({ "node": n.as_str() }),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(text) => json!({ "bytes": text }),
            Err(_) => {
                let mut hex = String::with_capacity(b.len() * 2);
                for byte in b.iter() {
                    let _ = write!(hex, "{byte:02x}");
                }
                json!({ "bytes_hex": hex })
            }
        },
        Value::List(items) => Json::Array(items.iter().map(value_to_json).collect()),
        Value::Absent => Json::Null,
    }
}

/// An event in its JSON form.
pub fn event_to_json(event: EventRef<'_>) -> Json {
    let mut fields = Map::new();
    for (key, value) in event.fields() {
        fields.insert(key.to_string(), value_to_json(&value));
    }
    json!({
        "seq": event.seq,
        "tick": event.tick,
        "kind": event.kind,
        "fields": fields,
    })
}

fn parse_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Reads a value back from its JSON form.
pub fn value_from_json(json: &Json) -> Result<Value, String> {
    Ok(match json {
        Json::Null => Value::Absent,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Value::UInt(u),
            (None, Some(i)) => Value::Int(i),
            _ => return Err(format!("number {n} is not an integer")),
        },
        Json::String(s) => Value::Str(Cow::Owned(s.clone())),
        Json::Array(items) => Value::List(
            items
                .iter()
                .map(value_from_json)
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(map) => {
            let mut entries = map.iter();
            match (entries.next(), entries.next()) {
                (Some((tag, Json::String(s))), None) => match tag.as_str() {
                    "node" => Value::Node(NodeId::new(s)),
                    "bytes" => Value::Bytes(Bytes::from(s.clone().into_bytes())),
                    "bytes_hex" => Value::Bytes(Bytes::from(
                        parse_hex(s).ok_or_else(|| format!("bad hex {s:?}"))?,
                    )),
                    other => return Err(format!("unknown value tag {other:?}")),
                },
                _ => return Err("object values must be a single tagged string".into()),
            }
        }
    })
}

/// Parses one JSON line back into an event.
pub fn event_from_json_line(line: &str, line_no: usize) -> Result<Event, SimError> {
    let err = |reason: String| SimError::TraceParse {
        line: line_no,
        reason,
    };
    let json: Json = serde_json::from_str(line).map_err(|e| err(e.to_string()))?;
    let seq = json["seq"]
        .as_u64()
        .ok_or_else(|| err("missing seq".into()))?;
    let tick = json["tick"]
        .as_u64()
        .ok_or_else(|| err("missing tick".into()))?;
    let kind = json["kind"]
        .as_str()
        .ok_or_else(|| err("missing kind".into()))?
        .to_owned();
    let map = json["fields"]
        .as_object()
        .ok_or_else(|| err("missing fields".into()))?;
    let mut fields = Vec::with_capacity(map.len());
    for (key, value) in map {
        fields.push((
            Cow::Owned(key.clone()),
            value_from_json(value).map_err(err)?,
        ));
    }
    Ok(Event {
        seq,
        tick,
        kind: Cow::Owned(kind),
        fields,
    })
}
