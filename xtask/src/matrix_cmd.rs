//! `cargo xtask matrix`: run the experiments, print the matrix, or write /
//! check the committed Markdown.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use labs::Run;
use labs::matrix::{CellPart, Matrix};
use similar::TextDiff;

use crate::args::{ExperimentArg, MatrixFormat, ProtocolArg};
use crate::output::{self, Failure};
use crate::table::{Column, Table, wrap};

/// The terminal width the text format fits.
pub const TEXT_WIDTH: usize = 100;

/// What `matrix` was asked for.
pub struct Options {
    /// `--format` (or `--json`); `None` when not given.
    pub format: Option<MatrixFormat>,
    /// Only this protocol.
    pub protocol: Option<ProtocolArg>,
    /// Only this experiment.
    pub experiment: Option<ExperimentArg>,
    /// Compare a fresh run with this Markdown file.
    pub check: Option<PathBuf>,
    /// Write the fresh Markdown to this file.
    pub write: Option<PathBuf>,
}

/// Runs only the selected experiments (every protocol / experiment when
/// none is named).
fn selected_runs(
    protocol: Option<ProtocolArg>,
    experiment: Option<ExperimentArg>,
) -> Result<Vec<Run>, Failure> {
    let protocols = match protocol {
        None => labs::registry().protocols().to_vec(),
        Some(p) => vec![p],
    };
    let mut runs = Vec::new();
    for p in protocols {
        for spec in labs::run_specs(p)
            .iter()
            .filter(|s| experiment.is_none_or(|e| s.experiment == e.number()))
        {
            let run = spec.run().map_err(|e| {
                Failure::Failed(format!(
                    "experiment {} of {p} ({}) failed: {e}",
                    spec.experiment, spec.variant
                ))
            })?;
            runs.push(run);
        }
    }
    Ok(runs)
}

/// `matrix`.
pub fn run(options: Options) -> Result<ExitCode, Failure> {
    let file = options.check.as_ref().or(options.write.as_ref());
    if file.is_some() && options.format.is_some_and(|f| f != MatrixFormat::Markdown) {
        let flag = if options.check.is_some() {
            "--check"
        } else {
            "--write"
        };
        return Err(Failure::usage(
            "matrix",
            ErrorKind::ArgumentConflict,
            format!("{flag} always uses Markdown; drop --format / --json"),
        ));
    }
    let runs = selected_runs(options.protocol, options.experiment)?;
    if let Some(path) = &options.check {
        return check(path, &labs::matrix::to_markdown(&runs));
    }
    if let Some(path) = &options.write {
        std::fs::write(path, labs::matrix::to_markdown(&runs))
            .map_err(|e| Failure::Failed(format!("cannot write {}: {e}", path.display())))?;
        output::println(&format!("wrote {}", path.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    match options.format.unwrap_or(MatrixFormat::Text) {
        MatrixFormat::Text => output::print(&to_text(&runs, TEXT_WIDTH))?,
        MatrixFormat::Markdown => output::print(&labs::matrix::to_markdown_tables(&runs))?,
        MatrixFormat::Json => {
            let json = serde_json::to_string_pretty(&labs::matrix::to_json(&runs))
                .map_err(|e| Failure::Failed(e.to_string()))?;
            output::println(&json)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--check`: exit 0 when `path` holds exactly `fresh`; otherwise print a
/// unified diff (committed → fresh) and exit 1.
fn check(path: &std::path::Path, fresh: &str) -> Result<ExitCode, Failure> {
    let committed = std::fs::read_to_string(path)
        .map_err(|e| Failure::Failed(format!("cannot read {}: {e}", path.display())))?;
    if committed == fresh {
        output::println(&format!("{} matches a fresh run", path.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    output::note(&format!(
        "{} differs from a fresh run (- {0}, + fresh run):",
        path.display()
    ));
    let diff = TextDiff::from_lines(committed.as_str(), fresh)
        .unified_diff()
        .context_radius(2)
        .header(&path.display().to_string(), "fresh run")
        .to_string();
    match output::print(&diff) {
        // The difference is known whether or not anyone reads the diff.
        Ok(()) | Err(Failure::StdoutClosed) => {}
        Err(other) => return Err(other),
    }
    output::note(&format!(
        "regenerate with: cargo xtask matrix --write {}",
        path.display()
    ));
    Ok(ExitCode::FAILURE)
}

/// A cell as plain text: `–` when empty, each variant on its own line,
/// labelled `[variant]`.
fn text_cell(parts: &[CellPart]) -> String {
    if parts.is_empty() {
        return "–".to_owned();
    }
    parts
        .iter()
        .map(|part| match part.variant {
            None => part.text.clone(),
            Some(variant) => format!("[{variant}] {}", part.text),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` as a first line of at most `width` characters and the rest
/// wrapped at `width - 2` (they are indented two more).
fn hanging(text: &str, width: usize) -> (String, Vec<String>) {
    let head = wrap(text, width).into_iter().next().unwrap_or_default();
    let taken = head.split(' ').count();
    let rest: Vec<&str> = text
        .split(' ')
        .filter(|w| !w.is_empty())
        .skip(taken)
        .collect();
    if rest.is_empty() {
        return (head, Vec::new());
    }
    (head, wrap(&rest.join(" "), width.saturating_sub(2)))
}

/// Spaces before a protocol's name under its experiment's title.
const PROTOCOL_INDENT: usize = 3;

/// The matrix as plain text no wider than `width`: per experiment its
/// number and title, then a line per protocol with its cell (each variant
/// on its own line, `[variant] …`; a line too long wraps under the cell,
/// indented two more), then the read levels as a table.
pub fn to_text(runs: &[Run], width: usize) -> String {
    let matrix = Matrix::from_runs(runs);
    let mut out = String::from("Experiments × protocols\n");
    let name_width = matrix
        .protocols
        .iter()
        .map(|p| p.name().chars().count())
        .max()
        .unwrap_or(0);
    let indent = PROTOCOL_INDENT + name_width + 2;
    let text_width = width.saturating_sub(indent).max(20);
    for row in &matrix.rows {
        let _ = write!(out, "\n{:<3}{}\n", row.experiment, row.title);
        for (protocol, parts) in matrix.protocols.iter().zip(&row.cells) {
            let mut first = true;
            for paragraph in text_cell(parts).lines() {
                let (head, rest) = hanging(paragraph, text_width);
                let lead = if first {
                    format!("{:PROTOCOL_INDENT$}{:<name_width$}  ", "", protocol.name())
                } else {
                    " ".repeat(indent)
                };
                first = false;
                let _ = writeln!(out, "{}", format!("{lead}{head}").trim_end());
                for line in rest {
                    let _ = writeln!(out, "{}{line}", " ".repeat(indent + 2));
                }
            }
        }
    }
    let reads = labs::matrix::read_matrix(runs);
    if !reads.is_empty() {
        out.push_str("\nRead levels (experiment 6)\n\n");
        let mut table = Table::new(
            ["protocol", "LOCAL", "LEADER", "LINEARIZABLE"]
                .into_iter()
                .map(Column::new)
                .collect(),
        );
        for (protocol, levels) in &reads {
            let mut cells = vec![protocol.name().to_owned()];
            cells.extend(levels.iter().map(|(_, outcome)| (*outcome).to_owned()));
            table.push(cells);
        }
        out.push_str(&table.render(width));
    }
    out
}
