//! The JSON-lines form of a trace, and parsing it back.
//!
//! One object per line:
//! `{"seq":0,"tick":1,"kind":"message_sent","fields":{"from":"node-1",…},"nodes":["from","to"]}`.
//! Field values keep their type: numbers and booleans as JSON numbers and
//! booleans, text as a string, a node id as a plain string too (`"node-1"`,
//! so `jq '.fields.node == "node-1"'` works) with its field's name listed
//! in `"nodes"` (absent when no field holds a node), bytes as
//! `{"bytes":"utf-8 text"}` (or `{"bytes_hex":"00ff"}` when not UTF-8), a
//! list as an array (a list of nodes as an array of strings, its field in
//! `"nodes"`), an absent value as `null`. Field order is preserved, and a
//! line parses back to the same event. A field mixing node ids and text
//! (no event records one) keeps its nodes tagged, `{"node":"n1"}`, the
//! form [`value_to_json`] writes.

use std::borrow::Cow;
use std::fmt::Write as _;

use bytes::Bytes;
use serde_json::{Map, Value as Json, json};

use crate::error::SimError;
use crate::node::NodeId;
use crate::trace::event::{Event, EventRef};
use crate::trace::value::Value;

/// A value in its self-describing JSON form: as in a trace line, except
/// that a node id is tagged, `{"node":"n1"}` ([`value_from_json`] reads it
/// back; an event line lists its node fields instead).
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

/// What kinds of string a value holds: (a node id, text).
fn strings_in(value: &Value) -> (bool, bool) {
    match value {
        Value::Node(_) => (true, false),
        Value::Str(_) => (false, true),
        Value::List(items) => items
            .iter()
            .map(strings_in)
            .fold((false, false), |a, b| (a.0 || b.0, a.1 || b.1)),
        _ => (false, false),
    }
}

/// [`value_to_json`] with node ids as plain strings.
fn plain_value_to_json(value: &Value) -> Json {
    match value {
        Value::Node(n) => json!(n.as_str()),
        Value::List(items) => Json::Array(items.iter().map(plain_value_to_json).collect()),
        other => value_to_json(other),
    }
}

/// An event in its JSON form (see the module documentation).
pub fn event_to_json(event: EventRef<'_>) -> Json {
    let mut fields = Map::new();
    let mut nodes = Vec::new();
    for (key, value) in event.fields() {
        let json = match strings_in(&value) {
            (true, false) => {
                nodes.push(json!(key.to_string()));
                plain_value_to_json(&value)
            }
            _ => value_to_json(&value),
        };
        fields.insert(key.to_string(), json);
    }
    let mut line = json!({
        "seq": event.seq,
        "tick": event.tick,
        "kind": event.kind,
        "fields": fields,
    });
    if !nodes.is_empty() {
        line["nodes"] = Json::Array(nodes);
    }
    line
}

/// A field listed in `"nodes"`: its strings (also inside lists) are node ids.
fn as_nodes(value: Value) -> Value {
    match value {
        Value::Str(s) => Value::Node(NodeId::new(s.as_ref())),
        Value::List(items) => Value::List(items.into_iter().map(as_nodes).collect()),
        other => other,
    }
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
    let node_fields: Vec<&str> = match json.get("nodes") {
        None => Vec::new(),
        Some(Json::Array(names)) => names
            .iter()
            .map(|n| {
                n.as_str()
                    .ok_or_else(|| err("`nodes` lists field names".into()))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(err("`nodes` must be an array of field names".into())),
    };
    let mut fields = Vec::with_capacity(map.len());
    for (key, value) in map {
        let mut value = value_from_json(value).map_err(err)?;
        if node_fields.contains(&key.as_str()) {
            value = as_nodes(value);
        }
        fields.push((Cow::Owned(key.clone()), value));
    }
    Ok(Event {
        seq,
        tick,
        kind: Cow::Owned(kind),
        fields,
    })
}
