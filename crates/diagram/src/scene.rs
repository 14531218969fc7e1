//! The trace read into what will be drawn: lanes, rows (one per drawn
//! event, in trace order), messages, notes, lane segments and the clients
//! band. Nothing here knows coordinates.

use std::collections::BTreeSet;

use super::classify::Tone;

/// One row of the picture: a drawn event's place in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Row {
    pub tick: u64,
    /// Which group of a concatenated trace (`run_started` starts the next).
    pub section: usize,
    /// A minor row (an unrecognised event shown as a dot) is shorter.
    pub minor: bool,
}

/// Where a message's arrow ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum MsgEnd {
    Delivered(usize),
    /// Dropped at `row`; `at_send` when dropped as it was sent.
    Dropped {
        row: usize,
        reason: String,
        at_send: bool,
    },
    /// Neither delivered nor dropped when its section ends at this row.
    InFlight(usize),
}

/// One message, from its send to its end.
#[derive(Debug, Clone)]
pub(super) struct Message {
    pub src: usize,
    pub dst: usize,
    pub msg: String,
    pub send_row: usize,
    pub end: MsgEnd,
    /// What the receiver said right after delivery (`rejected: …`, `fenced: …`).
    pub rejection: Option<String>,
    /// The trace lines of the message's events.
    pub title: String,
}

/// How a lane note looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NoteStyle {
    /// Role, epoch, term, timeline.
    Role,
    /// Crashed, restarted, isolated, healed.
    State,
    /// A rejection that follows no delivery.
    Reject,
    /// A client-facing event.
    Marker(Tone),
    /// A read served with a value older than a write acknowledged before
    /// it was submitted.
    Stale,
    /// The node's record of an operation the caller marked violating.
    Violating,
    /// What changed in the node's protocol state (a [`StateNote`]).
    ///
    /// [`StateNote`]: super::options::StateNote
    StateLine,
}

/// Text beside a lane at a row.
#[derive(Debug, Clone)]
pub(super) struct Note {
    pub row: usize,
    pub lane: usize,
    pub text: String,
    pub style: NoteStyle,
    pub title: String,
}

/// An unrecognised event on a lane.
#[derive(Debug, Clone)]
pub(super) struct Dot {
    pub row: usize,
    pub lane: usize,
    pub title: String,
}

/// A stretch of a lane in a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SegmentKind {
    Crashed,
    Isolated,
}

/// A lane segment from one row to another.
#[derive(Debug, Clone)]
pub(super) struct Segment {
    pub lane: usize,
    pub kind: SegmentKind,
    pub from_row: usize,
    pub to_row: usize,
    /// Still in this state when the section ends.
    pub open_end: bool,
}

/// An entry of the clients band: a client operation from submit to
/// completion, or a client-facing event that names no node (one row).
#[derive(Debug, Clone)]
pub(super) struct BandItem {
    pub from_row: usize,
    pub to_row: usize,
    pub label: String,
    pub tone: Tone,
    /// A client operation (a bar), not a one-row marker.
    pub is_op: bool,
    /// Lane the client sent it to.
    pub target: Option<usize>,
    /// Lane that answered.
    pub server: Option<usize>,
    pub title: String,
    /// The client operation's id.
    pub op: Option<u64>,
    /// A read that returned a value older than a write acknowledged before
    /// it was submitted (see `stale.rs`).
    pub stale: bool,
    /// Marked violating by the caller (`DiagramOptions::violating`).
    pub violating: bool,
    /// The serving node's own note of this read, on its lane.
    pub note: Option<usize>,
}

impl BandItem {
    /// The tone it is drawn in: its outcome's, or bad when it is stale or
    /// marked violating.
    pub(super) fn drawn_tone(&self) -> Tone {
        if self.stale || self.violating {
            Tone::Bad
        } else {
            self.tone
        }
    }
}

/// Everything to draw.
#[derive(Debug, Clone, Default)]
pub(super) struct Scene {
    pub lanes: Vec<String>,
    pub rows: Vec<Row>,
    /// `(first row, name)` of each `run_started` section.
    pub sections: Vec<(usize, String)>,
    pub messages: Vec<Message>,
    pub notes: Vec<Note>,
    pub dots: Vec<Dot>,
    pub segments: Vec<Segment>,
    pub band: Vec<BandItem>,
    /// The faults a nemesis injected (crash, restart, isolate, heal, link
    /// cuts, slowness): `(section, tick, trace line)`, in trace order.
    pub faults: Vec<(usize, u64, String)>,
}

/// The axis mark of a tick at which a fault was injected.
pub(super) const FAULT_MARK: &str = "⚡";

/// The fault events a nemesis injects, as the harness records them (the
/// report's state panel marks the same ticks ⚡).
pub(super) const FAULT_KINDS: [&str; 8] = [
    "node_crashed",
    "node_restarted",
    "node_isolated",
    "node_healed",
    "link_cut",
    "link_restored",
    "all_healed",
    "node_slow",
];

/// Appended to the label of an operation marked violating.
pub(super) const VIOLATING_MARK: &str = " ◆ violating";

impl Scene {
    /// Marks the client operations with an id in `ops` violating, with
    /// their serving node's note.
    pub(super) fn mark_violating(&mut self, ops: &BTreeSet<u64>) {
        for item in &mut self.band {
            if !item.op.is_some_and(|op| ops.contains(&op)) {
                continue;
            }
            item.violating = true;
            item.label.push_str(VIOLATING_MARK);
            item.title.push_str(
                "\nmarked violating (e.g. the operation a linearizability check could not place)",
            );
            if let Some(note) = item.note.and_then(|n| self.notes.get_mut(n)) {
                note.style = NoteStyle::Violating;
                note.text.push_str(VIOLATING_MARK);
            }
        }
    }
}
