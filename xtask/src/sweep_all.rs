//! What `cargo xtask explore` was asked, why it stopped, and the sweep over
//! a list of configurations that the table, the planted controls and the
//! report share.

use std::path::PathBuf;
use std::process::ExitCode;

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
    /// `Some(depth)`: bounded exhaustive mode.
    pub exhaustive: Option<usize>,
    /// Honour each row's floor of schedules (off: exactly `schedules`).
    pub floors: bool,
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

/// `--write FILE` writes `markdown`; `--check FILE` compares it with the
/// committed file (exit 1 with a unified diff on a difference, naming
/// `cargo xtask {regenerate} FILE`). `None` when neither was asked.
pub fn write_or_check(
    opts: &Options,
    markdown: &str,
    regenerate: &str,
) -> Result<Option<(String, ExitCode)>, Stop> {
    if let Some(path) = &opts.write {
        std::fs::write(path, markdown)
            .map_err(|e| Stop::Failed(format!("cannot write {}: {e}", path.display())))?;
        crate::output::note(&format!("wrote {}", path.display()));
        return Ok(Some((String::new(), ExitCode::SUCCESS)));
    }
    let Some(path) = &opts.check else {
        return Ok(None);
    };
    let committed = std::fs::read_to_string(path)
        .map_err(|e| Stop::Failed(format!("cannot read {}: {e}", path.display())))?;
    if committed == markdown {
        return Ok(Some((
            format!("{} is up to date\n", path.display()),
            ExitCode::SUCCESS,
        )));
    }
    let diff = similar::TextDiff::from_lines(committed.as_str(), markdown)
        .unified_diff()
        .header(&path.display().to_string(), "fresh run")
        .to_string();
    Ok(Some((
        format!(
            "{diff}\n{} differs from a fresh run; regenerate with `cargo xtask {regenerate} {}`\n",
            path.display(),
            path.display()
        ),
        ExitCode::FAILURE,
    )))
}
