//! The side-by-side table of `cargo xtask bench --baseline REV`: each
//! workload's rate on the baseline build and on this one, over the rounds
//! of one run, and their ratio.

use serde_json::Value as Json;

/// One workload measured on both builds, one figure per round.
pub struct Compared {
    /// The workload's name.
    pub workload: String,
    /// This build's worker rows, one per round.
    pub current: Vec<Json>,
    /// The baseline's worker rows, one per round, or why it has none (an
    /// older build may not know the workload).
    pub baseline: Result<Vec<Json>, String>,
    /// Why this build's worker failed (the workload is then not run
    /// again; the other workloads still are).
    pub failed: Option<String>,
}

fn rates(rows: &[Json]) -> Vec<f64> {
    rows.iter()
        .filter_map(|r| r["ops_per_sec"].as_f64())
        .filter(|r| r.is_finite() && *r > 0.0)
        .collect()
}

fn min_max(values: &[f64]) -> Option<(f64, f64)> {
    let min = values.iter().copied().reduce(f64::min)?;
    let max = values.iter().copied().reduce(f64::max)?;
    Some((min, max))
}

/// A rate with its unit: `3.29 M/s`, `41.2 k/s`, `812/s`.
pub fn rate(ops_per_sec: f64) -> String {
    if ops_per_sec >= 1e6 {
        format!("{:.2} M/s", ops_per_sec / 1e6)
    } else if ops_per_sec >= 1e3 {
        format!("{:.1} k/s", ops_per_sec / 1e3)
    } else {
        format!("{ops_per_sec:.1}/s")
    }
}

/// The time one operation takes at `ops_per_sec`: `0.30 µs`, `15.2 µs`,
/// `1.25 ms`.
pub fn per_op(ops_per_sec: f64) -> String {
    let us = 1e6 / ops_per_sec;
    if us < 10.0 {
        format!("{us:.2} µs")
    } else if us < 1000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1000.0)
    }
}

/// `low–high` of the rows' rates and the best one's time per operation, or
/// `-` when there are none.
fn cell(rows: &[Json]) -> String {
    match min_max(&rates(rows)) {
        Some((lo, hi)) if rate(lo) == rate(hi) => format!("{} ({})", rate(hi), per_op(hi)),
        Some((lo, hi)) => {
            let (lo, hi) = (rate(lo), rate(hi));
            // One unit for the range when both ends share it.
            let lo = match (lo.rsplit_once(' '), hi.rsplit_once(' ')) {
                (Some((n, u1)), Some((_, u2))) if u1 == u2 => n.to_owned(),
                _ => lo,
            };
            format!("{lo}–{hi} ({})", per_op(max_of(rows)))
        }
        None => "-".to_owned(),
    }
}

fn max_of(rows: &[Json]) -> f64 {
    min_max(&rates(rows)).map_or(f64::NAN, |(_, hi)| hi)
}

/// This build's best rate over the baseline's best (above 1 is faster),
/// and the range of the per-round ratios.
pub fn ratios(current: &[Json], baseline: &[Json]) -> Option<(f64, f64, f64)> {
    let (c, b) = (rates(current), rates(baseline));
    let best = min_max(&c)?.1 / min_max(&b)?.1;
    let per_round: Vec<f64> = c.iter().zip(&b).map(|(c, b)| c / b).collect();
    let (lo, hi) = min_max(&per_round)?;
    Some((best, lo, hi))
}

