//! What one trace event means to the picture, read from its kind and fields
//! alone (no protocol crate is consulted), so a new protocol's events are
//! drawn as long as they follow the trace's naming habits.
//!
//! Recognised shapes, by kind:
//!
//! - `message_sent` / `message_delivered` / `message_dropped` (`id`, `src`,
//!   `dst`, `msg`, `reason`): arrows.
//! - a kind ending in `_rejected`, `_fenced`, `_ignored` or `_refused` (or
//!   containing `reject` with a `reason`): a rejection at `node`, drawn on
//!   the delivery it follows.
//! - `*_node_crashed` / `*_node_restarted` / `*_node_isolated` /
//!   `*_node_healed`, `*_all_healed`, `*_link_cut` (`a`, `b`), `link_cut` /
//!   `link_restored` (`from`, `to`), `connection_reset` (`src`, `dst`): lane
//!   segments and notes.
//! - group start, elections, promotions, demotions, leaders learned, ISR
//!   membership, truncation: role / epoch / term / timeline notes.
//! - `client_op_submitted` / `client_op_completed`: client operations.
//! - the protocols' own client-facing events (`*_write_acknowledged`,
//!   `*_write_acked`, `*_write_committed`, `*_write_refused`,
//!   `*_read_blocked`, and the leader's append of a client write): markers;
//!   `*_read_served` (`key`, `level`, and `value` — absent when nothing was
//!   found — or only `found`): a served read, drawn with what it returned.

use sim_core::{EventRef, Value};

use super::roles::notes;
use super::text::{field, field_node, field_text, field_uint};

/// How a lane's state changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LaneChange {
    Crashed,
    Restarted,
    Isolated,
    Healed,
}

/// How a marker or a client operation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tone {
    /// A write or read as the client sent it, outcome not yet known.
    Info,
    /// Acknowledged, served.
    Ok,
    /// Refused, blocked, failed.
    Bad,
    /// The outcome is unknown to the client.
    Unknown,
}

/// One message event.
#[derive(Debug, Clone)]
pub(super) struct Wire {
    pub id: u64,
    pub src: String,
    pub dst: String,
    pub msg: String,
}

/// A client operation's submission (`client_op_submitted`).
#[derive(Debug, Clone)]
pub(super) struct Submitted {
    pub op: u64,
    pub read: bool,
    pub key: String,
    pub value: Option<String>,
    pub level: Option<String>,
    pub node: Option<String>,
}

/// A client operation's completion (`client_op_completed`).
#[derive(Debug, Clone)]
pub(super) struct Completed {
    pub op: u64,
    pub tone: Tone,
    pub node: Option<String>,
    pub value: Option<String>,
    pub reason: Option<String>,
}

/// A node's own record of a read it served (`*_read_served`).
#[derive(Debug, Clone)]
pub(super) struct Served {
    pub node: Option<String>,
    pub key: String,
    /// `Some(None)`: it returned nothing; `None`: the event does not say
    /// what it returned (only `found = true`).
    pub value: Option<Option<String>>,
    pub level: Option<String>,
}

/// The meaning of one event.
#[derive(Debug, Clone)]
pub(super) enum Class {
    /// `run_started`: the events after it come from another group.
    RunStarted(String),
    Sent(Wire),
    Delivered(Wire),
    Dropped(Wire, String),
    /// A rejection at `node` with its label.
    Rejected {
        node: String,
        label: String,
    },
    Lane(String, LaneChange),
    /// Every isolation ends.
    HealAll,
    /// Notes on lanes: `(node, text)`.
    Notes(Vec<(String, String)>),
    /// A client-facing event; on `node`'s lane, or in the clients band.
    Marker {
        node: Option<String>,
        text: String,
        tone: Tone,
    },
    /// A read served by a node, as the node recorded it.
    Served(Served),
    Submitted(Submitted),
    Completed(Completed),
    /// Anything else, on `node`'s lane when it names one.
    Other(Option<String>),
}

