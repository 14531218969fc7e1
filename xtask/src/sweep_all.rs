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

/// Which state lines `--replay` prints: `--at T` or `--state` (the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateAt {
    /// At the end of tick T.
    Tick(u64),
    /// At the end of the run.
    End,
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
    /// `--at T` / `--state`: the node state lines `--replay` also prints.
    pub state_at: Option<StateAt>,
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

/// The progress bar's line: the bar, schedules done of all, the time left
/// and the configuration being swept, at most [`PROGRESS_WIDTH`] columns
/// (the configuration's key cut to [`KEY_WIDTH`]).
const PROGRESS_TEMPLATE: &str = "{bar:14} {pos:>7}/{len:7} ETA {eta_precise} {msg}";

/// What the template's fields take besides the message: the bar (14), the
/// counts (7 + 1 + 7), `ETA hh:mm:ss` (12) and the three spaces between.
const PROGRESS_FIXED: usize = 14 + 15 + 12 + 3;

/// The widest progress line, so that it never wraps an 80-column terminal.
pub const PROGRESS_WIDTH: usize = 79;

/// The most characters of a configuration's key the bar shows.
const KEY_WIDTH: usize = PROGRESS_WIDTH - PROGRESS_FIXED;

/// `key`, cut to [`KEY_WIDTH`] characters (the cut marked `…`).
fn bar_message(key: &str) -> String {
    if key.chars().count() <= KEY_WIDTH {
        return key.to_owned();
    }
    let mut cut: String = key.chars().take(KEY_WIDTH - 1).collect();
    cut.push('…');
    cut
}

/// How many schedules `sweep` runs on `config` (its floor honoured, as
/// [`explore::sweep`] does; a shard's share counted whole).
fn schedules_of(config: &Configuration, sweep: &SweepOptions) -> u64 {
    let all = if sweep.floors {
        sweep.schedules.max(config.min_schedules)
    } else {
        sweep.schedules
    };
    match sweep.shard {
        Some((i, n)) if n > 0 => (i..all).step_by(usize::try_from(n).unwrap_or(1)).count() as u64,
        _ => all,
    }
}

/// The verdicts of every configuration in `configs` over `sweep`'s
/// schedules, configuration by configuration (a progress bar on stderr when
/// `progress`: schedules done, the time left, the configuration swept).
pub fn sweep_all(
    configs: &[Configuration],
    sweep: &SweepOptions,
    progress: bool,
) -> Result<Vec<Verdict>, Stop> {
    let bar = progress.then(|| {
        let total = configs.iter().map(|c| schedules_of(c, sweep)).sum();
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template(PROGRESS_TEMPLATE)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut verdicts = Vec::new();
    for config in configs {
        if let Some(bar) = &bar {
            bar.set_message(bar_message(&config.key()));
        }
        verdicts.extend(
            explore::sweep(config, sweep)
                .map_err(|e| Stop::Failed(format!("{}: {e}", config.key())))?,
        );
        if let Some(bar) = &bar {
            bar.inc(schedules_of(config, sweep));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_fits_80_columns_with_the_longest_key_cut() {
        let longest = labs::explore_configs()
            .iter()
            .map(Configuration::key)
            .max_by_key(|k| k.chars().count())
            .expect("configurations");
        let shown = bar_message(&longest);
        assert!(indicatif::ProgressStyle::with_template(PROGRESS_TEMPLATE).is_ok());
        // The line as indicatif draws it, every field at its widest.
        let line = PROGRESS_TEMPLATE
            .replace("{bar:14}", &"█".repeat(14))
            .replace("{pos:>7}", "1234567")
            .replace("{len:7}", "1234567")
            .replace("{eta_precise}", "00:12:34")
            .replace("{msg}", &shown);
        assert_eq!(line.chars().count(), PROGRESS_FIXED + shown.chars().count());
        assert!(line.chars().count() <= PROGRESS_WIDTH, "{line}");
        assert!(shown.ends_with('…') || shown == longest);
        assert_eq!(
            bar_message("isr.all_isr.local.default"),
            "isr.all_isr.local.default"
        );
    }

    #[test]
    fn the_bar_counts_schedules_with_each_row_s_floor_and_the_shard_s_share() {
        let configs = labs::explore_configs();
        let floored = configs
            .iter()
            .find(|c| c.min_schedules > 200)
            .expect("a row with a floor");
        let mut sweep = SweepOptions {
            schedules: 200,
            ..SweepOptions::default()
        };
        assert_eq!(schedules_of(floored, &sweep), floored.min_schedules);
        sweep.floors = false;
        assert_eq!(schedules_of(floored, &sweep), 200);
        sweep.shard = Some((1, 3));
        // Positions 1, 4, …, 199 of 0..200.
        assert_eq!(schedules_of(floored, &sweep), 67);
    }
}
