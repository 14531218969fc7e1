//! An experiment run's space-time diagram: the `diagram` crate draws a
//! trace; this module only names the run in the picture's title.

use diagram::{DiagramOptions, render_svg};

use crate::matrix::EXPERIMENTS;
use crate::run::Run;
use crate::state_notes::state_notes;

/// The diagram options of an experiment run, titled `experiment 3 — old
/// leader in a minority · isr · default`, with its state changes as notes
/// on the lanes ([`state_notes`]).
pub fn diagram_options(run: &Run) -> DiagramOptions {
    let name = EXPERIMENTS
        .iter()
        .find(|(n, _)| *n == run.experiment)
        .map(|(_, name)| format!(" — {name}"))
        .unwrap_or_default();
    DiagramOptions::titled(format!(
        "experiment {}{name} · {} · {}",
        run.experiment, run.protocol, run.variant
    ))
    .with_state_notes(state_notes(run.states()))
}

/// The space-time diagram (SVG) of an experiment run, drawn from its trace
/// by [`diagram::render_svg`] and titled with [`diagram_options`].
pub fn diagram_of(run: &Run) -> String {
    render_svg(&run.trace, &diagram_options(run))
}
