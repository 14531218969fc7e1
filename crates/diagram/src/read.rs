//! Reading a trace into a [`Scene`]: lanes from the node ids, one row per
//! drawn event in trace order, messages matched by id, rejections attached
//! to the delivery they follow, lane segments opened and closed, client
//! operations matched by op id.

use std::collections::HashMap;

use sim_core::{Trace, Value};

use super::classify::{Class, Completed, LaneChange, Served, Submitted, Tone, Wire, classify};
use super::scene::{
    BandItem, Dot, FAULT_KINDS, Message, MsgEnd, Note, NoteStyle, Row, Scene, Segment, SegmentKind,
};
use super::stale::{History, Stale};
use super::text::{field, truncate};

/// Longest value shown in a client label.
const VALUE_CHARS: usize = 12;

/// A node's note of a read it served, until the client's completion of
/// that read (same node, tick and key) is seen.
#[derive(Debug, Clone)]
struct ServedNote {
    tick: u64,
    note: usize,
    served: Served,
}

/// The text of a served read's lane note: `R k → v (LEVEL)`, `R k → none
/// (LOCAL, stale)`; `value` is `None` when neither the node's event nor the
/// client's completion says what was returned.
fn served_text(served: &Served, value: Option<Option<&str>>, stale: bool) -> String {
    let shown = match value {
        Some(Some(v)) => v,
        Some(None) => "none",
        None => "value not traced",
    };
    let notes: Vec<&str> = served
        .level
        .as_deref()
        .into_iter()
        .chain(stale.then_some("stale"))
        .collect();
    let notes = match notes.is_empty() {
        true => String::new(),
        false => format!(" ({})", notes.join(", ")),
    };
    format!("R {} → {shown}{notes}", served.key)
}

/// The tooltip line of a stale read.
fn stale_title(stale: &Stale) -> String {
    let value = stale.latest_value.as_deref().unwrap_or("none");
    format!(
        "stale: op {} (W {}={value}) was acknowledged before this read was submitted",
        stale.latest_op, stale.key
    )
}

/// Lane names: the group-start event's `nodes` first, then every node named
/// anywhere, in order of first appearance.
fn discover_lanes(trace: &Trace) -> Vec<String> {
    fn collect(value: &Value, lanes: &mut Vec<String>) {
        match value {
            Value::Node(n) if !lanes.iter().any(|l| l == n.as_str()) => {
                lanes.push(n.as_str().to_owned())
            }
            Value::List(items) => items.iter().for_each(|v| collect(v, lanes)),
            _ => {}
        }
    }
    let mut lanes = Vec::new();
    if let Some(start) = trace
        .events()
        .find(|e| e.kind.ends_with("_group_started") || e.kind.ends_with("_group_created"))
        && let Some(nodes) = field(&start, "nodes")
    {
        collect(&nodes, &mut lanes);
    }
    for event in trace.events() {
        for (_, value) in event.fields() {
            collect(&value, &mut lanes);
        }
    }
    lanes
}

struct Builder {
    scene: Scene,
    lane_of: HashMap<String, usize>,
    section: usize,
    /// Message index by (section, id).
    messages: HashMap<(usize, u64), usize>,
    /// Per lane: the last delivery's (tick, message index).
    last_delivery: Vec<Option<(u64, usize)>>,
    crashed: Vec<Option<usize>>,
    isolated: Vec<Option<usize>>,
    /// Band item index by (section, op id).
    ops: HashMap<(usize, u64), usize>,
    /// This section's client operations, to find stale reads.
    history: History,
    /// Per lane: its latest served-read note not yet matched to a client
    /// operation.
    served: Vec<Option<ServedNote>>,
}

impl Builder {
    fn row(&mut self, tick: u64, minor: bool) -> usize {
        self.scene.rows.push(Row {
            tick,
            section: self.section,
            minor,
        });
        self.scene.rows.len() - 1
    }

    fn lane(&self, node: &str) -> Option<usize> {
        self.lane_of.get(node).copied()
    }

    fn note(&mut self, row: usize, node: &str, text: String, style: NoteStyle, title: &str) {
        if let Some(lane) = self.lane(node) {
            self.scene.notes.push(Note {
                row,
                lane,
                text,
                style,
                title: title.to_owned(),
            });
        }
    }

    fn dot(&mut self, tick: u64, node: &str, title: &str) {
        if let Some(lane) = self.lane(node) {
            let row = self.row(tick, true);
            self.scene.dots.push(Dot {
                row,
                lane,
                title: title.to_owned(),
            });
        }
    }

    /// Ends every open segment at `row` (the end of a section or the trace).
    fn close_segments(&mut self, row: usize) {
        for lane in 0..self.scene.lanes.len() {
            for kind in [SegmentKind::Crashed, SegmentKind::Isolated] {
                self.end_segment(lane, kind, row, true);
            }
        }
    }

