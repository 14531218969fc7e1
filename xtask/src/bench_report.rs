//! The plain-text table `cargo xtask bench` prints from its workers' JSON
//! rows (`--json` prints the rows themselves).

use serde_json::Value as Json;

/// The plain-text report of the workers' rows.
pub fn report(rows: &[Json], writes: u64, trace: bool, repeats: usize) -> String {
    let mut out = format!(
        "optimized build, trace {}, N = {writes} writes per write workload, median of {repeats}\n\n",
        if trace {
            "on"
        } else {
            "off (the matrix runs always trace)"
        }
    );
    out.push_str(&format!(
        "{:<19}  {:>10}  {:>8}  {:>13}  {:>12}  {:>12}  {:>10}  {:>7}  {:>11}\n",
        "workload",
        "seconds",
        "ops",
        "ops/s",
        "trace events",
        "peak RSS MiB",
        "steps",
        "ns/step",
        "cpu ns/step"
    ));
    out.push_str(&format!(
        "{:-<19}  {:->10}  {:->8}  {:->13}  {:->12}  {:->12}  {:->10}  {:->7}  {:->11}\n",
        "", "", "", "", "", "", "", "", ""
    ));
    for row in rows {
        let events = row["trace_events"]
            .as_u64()
            .map_or_else(|| "off".to_owned(), |n| n.to_string());
        let rss = row["peak_rss_kib"]
            .as_u64()
            .map_or_else(|| "?".to_owned(), |k| format!("{:.1}", k as f64 / 1024.0));
        let steps = row["steps"]
            .as_u64()
            .map_or_else(|| "-".to_owned(), |n| n.to_string());
        let per_step = row["ns_per_step"]
            .as_f64()
            .map_or_else(|| "-".to_owned(), |ns| format!("{ns:.0}"));
        let cpu_per_step = row["cpu_ns_per_step"]
            .as_f64()
            .map_or_else(|| "-".to_owned(), |ns| format!("{ns:.0}"));
        out.push_str(&format!(
            "{:<19}  {:>10.6}  {:>8}  {:>13.0}  {:>12}  {:>12}  {:>10}  {:>7}  {:>11}\n",
            row["workload"].as_str().unwrap_or("?"),
            row["seconds"].as_f64().unwrap_or(f64::NAN),
            row["ops"].as_u64().unwrap_or(0),
            row["ops_per_sec"].as_f64().unwrap_or(f64::NAN),
            events,
            rss,
            steps,
            per_step,
            cpu_per_step,
        ));
    }
    out
}
