//! Key/value histories as JSON lines.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::history::Operation;
use crate::kv::{KvInput, KvOutput};

/// A JSON-lines history that could not be read; names the line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("history line {line}: {reason}")]
pub struct ParseError {
    /// 1-based line number in the input.
    pub line: usize,
    /// What was wrong with it.
    pub reason: String,
}

/// Reads a key/value history, one JSON object per line.
///
/// ```text
/// {"id":1,"client":0,"call":3,"return":7,"op":"put","key":"k","value":"v1"}
/// {"id":2,"client":1,"call":4,"return":9,"op":"get","key":"k","value":"v1"}
/// {"id":3,"client":2,"call":5,"return":null,"op":"put","key":"k","value":"v2"}
/// {"id":4,"client":1,"call":10,"return":14,"outcome":"unknown","op":"get","key":"k"}
/// ```
///
/// - `id`, `client`, `call`: non-negative integers; ids are unique.
/// - `return`: the return tick (not before `call`), or `null` if the
///   operation never returned (it may take effect later, or never). The
///   field is required.
/// - `outcome` (optional): `"unknown"` for an operation that returned but
///   whose answer is unknown — a read that timed out at a known tick
///   ([`Operation::unanswered`]). It took effect inside its interval.
/// - `op`: `"put"` or `"get"`; `key`: a string.
/// - `value`: for a put, the string it wrote (or tried to write); for a
///   get with a known answer, the string it read or `null` for absent; for
///   a get whose answer is unknown it is ignored and may be left out.
///
/// Blank lines are skipped; other fields are ignored, so a recorder may
/// add its own (`"node"`, `"note"`, …).
pub fn parse_jsonl(input: &str) -> Result<Vec<Operation<KvInput, KvOutput>>, ParseError> {
    let mut history = Vec::new();
    let mut first_line_of_id = HashMap::new();
    for (index, text) in input.lines().enumerate() {
        let line = index + 1;
        if text.trim().is_empty() {
            continue;
        }
        let op = parse_line(text).map_err(|reason| ParseError { line, reason })?;
        if let Some(first) = first_line_of_id.insert(op.id, line) {
            return Err(ParseError {
                line,
                reason: format!("id {} was already used on line {first}", op.id),
            });
        }
        history.push(op);
    }
    Ok(history)
}

/// One line, or the reason it is not an operation.
fn parse_line(text: &str) -> Result<Operation<KvInput, KvOutput>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(fields) = value else {
        return Err("expected a JSON object".to_string());
    };
    let id = integer(&fields, "id")?;
    let client = integer(&fields, "client")?;
    let call = integer(&fields, "call")?;
    let ret = match fields.get("return") {
        None => {
            return Err(
                "missing field `return` (use null for an operation that never returned)"
                    .to_string(),
            );
        }
        Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or("field `return` must be a non-negative integer or null")?,
        ),
    };
    if let Some(ret) = ret
        && ret < call
    {
        return Err(format!(
            "returns at tick {ret}, before its call at tick {call}"
        ));
    }
    let answered = match fields.get("outcome") {
        None => ret.is_some(),
        Some(Value::String(s)) if s == "unknown" => false,
        Some(_) => {
            return Err(
                "field `outcome` must be \"unknown\" (an answer that was never seen) or left out"
                    .to_string(),
            );
        }
    };
    let key = string(&fields, "key")?.to_string();
    let (input, output) = match string(&fields, "op")? {
        "put" => {
            let value = string(&fields, "value")?.to_string();
            (
                KvInput::Put { key, value },
                answered.then_some(KvOutput::Ok),
            )
        }
        "get" => {
            let output = if answered {
                Some(KvOutput::Value(optional_string(&fields, "value")?))
            } else {
                None
            };
            (KvInput::Get { key }, output)
        }
        other => {
            return Err(format!(
                "unknown op {other:?} (expected \"put\" or \"get\")"
            ));
        }
    };
    Ok(Operation {
        id,
        client,
        call,
        ret,
        input,
        output,
    })
}

fn integer(fields: &Map<String, Value>, name: &str) -> Result<u64, String> {
    match fields.get(name) {
        None => Err(format!("missing field `{name}`")),
        Some(v) => v
            .as_u64()
            .ok_or_else(|| format!("field `{name}` must be a non-negative integer")),
    }
}

fn string<'a>(fields: &'a Map<String, Value>, name: &str) -> Result<&'a str, String> {
    match fields.get(name) {
        None => Err(format!("missing field `{name}`")),
        Some(v) => v
            .as_str()
            .ok_or_else(|| format!("field `{name}` must be a string")),
    }
}

fn optional_string(fields: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match fields.get(name) {
        None => Err(format!(
            "missing field `{name}` (use null for a read that found the key absent)"
        )),
        Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("field `{name}` must be a string or null")),
    }
}

/// Writes a key/value history as JSON lines, in the order given, in the
/// format [`parse_jsonl`] reads (each line ends with `\n`).
///
/// The format can only say what a register can answer, so two pairings
/// [`KvModel`](crate::KvModel) finds illegal anyway do not survive a round
/// trip: a put answered [`KvOutput::Value`] is written as an acknowledged
/// put, and a get answered [`KvOutput::Ok`] as a read of absent.
pub fn to_jsonl(history: &[Operation<KvInput, KvOutput>]) -> String {
    let mut out = String::new();
    for op in history {
        let mut fields = Map::new();
        fields.insert("id".into(), op.id.into());
        fields.insert("client".into(), op.client.into());
        fields.insert("call".into(), op.call.into());
        fields.insert("return".into(), op.ret.map_or(Value::Null, Value::from));
        if op.ret.is_some() && op.output.is_none() {
            fields.insert("outcome".into(), "unknown".into());
        }
        let (name, key, value) = match &op.input {
            KvInput::Put { key, value } => ("put", key, Value::from(value.as_str())),
            KvInput::Get { key } => {
                let read = match &op.output {
                    Some(KvOutput::Value(Some(v))) => Value::from(v.as_str()),
                    _ => Value::Null,
                };
                ("get", key, read)
            }
        };
        fields.insert("op".into(), name.into());
        fields.insert("key".into(), key.as_str().into());
        fields.insert("value".into(), value);
        out.push_str(&Value::Object(fields).to_string());
        out.push('\n');
    }
    out
}