/// Reads the meaning of `event`.
pub(super) fn classify(event: &EventRef<'_>) -> Class {
    let kind = event.kind;
    match kind {
        "run_started" => {
            return Class::RunStarted(field_text(event, "name").unwrap_or_default());
        }
        "message_sent" | "message_delivered" | "message_dropped" => {
            if let Some(wire) = wire(event) {
                return match kind {
                    "message_sent" => Class::Sent(wire),
                    "message_delivered" => Class::Delivered(wire),
                    _ => Class::Dropped(wire, field_text(event, "reason").unwrap_or_default()),
                };
            }
        }
        "client_op_submitted" => {
            if let Some(s) = submitted(event) {
                return Class::Submitted(s);
            }
        }
        "client_op_completed" => {
            if let Some(c) = completed(event) {
                return Class::Completed(c);
            }
        }
        _ => {}
    }
    let node = field_node(event, "node");
    if let Some(marker) = marker(event, node.clone()) {
        return marker;
    }
    if let (Some(node), Some(label)) = (node.clone(), rejection(event)) {
        return Class::Rejected { node, label };
    }
    if let Some(lane) = lane_change(event, node.clone()) {
        return lane;
    }
    let notes = notes(event);
    if !notes.is_empty() {
        return Class::Notes(notes);
    }
    Class::Other(node)
}

fn wire(event: &EventRef<'_>) -> Option<Wire> {
    Some(Wire {
        id: field_uint(event, "id")?,
        src: field_node(event, "src")?,
        dst: field_node(event, "dst")?,
        msg: field_text(event, "msg").unwrap_or_default(),
    })
}

fn submitted(event: &EventRef<'_>) -> Option<Submitted> {
    Some(Submitted {
        op: field_uint(event, "op")?,
        read: field_text(event, "kind").as_deref() == Some("read"),
        key: field_text(event, "key").unwrap_or_default(),
        value: field_text(event, "value"),
        level: field_text(event, "level"),
        node: field_node(event, "node"),
    })
}

fn completed(event: &EventRef<'_>) -> Option<Completed> {
    let tone = match field_text(event, "outcome").as_deref() {
        Some("done") => Tone::Ok,
        Some("failed") => Tone::Bad,
        _ => Tone::Unknown,
    };
    Some(Completed {
        op: field_uint(event, "op")?,
        tone,
        node: field_node(event, "node"),
        value: field_text(event, "value"),
        reason: field_text(event, "reason"),
    })
}

/// The kind without its protocol prefix: `isr_append_rejected` →
/// `append_rejected`.
fn bare(kind: &str) -> &str {
    kind.split_once('_').map_or(kind, |(_, rest)| rest)
}

/// `" (epoch 1 < 2)"` from the first pair of "what the message carried /
/// what the node knows" fields present.
fn comparison(event: &EventRef<'_>) -> String {
    const PAIRS: [(&str, &str, &str); 4] = [
        ("packet_epoch", "known_epoch", "epoch"),
        ("msg_term", "term", "term"),
        ("msg_timeline", "node_timeline", "timeline"),
        ("msg_generation", "node_generation", "gen"),
    ];
    for (carried, known, name) in PAIRS {
        if let (Some(a), Some(b)) = (field_uint(event, carried), field_uint(event, known)) {
            let op = match a.cmp(&b) {
                std::cmp::Ordering::Less => "<",
                std::cmp::Ordering::Equal => "=",
                std::cmp::Ordering::Greater => ">",
            };
            return format!(" ({name} {a} {op} {b})");
        }
    }
    match field_uint(event, "conflict_index") {
        Some(i) => format!(" (conflict at {i})"),
        None => String::new(),
    }
}

/// The label of a rejection, when `event` is one.
fn rejection(event: &EventRef<'_>) -> Option<String> {
    let kind = event.kind;
    let reason = field_text(event, "reason");
    let verb = if kind.ends_with("_fenced") {
        "fenced"
    } else if kind.ends_with("_rejected") || (kind.contains("reject") && reason.is_some()) {
        "rejected"
    } else if kind.ends_with("_ignored") {
        "ignored"
    } else if kind.ends_with("_refused") {
        "refused"
    } else {
        return None;
    };
    let what = match reason {
        Some(reason) => format!("{verb}: {reason}"),
        None => bare(kind).to_owned(),
    };
    Some(format!("{what}{}", comparison(event)))
}

