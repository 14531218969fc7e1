//! The static report site `cargo xtask report` writes: its pages, built in
//! memory from the experiment runs, the explorer's verdicts and the replayed
//! counterexamples, with relative links only.
//!
//! - `index.html`: the matrix (every cell links to its run page), the read
//!   levels, the guarantees table (every counterexample links to its page),
//!   how to read it, and the legend of the cell words;
//! - `runs/expN-PROTOCOL-VARIANT.html`: one per run — the cell, the
//!   observed values, the legend of the experiment's words, the diagram,
//!   the state panel (every node's state at a chosen tick), the trace;
//! - `counterexamples/ID.html`: one per replay id the verdicts cite — the
//!   verdicts it breaks, the minimal schedule, the checks on the replay, the
//!   history timeline, lincheck's picture of the history, the diagram, the
//!   trace;
//! - `style.css`.
//!
//! `report --scenario FILE` writes a smaller site for one scenario file
//! instead ([`scenario_site`]).

pub mod counterexample;
pub mod html;
pub mod index;
pub mod legend;
pub mod run_page;
pub mod scenario_site;
pub mod state_panel;
pub mod trace_table;

use explore::{SweepOptions, Verdict};
use labs::Run;

use crate::explore_cmd::Replayed;

/// One file of the site.
pub struct Page {
    /// The path from the site's top, `/`-separated.
    pub path: String,
    /// The file's text.
    pub content: String,
}

/// Everything the site is made from.
pub struct Inputs<'a> {
    /// Every experiment run, in matrix order.
    pub runs: &'a [Run],
    /// The explorer's verdicts, one per property per configuration.
    pub verdicts: &'a [Verdict],
    /// The sweep that gave them.
    pub sweep: &'a SweepOptions,
    /// Every counterexample the verdicts cite, replayed, in first-cited order.
    pub replays: &'a [Replayed],
}

/// The run page's path.
pub fn run_path(run: &Run) -> String {
    format!(
        "runs/exp{}-{}-{}.html",
        run.experiment,
        run.protocol.name(),
        run.variant
    )
}

/// A counterexample page's path.
pub fn counterexample_path(id: &str) -> String {
    format!("counterexamples/{id}.html")
}

/// Every page of the site.
pub fn build(inputs: &Inputs<'_>) -> Vec<Page> {
    let mut pages = vec![
        Page {
            path: "style.css".to_owned(),
            // The lincheck pictures of the counterexample pages bring
            // their own rules (all under `.lincheck`).
            content: format!("{}{}", html::STYLE, lincheck::html::STYLE),
        },
        Page {
            path: "index.html".to_owned(),
            content: index::page(inputs),
        },
    ];
    for (i, run) in inputs.runs.iter().enumerate() {
        let previous = i.checked_sub(1).and_then(|j| inputs.runs.get(j));
        let next = inputs.runs.get(i + 1);
        pages.push(Page {
            path: run_path(run),
            content: run_page::page(run, previous, next),
        });
    }
    for replayed in inputs.replays {
        let id = replayed.id.to_string();
        let cited: Vec<&Verdict> = inputs
            .verdicts
            .iter()
            .filter(|v| {
                v.counterexample
                    .as_ref()
                    .is_some_and(|cx| cx.replay.to_string() == id)
            })
            .collect();
        pages.push(Page {
            path: counterexample_path(&id),
            content: counterexample::page(replayed, &cited),
        });
    }
    pages
}