    fn end_segment(&mut self, lane: usize, kind: SegmentKind, row: usize, open_end: bool) {
        let open = match kind {
            SegmentKind::Crashed => &mut self.crashed[lane],
            SegmentKind::Isolated => &mut self.isolated[lane],
        };
        if let Some(from_row) = open.take() {
            self.scene.segments.push(Segment {
                lane,
                kind,
                from_row,
                to_row: row,
                open_end,
            });
        }
    }

    fn sent(&mut self, tick: u64, wire: Wire, title: &str) {
        let (Some(src), Some(dst)) = (self.lane(&wire.src), self.lane(&wire.dst)) else {
            return;
        };
        let send_row = self.row(tick, false);
        self.messages
            .insert((self.section, wire.id), self.scene.messages.len());
        self.scene.messages.push(Message {
            src,
            dst,
            msg: wire.msg,
            send_row,
            end: MsgEnd::InFlight(send_row),
            rejection: None,
            title: title.to_owned(),
        });
    }

    fn delivered(&mut self, tick: u64, wire: Wire, title: &str) {
        let Some(&index) = self.messages.get(&(self.section, wire.id)) else {
            self.dot(tick, &wire.dst, title);
            return;
        };
        let row = self.row(tick, false);
        let message = &mut self.scene.messages[index];
        message.end = MsgEnd::Delivered(row);
        message.title.push('\n');
        message.title.push_str(title);
        let dst = message.dst;
        self.last_delivery[dst] = Some((tick, index));
    }

    fn dropped(&mut self, tick: u64, wire: Wire, reason: String, title: &str) {
        let Some(&index) = self.messages.get(&(self.section, wire.id)) else {
            self.dot(tick, &wire.src, title);
            return;
        };
        let (send_row, end, dst) = {
            let m = &self.scene.messages[index];
            (m.send_row, m.end.clone(), m.dst)
        };
        let end = match end {
            // Delivered, then discarded at the receiver in the same tick.
            MsgEnd::Delivered(row) if self.scene.rows[row].tick == tick => {
                self.last_delivery[dst] = None;
                MsgEnd::Dropped {
                    row,
                    reason,
                    at_send: false,
                }
            }
            MsgEnd::InFlight(_) if self.scene.rows[send_row].tick == tick => MsgEnd::Dropped {
                row: send_row,
                reason,
                at_send: true,
            },
            _ => MsgEnd::Dropped {
                row: self.row(tick, false),
                reason,
                at_send: false,
            },
        };
        let message = &mut self.scene.messages[index];
        message.end = end;
        message.title.push('\n');
        message.title.push_str(title);
    }

    fn rejected(&mut self, tick: u64, node: &str, label: String, title: &str) {
        let lane = self.lane(node);
        let delivery = lane.and_then(|l| self.last_delivery[l]);
        match delivery {
            Some((at, index)) if at == tick => {
                let message = &mut self.scene.messages[index];
                match &mut message.rejection {
                    Some(existing) => {
                        existing.push_str("; ");
                        existing.push_str(&label);
                    }
                    None => message.rejection = Some(label),
                }
                message.title.push('\n');
                message.title.push_str(title);
            }
            _ => {
                let row = self.row(tick, false);
                self.note(row, node, label, NoteStyle::Reject, title);
            }
        }
    }

    fn lane_change(
        &mut self,
        tick: u64,
        node: &str,
        change: LaneChange,
        text: String,
        title: &str,
    ) {
        let Some(lane) = self.lane(node) else { return };
        let row = self.row(tick, false);
        self.note(row, node, text, NoteStyle::State, title);
        match change {
            LaneChange::Crashed => {
                self.crashed[lane].get_or_insert(row);
            }
            LaneChange::Restarted => self.end_segment(lane, SegmentKind::Crashed, row, false),
            LaneChange::Isolated => {
                self.isolated[lane].get_or_insert(row);
            }
            LaneChange::Healed => self.end_segment(lane, SegmentKind::Isolated, row, false),
        }
    }

    fn heal_all(&mut self, tick: u64, title: &str) {
        let row = self.row(tick, false);
        for lane in 0..self.scene.lanes.len() {
            if self.isolated[lane].is_some() {
                self.end_segment(lane, SegmentKind::Isolated, row, false);
                let node = self.scene.lanes[lane].clone();
                self.note(row, &node, "healed".into(), NoteStyle::State, title);
            }
        }
    }

