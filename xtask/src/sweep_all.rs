//! What `cargo xtask explore` was asked, why it stopped, and the sweep over
//! a list of configurations that the table, the planted controls and the
//! report share.

use std::path::PathBuf;

use explore::{Configuration, SweepOptions, Verdict};

/// Why `run` stopped.
pub enum Stop {
    /// The request names nothing that exists.
    Usage(String),
    /// The run failed.
    Failed(String),
}

/// What `explore` was asked.
pub struct Options {
    pub protocol: Option<String>,
    pub ack: Option<String>,
    pub read: Option<String>,
    pub setting: Option<String>,
    pub schedules: u64,
    pub seed: u64,
    pub jobs: usize,
    pub replay: Option<String>,
    pub diagram: Option<PathBuf>,
    pub json: bool,
    pub jsonl: bool,
    pub shard: Option<(u64, u64)>,
    pub check: Option<PathBuf>,
    pub write: Option<PathBuf>,
    pub planted: bool,
    pub progress: bool,
}

/// The verdicts of every configuration in `configs` over `sweep`'s
/// schedules, configuration by configuration (a progress bar on stderr when
/// `progress`).
pub fn sweep_all(
    configs: &[Configuration],
    sweep: &SweepOptions,
    progress: bool,
) -> Result<Vec<Verdict>, Stop> {
    let bar = progress.then(|| {
        let bar = indicatif::ProgressBar::new(configs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut verdicts = Vec::new();
    for config in configs {
        if let Some(bar) = &bar {
            bar.set_message(config.key());
        }
        verdicts.extend(
            explore::sweep(config, sweep)
                .map_err(|e| Stop::Failed(format!("{}: {e}", config.key())))?,
        );
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(verdicts)
}