/// The plain-text comparison of `rev` (the baseline) and this build.
pub fn report(
    rev: &str,
    rows: &[Compared],
    writes: u64,
    trace: bool,
    rounds: usize,
    repeats: usize,
) -> String {
    let mut out = format!(
        "optimized builds of {rev} and of this tree, interleaved in one run: {rounds} \
         round(s), each a median of {repeats}; trace {}, N = {writes} writes per write \
         workload\nratio = this build's best rate / {rev}'s best rate (above 1.00× is \
         faster); per round: the same within each round\n\n",
        if trace {
            "on"
        } else {
            "off (the matrix runs always trace)"
        }
    );
    let base_head = format!("{rev} ops/s");
    let w = rows
        .iter()
        .map(|r| r.workload.len())
        .max()
        .unwrap_or(0)
        .max("workload".len());
    out.push_str(&format!(
        "{:<w$}  {:>26}  {:>26}  {:>7}  {:>13}\n",
        "workload", base_head, "this build ops/s", "ratio", "per round"
    ));
    out.push_str(&format!(
        "{:-<w$}  {:->26}  {:->26}  {:->7}  {:->13}\n",
        "", "", "", "", ""
    ));
    let mut notes = Vec::new();
    for row in rows {
        let (base, ratio, range) = match &row.baseline {
            Ok(base) => match ratios(&row.current, base) {
                Some((best, lo, hi)) => (
                    cell(base),
                    format!("{best:.2}×"),
                    format!("{lo:.2}–{hi:.2}×"),
                ),
                None => (cell(base), "-".to_owned(), "-".to_owned()),
            },
            Err(why) => {
                let first = why.lines().next().unwrap_or("").trim();
                notes.push(format!("{}: {rev} has no figure ({first})", row.workload));
                ("-".to_owned(), "-".to_owned(), "-".to_owned())
            }
        };
        out.push_str(&format!(
            "{:<w$}  {:>26}  {:>26}  {:>7}  {:>13}\n",
            row.workload,
            base,
            cell(&row.current),
            ratio,
            range
        ));
        if let Some(why) = &row.failed {
            let first = why.lines().next().unwrap_or("").trim();
            notes.push(format!("{}: this build failed ({first})", row.workload));
        }
        let ops = |rows: &[Json]| rows.first().and_then(|r| r["ops"].as_u64());
        if let Ok(base) = &row.baseline
            && let (Some(b), Some(c)) = (ops(base), ops(&row.current))
            && b != c
        {
            notes.push(format!(
                "{}: {rev} runs {b} operations, this build {c} (the ratio is per operation)",
                row.workload
            ));
        }
    }
    if !notes.is_empty() {
        out.push('\n');
        for note in notes {
            out.push_str(&note);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(ops: u64, ops_per_sec: f64) -> Json {
        json!({"workload": "w", "ops": ops, "ops_per_sec": ops_per_sec})
    }

    #[test]
    fn the_ratio_is_this_builds_best_over_the_baselines_best() {
        let current = [row(10, 3.0e6), row(10, 2.0e6)];
        let baseline = [row(10, 1.5e6), row(10, 2.0e6)];
        let (best, lo, hi) = ratios(&current, &baseline).expect("both have rates");
        assert!((best - 1.5).abs() < 1e-9, "{best}");
        assert!((lo - 1.0).abs() < 1e-9, "{lo}");
        assert!((hi - 2.0).abs() < 1e-9, "{hi}");
    }

    #[test]
    fn rates_and_times_carry_their_units() {
        assert_eq!(rate(3_290_000.0), "3.29 M/s");
        assert_eq!(rate(41_234.0), "41.2 k/s");
        assert_eq!(rate(812.0), "812.0/s");
        assert_eq!(per_op(3_333_333.0), "0.30 µs");
        assert_eq!(per_op(65_000.0), "15.4 µs");
        assert_eq!(per_op(800.0), "1.25 ms");
    }

    #[test]
    fn the_table_shows_ranges_ratios_and_what_the_baseline_lacks() {
        let rows = [
            Compared {
                workload: "writes-async".into(),
                current: vec![row(200, 3.4e6), row(200, 3.3e6)],
                baseline: Ok(vec![row(200, 2.4e6), row(200, 2.38e6)]),
                failed: None,
            },
            Compared {
                workload: "matrix".into(),
                current: vec![row(44, 70_000.0)],
                baseline: Ok(vec![row(34, 66_000.0)]),
                failed: None,
            },
            Compared {
                workload: "pipelined-isr".into(),
                current: vec![row(200, 1.27e6)],
                baseline: Err("error: invalid value 'pipelined-isr'\nmore".into()),
                failed: None,
            },
            Compared {
                workload: "explore-isr".into(),
                current: vec![],
                baseline: Ok(vec![row(2000, 9000.0)]),
                failed: Some("error: explore-isr: a safety violation\nmore".into()),
            },
        ];
        let text = report("c40442c", &rows, 200, false, 2, 3);
        let async_line = text
            .lines()
            .find(|l| l.starts_with("writes-async"))
            .expect("a writes-async line");
        assert!(
            async_line.contains("2.38–2.40 M/s (0.42 µs)"),
            "{async_line}"
        );
        assert!(
            async_line.contains("3.30–3.40 M/s (0.29 µs)"),
            "{async_line}"
        );
        assert!(async_line.contains("1.42×"), "{async_line}");
        assert!(async_line.contains("1.39–1.42×"), "{async_line}");
        let pipelined = text
            .lines()
            .find(|l| l.starts_with("pipelined-isr"))
            .expect("a pipelined-isr line");
        assert!(pipelined.contains("1.27 M/s"), "{pipelined}");
        assert!(pipelined.trim_end().ends_with('-'), "{pipelined}");
        assert!(
            text.contains(
                "pipelined-isr: c40442c has no figure (error: invalid value 'pipelined-isr')"
            ),
            "{text}"
        );
        assert!(
            text.contains("matrix: c40442c runs 34 operations, this build 44"),
            "{text}"
        );
        assert!(text.contains("c40442c ops/s"), "{text}");
        let explore = text
            .lines()
            .find(|l| l.starts_with("explore-isr"))
            .expect("a failed workload keeps its line");
        assert!(explore.contains("9.0 k/s"), "{explore}");
        assert!(
            text.contains(
                "explore-isr: this build failed (error: explore-isr: a safety violation)"
            ),
            "{text}"
        );
    }
}