fn lane_change(event: &EventRef<'_>, node: Option<String>) -> Option<Class> {
    let kind = event.kind;
    if kind.ends_with("all_healed") {
        return Some(Class::HealAll);
    }
    if kind.ends_with("_link_cut") || kind.ends_with("_link_healed") {
        let (a, b) = (field_node(event, "a")?, field_node(event, "b")?);
        let verb = if kind.ends_with("_cut") {
            "cut"
        } else {
            "healed"
        };
        return Some(Class::Notes(vec![
            (a.clone(), format!("link to {b} {verb}")),
            (b, format!("link to {a} {verb}")),
        ]));
    }
    // The harness's one-way links: `link_cut` / `link_restored from= to=`,
    // and a stream's `connection_reset src= dst=`.
    if kind == "link_cut" || kind == "link_restored" || kind == "connection_reset" {
        let (from, to) = match (field_node(event, "from"), field_node(event, "to")) {
            (Some(f), Some(t)) => (f, t),
            _ => (field_node(event, "src")?, field_node(event, "dst")?),
        };
        let text = match kind {
            "link_cut" => format!("link to {to} cut"),
            "link_restored" => format!("link to {to} restored"),
            _ => format!("connection to {to} reset"),
        };
        return Some(Class::Notes(vec![(from, text)]));
    }
    let change = if kind.ends_with("node_crashed") {
        LaneChange::Crashed
    } else if kind.ends_with("node_restarted") {
        LaneChange::Restarted
    } else if kind.ends_with("node_isolated") {
        LaneChange::Isolated
    } else if kind.ends_with("node_healed") {
        LaneChange::Healed
    } else {
        return None;
    };
    Some(Class::Lane(node?, change))
}

/// What a `*_read_served` event says was returned: its `value` field
/// (absent: nothing), else `found = false` (nothing); `found = true` alone
/// does not say what.
fn served_value(event: &EventRef<'_>) -> Option<Option<String>> {
    if event.field("value").is_some() {
        return Some(field_text(event, "value"));
    }
    match field(event, "found") {
        Some(Value::Bool(false)) => Some(None),
        _ => None,
    }
}

/// The protocols' own client-facing events.
fn marker(event: &EventRef<'_>, node: Option<String>) -> Option<Class> {
    let kind = event.kind;
    let key = field_text(event, "key");
    let position = ["offset", "lsn", "index"]
        .iter()
        .find_map(|k| field_uint(event, k).map(|v| format!(" {k} {v}")))
        .unwrap_or_default();
    let reason = field_text(event, "reason")
        .map(|r| format!(": {r}"))
        .unwrap_or_default();
    let (text, tone) = if kind.ends_with("_write_acknowledged") || kind.ends_with("_write_acked") {
        (format!("✓ write acked{position}"), Tone::Ok)
    } else if kind.ends_with("_write_committed") {
        (format!("✓ write committed{position}"), Tone::Ok)
    } else if kind.ends_with("_write_refused") {
        (format!("✗ write refused{reason}"), Tone::Bad)
    } else if kind.ends_with("_read_served") {
        return Some(Class::Served(Served {
            node,
            key: key.unwrap_or_default(),
            value: served_value(event),
            level: field_text(event, "level"),
        }));
    } else if kind.ends_with("_read_blocked") {
        let why = field_text(event, "guard")
            .map(|g| format!(": {g}"))
            .unwrap_or(reason);
        (format!("✗ read blocked{why}"), Tone::Bad)
    } else if (kind.ends_with("_leader_appended")
        || kind.ends_with("_write_proposed")
        || kind.ends_with("_write_applied")
        || kind.ends_with("_record_appended"))
        && key.is_some()
    {
        let value = field_text(event, "value").unwrap_or_default();
        (format!("W {}={value}", key.unwrap_or_default()), Tone::Info)
    } else {
        return None;
    };
    Some(Class::Marker { node, text, tone })
}