    fn band_marker(&mut self, row: usize, label: String, tone: Tone, title: &str) {
        self.scene.band.push(BandItem {
            from_row: row,
            to_row: row,
            label,
            tone,
            is_op: false,
            target: None,
            server: None,
            title: title.to_owned(),
            op: None,
            stale: false,
            violating: false,
            note: None,
        });
    }

    /// A node's record of a read it served: a note on its lane, completed
    /// by the client's completion of the read when one follows.
    fn served(&mut self, tick: u64, served: Served, title: &str) {
        let Some(lane) = served.node.as_deref().and_then(|n| self.lane(n)) else {
            return;
        };
        let row = self.row(tick, false);
        let note = self.scene.notes.len();
        let text = served_text(&served, served.value.as_ref().map(Option::as_deref), false);
        self.scene.notes.push(Note {
            row,
            lane,
            text,
            style: NoteStyle::Marker(Tone::Ok),
            title: title.to_owned(),
        });
        self.served[lane] = Some(ServedNote { tick, note, served });
    }

    fn submitted(&mut self, at: usize, tick: u64, op: Submitted, title: &str) {
        let row = self.row(tick, false);
        match op.read {
            true => self.history.read_submitted(op.op, &op.key, at),
            false => self
                .history
                .write_submitted(op.op, &op.key, op.value.clone(), at),
        }
        let label = match (op.read, &op.value) {
            (true, _) => format!("R {}", truncate(&op.key, VALUE_CHARS)),
            (false, Some(v)) => format!(
                "W {}={}",
                truncate(&op.key, VALUE_CHARS),
                truncate(v, VALUE_CHARS)
            ),
            (false, None) => format!("W {}", truncate(&op.key, VALUE_CHARS)),
        };
        let level = op.level.map(|l| format!(" [{l}]")).unwrap_or_default();
        self.ops
            .insert((self.section, op.op), self.scene.band.len());
        let target = op.node.as_deref().and_then(|n| self.lane(n));
        self.scene.band.push(BandItem {
            from_row: row,
            to_row: row,
            label,
            tone: Tone::Info,
            is_op: true,
            target,
            server: None,
            title: format!("op {}{level}\n{title}", op.op),
            op: Some(op.op),
            stale: false,
            violating: false,
            note: None,
        });
    }

    fn completed(&mut self, at: usize, tick: u64, done: Completed, title: &str) {
        let row = self.row(tick, false);
        let Some(&index) = self.ops.get(&(self.section, done.op)) else {
            self.band_marker(row, format!("op {} ended", done.op), done.tone, title);
            if let Some(item) = self.scene.band.last_mut() {
                item.op = Some(done.op);
            }
            return;
        };
        let server = done.node.as_deref().and_then(|n| self.lane(n));
        let read = self.scene.band[index].label.starts_with('R');
        let stale = match (done.tone, read) {
            (Tone::Ok, true) => self.history.judge_read(done.op, done.value.as_deref()),
            (tone, false) => {
                self.history.write_ended(done.op, at, tone == Tone::Ok);
                None
            }
            _ => None,
        };
        if done.tone == Tone::Ok && read {
            self.link_served(index, tick, server, &done, stale.is_some());
        }
        let item = &mut self.scene.band[index];
        let reason = done
            .reason
            .map(|r| format!(" {}", truncate(&r, 14)))
            .unwrap_or_default();
        let suffix = match (done.tone, read) {
            (Tone::Ok, true) => format!(
                " → {}{}",
                truncate(done.value.as_deref().unwrap_or("none"), VALUE_CHARS),
                if stale.is_some() { " (stale)" } else { "" }
            ),
            (Tone::Ok, false) => " ✓".to_owned(),
            (Tone::Bad, _) => format!(" ✗{reason}"),
            _ => " ?".to_owned(),
        };
        item.label.push_str(&suffix);
        item.tone = done.tone;
        item.stale = stale.is_some();
        item.to_row = row;
        item.server = server;
        item.title.push('\n');
        item.title.push_str(title);
        if let Some(stale) = &stale {
            item.title.push('\n');
            item.title.push_str(&stale_title(stale));
        }
    }

    /// Attaches the serving node's note of a read (same lane, tick and key)
    /// to its band item, saying what the read returned and whether it is
    /// stale.
    fn link_served(
        &mut self,
        index: usize,
        tick: u64,
        server: Option<usize>,
        done: &Completed,
        stale: bool,
    ) {
        let Some(lane) = server else { return };
        let key = self.history.read_key(done.op);
        let matches = self.served[lane]
            .as_ref()
            .is_some_and(|s| s.tick == tick && Some(s.served.key.as_str()) == key);
        if !matches {
            return;
        }
        let Some(ServedNote { note, served, .. }) = self.served[lane].take() else {
            return;
        };
        let value = match &served.value {
            Some(own) => own.as_deref(),
            None => done.value.as_deref(),
        };
        let n = &mut self.scene.notes[note];
        n.text = served_text(&served, Some(value), stale);
        if stale {
            n.style = NoteStyle::Stale;
        }
        self.scene.band[index].note = Some(note);
    }

