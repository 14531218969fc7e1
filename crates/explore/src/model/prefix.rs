//! The runs along the last path a worker rebuilt, kept step by step: the
//! next state of a level is most often a sibling of the last (the frontier
//! is in parent order), so it is rebuilt from its parent's run by one
//! step, not from the first state by all of its steps.

use replication::GroupError;

use crate::run::{RunOptions, Runner};
use crate::schedule::Step;

/// One worker's runs along its last path: `runs[k]` is the run after the
/// path's first `k + 1` steps, named by the arena index of step `k`.
#[derive(Default)]
pub(super) struct Prefix<'a> {
    runs: Vec<(u32, Runner<'a>)>,
}

impl<'a> Prefix<'a> {
    /// The run after the steps `chain` names (arena indices, from the
    /// first step), from `root`: the runs the chain shares with the last
    /// one rebuilt are reused; those of its other ancestors are kept for
    /// the next. The chain's own run is handed out, not kept (no later
    /// state of the level descends from it).
    pub(super) fn rebuild(
        &mut self,
        root: &Runner<'a>,
        arena: &[(u32, Step)],
        chain: &[u32],
    ) -> Result<Runner<'a>, GroupError> {
        let shared = self
            .runs
            .iter()
            .zip(chain)
            .take_while(|((at, _), step)| at == *step)
            .count();
        self.runs.truncate(shared);
        let mut run = self.runs.last().map_or(root, |(_, run)| run).forked()?;
        for (k, &at) in chain.iter().enumerate().skip(shared) {
            run.apply(k, &arena[at as usize].1, RunOptions::SWEEP);
            if k + 1 < chain.len() {
                let next = run.forked()?;
                self.runs.push((at, run));
                run = next;
            }
        }
        Ok(run)
    }

    /// Forgets every run (after a panic while rebuilding).
    pub(super) fn clear(&mut self) {
        self.runs.clear();
    }
}
