//! # diagram — space-time diagrams of a trace, as static SVG
//!
//! Any run of the simulator drawn from its [`Trace`] alone: this crate
//! depends on `sim-core` and nothing else of MiniDist, reads only event
//! kinds and fields, and so draws a protocol it has never heard of as long
//! as its events follow the trace's naming habits. Call [`render_svg`] with
//! a trace and [`DiagramOptions`] (the title, …); a runnable example that
//! draws a small hand-made trace: `cargo run -p sim-diagram --example
//! hand_made_trace > trace.svg`.
//!
//! ## What it mirrors, simplifies, omits
//!
//! - **Mirrors** Lamport's space-time diagrams and the timelines of
//!   Jepsen's checkers and ShiViz: processes as lanes, messages as arrows
//!   between a send and a receive, client operations as intervals from
//!   invocation to completion with their outcome.
//! - **Simplifies** time: a row per drawn event in trace order, not a
//!   scale of ticks, so simultaneous events never overlap.
//! - **Omits** interaction (no script: hover titles are the only extra),
//!   happens-before inferred from anything but message ids, and message
//!   payloads beyond the `msg` label.
//!
//! ## The picture
//!
//! One vertical lane per node, time flowing down (as in Lamport's and
//! Jepsen's diagrams, so labels read horizontally and a long run scrolls
//! instead of shrinking). Every drawn event gets its own row, in trace
//! order, so several events at one tick never overlap; ticks are separated
//! by a small gap and a long idle stretch is compressed into one break
//! marked `≈ N idle ticks`.
//!
//! What is drawn, read only from event kinds and fields (the exact rules
//! are in `classify.rs` and `roles.rs`):
//!
//! - **messages**: an arrow from `message_sent` to `message_delivered` with
//!   the same `id`, labelled with `msg`; a `message_dropped` one ends in a
//!   cross with its `reason`; a delivery followed at the receiver, in the
//!   same tick, by an event whose kind ends in `_rejected` / `_fenced` (or
//!   `_ignored` / `_refused`) ends in a red bar with that event's reason
//!   (the rejection is attached to the latest delivery to that node in
//!   that tick; with none, it is a note on the lane);
//! - **lanes**: crashed → restarted drawn dashed and grey, isolated → healed
//!   shaded;
//! - **notes** beside a lane: roles and their epoch / term / timeline /
//!   generation (group start, elections, promotions, demotions, leaders
//!   learned), ISR membership, log truncation;
//! - **clients band**, left of the lanes: `client_op_submitted` →
//!   `client_op_completed` as bars coloured by outcome (`W k=v ✓`,
//!   `R k → v`, `W k=v ?`, `R k ✗ reason`), packed one column per
//!   concurrently open operation; until a trace records client operations,
//!   the protocols' client-facing events that name no node
//!   (`isr_write_acknowledged`, …) are markers there instead. Those that
//!   name a node (`raft_write_committed`, a leader's append of a client
//!   write, …) are markers on its lane;
//! - **reads** say what they returned, from the trace: the completion's
//!   `value`, and on the serving node's lane its own `*_read_served` event
//!   (`value`, or `found = false`; `found = true` alone takes the value of
//!   the client's completion that follows it) — `R k → none` when nothing
//!   was returned. A read is **stale** when it returned a value older than
//!   a write acknowledged (`done`) before it was submitted, as far as the
//!   trace can tell (the rule is in `stale.rs`: the read's value was
//!   written only by writes that ended before that acknowledged write
//!   began; a write still in flight or overlapping it never makes a read
//!   stale): drawn
//!   in the bad tone as a pale bar, `R k → none (stale)`, and so is its
//!   lane note; the tooltip names the write it missed;
//! - **violating operations**, given by the caller in
//!   [`DiagramOptions::violating`] (e.g. the operation a linearizability
//!   checker could not place): the bad tone, a halo around the bar, `◆` on
//!   its label, on the serving lane and beside the tick label of the tick
//!   it completed (`violating-tick`), and a legend entry;
//! - **fault ticks**: `⚡` beside the tick label of each tick at which a
//!   fault was injected (`node_crashed`, `node_restarted`,
//!   `node_isolated`, `node_healed`, `link_cut`, `link_restored`,
//!   `all_healed`, `node_slow` — the nemesis' steps, as the report's state
//!   panel marks them), the faults as its tooltip (`fault-tick`), and a
//!   legend entry;
//! - **state notes**, given by the caller in
//!   [`DiagramOptions::state_notes`] (e.g. what changed in a node's
//!   protocol state — `LEO 2`, `HW 2`, `ISR {2,3}`, `commit 4` — from a
//!   run's recorded state lines): small teal notes on the node's lane in
//!   the tick they changed, the node's whole state line as the tooltip, and
//!   a legend entry;
//! - any other event naming a `node`: a small dot on its lane, with the
//!   trace line as its tooltip (every drawn element carries the trace
//!   lines it comes from as an SVG `<title>`).
//!
//! The output is SVG 1.1 with no script, no external resource and generic
//! font families; elements carry stable classes (`lane`, `msg`,
//! `msg dropped`, `msg rejected`, `reject`, `client-op done`,
//! `client-op done stale`, `violating`, `marker stale`, …) for tests
//! and styling. The same trace always gives byte-identical output.
//!
//! ```
//! use sim_core::{record, NodeId, Trace};
//! let (a, b) = (NodeId::new("a"), NodeId::new("b"));
//! let mut trace = Trace::new();
//! record!(trace, 0, "message_sent", id = 0u64, src = &a, dst = &b, msg = "ping");
//! record!(trace, 1, "message_delivered", id = 0u64, src = &a, dst = &b, msg = "ping");
//! let svg = diagram::render_svg(&trace, &diagram::DiagramOptions::default());
//! assert!(svg.contains(r#"class="msg""#) && svg.contains(">ping<"));
//! ```

mod arrows;
mod band;
mod classify;
mod draw;
mod geometry;
mod label;
mod lanes;
mod legend;
mod mark;
mod options;
mod palette;
mod place;
mod read;
mod roles;
mod scene;
mod stale;
mod state_notes;
mod svg;
mod text;
mod timeline;

#[cfg(test)]
mod tests;

use sim_core::Trace;

pub use options::{DiagramOptions, StateNote};
pub use text::escape_xml;

/// The space-time diagram of `trace` as a standalone SVG document.
pub fn render_svg(trace: &Trace, options: &DiagramOptions) -> String {
    let mut scene = read::build(trace);
    scene.mark_violating(&options.violating);
    scene.add_state_notes(&options.state_notes);
    draw::render(&scene, options, trace)
}

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
