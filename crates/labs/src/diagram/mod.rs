//! Space-time diagrams: any run drawn from its trace alone, as a static SVG.
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
//!   name a node (`raft_write_committed`, `raft_read_served`, a leader's
//!   append of a client write, …) are markers on its lane;
//! - any other event naming a `node`: a small dot on its lane, with the
//!   trace line as its tooltip (every drawn element carries the trace
//!   lines it comes from as an SVG `<title>`).
//!
//! The output is SVG 1.1 with no script, no external resource and generic
//! font families; elements carry stable classes (`lane`, `msg`,
//! `msg dropped`, `msg rejected`, `reject`, `client-op done`, …) for tests
//! and styling. The same trace always gives byte-identical output.
//!
//! ```
//! use sim_core::{record, NodeId, Trace};
//! let (a, b) = (NodeId::new("a"), NodeId::new("b"));
//! let mut trace = Trace::new();
//! record!(trace, 0, "message_sent", id = 0u64, src = &a, dst = &b, msg = "ping");
//! record!(trace, 1, "message_delivered", id = 0u64, src = &a, dst = &b, msg = "ping");
//! let svg = labs::diagram::render_svg(&trace, &labs::diagram::DiagramOptions::default());
//! assert!(svg.contains(r#"class="msg""#) && svg.contains(">ping<"));
//! ```

mod arrows;
mod band;
mod classify;
mod draw;
mod lanes;
mod legend;
mod place;
mod read;
mod roles;
mod scene;
mod svg;
mod text;

pub use text::escape_xml;
mod timeline;

#[cfg(test)]
mod tests;

use sim_core::Trace;

use crate::matrix::EXPERIMENTS;
use crate::run::Run;

/// What to say around the picture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiagramOptions {
    /// The title line (e.g. experiment, protocol and variant); a generic
    /// one when `None`.
    pub title: Option<String>,
}

impl DiagramOptions {
    /// Options with `title`.
    pub fn titled(title: impl Into<String>) -> DiagramOptions {
        DiagramOptions {
            title: Some(title.into()),
        }
    }

    /// The title of an experiment run: `experiment 3 — old leader in a
    /// minority · isr · default`.
    pub fn for_run(run: &Run) -> DiagramOptions {
        let name = EXPERIMENTS
            .iter()
            .find(|(n, _)| *n == run.experiment)
            .map(|(_, name)| format!(" — {name}"))
            .unwrap_or_default();
        DiagramOptions::titled(format!(
            "experiment {}{name} · {} · {}",
            run.experiment, run.protocol, run.variant
        ))
    }
}

/// The space-time diagram of `trace` as a standalone SVG document.
pub fn render_svg(trace: &Trace, options: &DiagramOptions) -> String {
    let scene = read::build(trace);
    draw::render(&scene, options, trace)
}

/// The diagram of an experiment run, titled with
/// [`DiagramOptions::for_run`].
pub fn render_run(run: &Run) -> String {
    render_svg(&run.trace, &DiagramOptions::for_run(run))
}
