//! `cargo xtask matrix`.

use std::path::PathBuf;
use std::process::ExitCode;

use labs::{Protocol, Run};

/// What `matrix` was asked for.
pub struct Options {
    pub json: bool,
    pub protocol: Option<String>,
    pub experiment: Option<u8>,
    pub check: Option<PathBuf>,
    pub write: Option<PathBuf>,
}

/// Runs the selected experiments (every protocol when none is named).
pub fn selected_runs(protocol: Option<&str>, experiment: Option<u8>) -> Result<Vec<Run>, String> {
    let protocols = match protocol {
        None => Protocol::ALL.to_vec(),
        Some(name) => vec![Protocol::from_name(name).ok_or_else(|| {
            format!("unknown protocol {name:?} (expected async, wal, isr or raft)")
        })?],
    };
    let mut runs = Vec::new();
    for p in protocols {
        let protocol_runs =
            labs::protocol_runs(p).map_err(|e| format!("{p}: experiment failed: {e}"))?;
        runs.extend(
            protocol_runs
                .into_iter()
                .filter(|r| experiment.is_none_or(|n| r.experiment == n)),
        );
    }
    Ok(runs)
}

pub fn run(options: Options) -> Result<ExitCode, String> {
    let runs = selected_runs(options.protocol.as_deref(), options.experiment)?;
    let markdown = labs::matrix::to_markdown(&runs);
    if let Some(path) = &options.check {
        let committed = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if committed == markdown {
            println!("{} matches a fresh run", path.display());
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("{} differs from a fresh run:", path.display());
        for (i, (old, new)) in committed.lines().zip(markdown.lines()).enumerate() {
            if old != new {
                eprintln!("line {}:\n  committed: {old}\n  fresh:     {new}", i + 1);
            }
        }
        if committed.lines().count() != markdown.lines().count() {
            eprintln!(
                "line counts differ: committed {}, fresh {}",
                committed.lines().count(),
                markdown.lines().count()
            );
        }
        eprintln!(
            "regenerate with: cargo xtask matrix --write {}",
            path.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    if let Some(path) = &options.write {
        std::fs::write(path, &markdown)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    if options.json {
        let json = labs::matrix::to_json(&runs);
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?
        );
    } else {
        print!("{markdown}");
    }
    Ok(ExitCode::SUCCESS)
}