    /// Closes what is still open at the end of a section.
    fn end_section(&mut self) {
        let Some(last) = self.scene.rows.len().checked_sub(1) else {
            return;
        };
        self.close_segments(last);
        for message in &mut self.scene.messages {
            if matches!(message.end, MsgEnd::InFlight(r) if r == message.send_row)
                && self.scene.rows[message.send_row].section == self.section
            {
                message.end = MsgEnd::InFlight(last);
            }
        }
        for item in &mut self.scene.band {
            if item.is_op
                && item.tone == Tone::Info
                && self.scene.rows[item.from_row].section == self.section
            {
                item.to_row = last;
                item.label.push_str(" …");
            }
        }
        self.last_delivery.iter_mut().for_each(|d| *d = None);
        self.served.iter_mut().for_each(|s| *s = None);
        self.history = History::default();
    }
}

/// Reads `trace` into a scene.
pub(super) fn build(trace: &Trace) -> Scene {
    let lanes = discover_lanes(trace);
    let n = lanes.len();
    let lane_of = lanes
        .iter()
        .enumerate()
        .map(|(i, l)| (l.clone(), i))
        .collect();
    let mut b = Builder {
        scene: Scene {
            lanes,
            ..Scene::default()
        },
        lane_of,
        section: 0,
        messages: HashMap::new(),
        last_delivery: vec![None; n],
        crashed: vec![None; n],
        isolated: vec![None; n],
        ops: HashMap::new(),
        history: History::default(),
        served: vec![None; n],
    };
    let has_client_ops = trace.count("client_op_submitted") > 0;
    for (at, event) in trace.events().enumerate() {
        let title = event.to_string();
        let tick = event.tick;
        if FAULT_KINDS.contains(&event.kind) {
            // Without `#seq @tick`: the tooltip names the tick.
            let line = title.splitn(3, ' ').nth(2).unwrap_or(title.as_str());
            b.scene.faults.push((b.section, tick, line.to_owned()));
        }
        match classify(&event) {
            Class::RunStarted(name) => {
                b.end_section();
                if !b.scene.rows.is_empty() {
                    b.section += 1;
                }
                let row = b.row(tick, false);
                b.scene.sections.push((row, name));
            }
            Class::Sent(wire) => b.sent(tick, wire, &title),
            Class::Delivered(wire) => b.delivered(tick, wire, &title),
            Class::Dropped(wire, reason) => b.dropped(tick, wire, reason, &title),
            Class::Rejected { node, label } => b.rejected(tick, &node, label, &title),
            Class::Lane(node, change) => {
                let text = match change {
                    LaneChange::Crashed => match field(&event, "lose_unfsynced") {
                        Some(Value::Bool(true)) => "crashed (unfsynced lost)".to_owned(),
                        _ => "crashed".to_owned(),
                    },
                    LaneChange::Restarted => "restarted".to_owned(),
                    LaneChange::Isolated => "isolated".to_owned(),
                    LaneChange::Healed => "healed".to_owned(),
                };
                b.lane_change(tick, &node, change, text, &title);
            }
            Class::HealAll => b.heal_all(tick, &title),
            Class::Notes(notes) => {
                let row = b.row(tick, false);
                for (node, text) in notes {
                    b.note(row, &node, text, NoteStyle::Role, &title);
                }
            }
            Class::Marker {
                node: Some(node),
                text,
                tone,
            } => {
                let row = b.row(tick, false);
                b.note(row, &node, text, NoteStyle::Marker(tone), &title);
            }
            // Once a trace records client operations, their bars say what
            // these node-less markers would.
            Class::Marker { node: None, .. } if has_client_ops => {}
            Class::Marker {
                node: None,
                text,
                tone,
            } => {
                let row = b.row(tick, false);
                b.band_marker(row, text, tone, &title);
            }
            Class::Served(served) if served.node.is_some() => b.served(tick, served, &title),
            // A served read that names no node: as the node-less markers.
            Class::Served(_) if has_client_ops => {}
            Class::Served(served) => {
                let row = b.row(tick, false);
                let text = served_text(&served, served.value.as_ref().map(Option::as_deref), false);
                b.band_marker(row, text, Tone::Ok, &title);
            }
            Class::Submitted(op) => b.submitted(at, tick, op, &title),
            Class::Completed(done) => b.completed(at, tick, done, &title),
            Class::Other(Some(node)) => b.dot(tick, &node, &title),
            Class::Other(None) => {}
        }
    }
    b.end_section();
    b.scene
}
