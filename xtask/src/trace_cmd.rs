//! `cargo xtask trace`.

use std::process::ExitCode;

use crate::matrix_cmd::selected_runs;

pub fn run(
    experiment: u8,
    protocol: &str,
    variant: Option<&str>,
    jsonl: bool,
) -> Result<ExitCode, String> {
    let runs = selected_runs(Some(protocol), Some(experiment))?;
    let variants: Vec<&str> = runs.iter().map(|r| r.variant).collect();
    let run = match variant {
        None => runs.first(),
        Some(v) => runs.iter().find(|r| r.variant == v),
    }
    .ok_or_else(|| {
        format!(
            "no run for experiment {experiment}, protocol {protocol}, variant {}; available variants: {}",
            variant.unwrap_or("(any)"),
            if variants.is_empty() { "none".to_owned() } else { variants.join(", ") }
        )
    })?;
    if jsonl {
        print!("{}", run.trace.to_jsonl());
    } else {
        print!("{}", run.trace.to_text());
    }
    Ok(ExitCode::SUCCESS)
}
