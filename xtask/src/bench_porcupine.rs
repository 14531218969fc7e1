//! The `lincheck-porcupine` workload of `cargo xtask bench DIR`: the checker
//! on the histories of Porcupine's own test corpus (its `test_data`
//! directory, MIT-licensed, not shipped here: clone Porcupine and point
//! `DIR` at its `test_data`).
//!
//! - `jepsen/etcd_*.log`: Jepsen's etcd test logs, a compare-and-set
//!   register ([`CasRegister`]); 102 of the 103 files (`etcd_095.log` is
//!   empty — etcd did not start — and Porcupine has no test for it);
//! - `kv/c*.txt`: key/value histories with get, put and append, checked per
//!   key ([`AppendKv`]).
//!
//! Both are read the way Porcupine's tests read them: an event's tick is
//! its line number; a read that timed out returned without an answer; an
//! operation with no return line (a write or compare-and-set that timed
//! out) never returned. Each file is checked `bench`'s number of repeats
//! times, round by round over the corpus, and each figure is the median;
//! the verdicts must be those Porcupine's tests expect.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use lincheck::synthetic::{CasRegister, RegisterInput, RegisterOutput};
use lincheck::{CheckOptions, Model, Next, Operation, Verdict, check};
use serde_json::{Value as Json, json};

use crate::bench_lincheck::thread_cpu_ns;

/// The etcd logs Porcupine's tests expect to be linearizable (the others
/// are not); a key/value file is linearizable iff its name says `ok`.
const ETCD_LINEARIZABLE: [u32; 23] = [
    2, 5, 7, 18, 25, 31, 38, 45, 48, 49, 51, 53, 56, 67, 75, 76, 80, 87, 92, 98, 100, 101, 102,
];

/// A key/value request of Porcupine's `kv` histories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendInput {
    key: String,
    op: AppendOp,
}

/// What an [`AppendInput`] does to its key.
#[derive(Debug, Clone, PartialEq, Eq)]
enum AppendOp {
    Get,
    Put(String),
    Append(String),
}

/// Porcupine's `kvModel`: one string per key, starting empty; `get`
/// answers it, `put` replaces it, `append` adds to its end. The answer of
/// a put or an append is the empty string.
#[derive(Debug, Clone, Copy)]
pub struct AppendKv;

impl Model for AppendKv {
    type State = String;
    type Input = AppendInput;
    type Output = String;

    fn init(&self) -> String {
        String::new()
    }

    fn step(&self, state: &String, input: &AppendInput, output: Option<&String>) -> Next<String> {
        match &input.op {
            AppendOp::Get if output.is_none_or(|seen| seen == state) => Next::Unchanged,
            AppendOp::Get => Next::Illegal,
            AppendOp::Put(value) => Next::To(value.clone()),
            AppendOp::Append(value) => {
                let mut after = String::with_capacity(state.len() + value.len());
                after.push_str(state);
                after.push_str(value);
                Next::To(after)
            }
        }
    }

    fn partition_key<'a>(&self, input: &'a AppendInput) -> Option<Cow<'a, str>> {
        Some(Cow::Borrowed(&input.key))
    }

    fn is_read_only(&self, input: &AppendInput, _output: Option<&String>) -> bool {
        input.op == AppendOp::Get
    }
}

/// One history of the corpus, parsed.
enum History {
    Etcd(Vec<Operation<RegisterInput, RegisterOutput>>),
    Kv(Vec<Operation<AppendInput, String>>),
}

/// A file of the corpus: its name under `DIR`, its history, and the
/// verdict Porcupine's tests expect.
struct CorpusFile {
    name: String,
    history: History,
    linearizable: bool,
}

/// Operations being built from call and return lines: the open one of
/// each process, and those done.
struct Builder<I, O> {
    ops: Vec<Operation<I, O>>,
    open: HashMap<u64, usize>,
}

impl<I, O> Builder<I, O> {
    fn new() -> Self {
        Builder {
            ops: Vec::new(),
            open: HashMap::new(),
        }
    }

    /// Process `proc` calls `input` at `tick`; an operation it left open
    /// stays open for good (it never returned).
    fn call(&mut self, tick: u64, proc: u64, input: I) {
        let id = self.ops.len() as u64;
        self.open.insert(proc, self.ops.len());
        self.ops.push(Operation::unknown(id, proc, tick, input));
    }

    /// Process `proc`'s open operation returns at `tick` (answer `None`:
    /// unknown).
    fn ret(&mut self, tick: u64, proc: u64, output: Option<O>) -> Result<(), String> {
        let at = self
            .open
            .remove(&proc)
            .ok_or_else(|| format!("process {proc} returns with no call open"))?;
        self.ops[at].ret = Some(tick);
        self.ops[at].output = output;
        Ok(())
    }
}

/// A Jepsen etcd log as Porcupine's `parseJepsenLog` reads it: lines of
/// `INFO jepsen.util - PROC TYPE F VALUE`; a line of any other shape (a
/// write or compare-and-set that timed out, `:info`) is skipped, which
/// leaves its operation without a return.
fn parse_jepsen(text: &str) -> Result<Vec<Operation<RegisterInput, RegisterOutput>>, String> {
    let mut history = Builder::new();
    for (tick, line) in text.lines().enumerate() {
        let tick = tick as u64;
        if !line.starts_with("INFO") || line.ends_with(char::is_whitespace) {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let [_, "jepsen.util", "-", proc, kind, f, value @ ..] = words.as_slice() else {
            continue;
        };
        let Some(proc) = number(proc) else { continue };
        let cas = || match value {
            [from, to] => Some((
                number(from.strip_prefix('[')?)?,
                number(to.strip_suffix(']')?)?,
            )),
            _ => None,
        };
        match (*kind, *f, value) {
            (":invoke", ":read", ["nil"]) => history.call(tick, proc, RegisterInput::Read),
            (":invoke", ":write", [v]) => {
                let Some(v) = number(v) else { continue };
                history.call(tick, proc, RegisterInput::Write(v));
            }
            (":invoke", ":cas", _) => {
                let Some((from, to)) = cas() else { continue };
                history.call(tick, proc, RegisterInput::Cas { from, to });
            }
            (":ok", ":read", [v]) => {
                let seen = if *v == "nil" {
                    None
                } else {
                    let Some(v) = number(v) else { continue };
                    Some(v)
                };
                history.ret(tick, proc, Some(RegisterOutput::Value(seen)))?;
            }
            (":ok", ":write", [v]) if number(v).is_some() => {
                history.ret(tick, proc, Some(RegisterOutput::Ok))?;
            }
            (":ok" | ":fail", ":cas", _) if cas().is_some() => {
                let answer = if *kind == ":ok" {
                    RegisterOutput::Ok
                } else {
                    RegisterOutput::Failed
                };
                history.ret(tick, proc, Some(answer))?;
            }
            (":fail", ":read", [":timed-out"]) => history.ret(tick, proc, None)?,
            _ => {}
        }
    }
    Ok(history.ops)
}

/// Digits only, as `\d+`.
fn number(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A key/value history as Porcupine's `parseKvLog` reads it: one EDN map
/// a line, `{:process P, :type :invoke|:ok, :f :get|:put|:append, :key
/// "K", :value "V"|nil}`. Every line must be one.
fn parse_kv(text: &str) -> Result<Vec<Operation<AppendInput, String>>, String> {
    let mut history = Builder::new();
    for (index, line) in text.lines().enumerate() {
        let fail = || format!("line {}: not a key/value event: {line}", index + 1);
        let (proc, kind, f, key, value) = kv_fields(line).ok_or_else(fail)?;
        let tick = index as u64;
        match (kind, f, value) {
            ("invoke", "get", None) => history.call(
                tick,
                proc,
                AppendInput {
                    key: key.to_owned(),
                    op: AppendOp::Get,
                },
            ),
            ("invoke", "put" | "append", Some(value)) => {
                let value = value.to_owned();
                let op = if f == "put" {
                    AppendOp::Put(value)
                } else {
                    AppendOp::Append(value)
                };
                history.call(
                    tick,
                    proc,
                    AppendInput {
                        key: key.to_owned(),
                        op,
                    },
                );
            }
            ("ok", "get", Some(value)) => history.ret(tick, proc, Some(value.to_owned()))?,
            ("ok", "put" | "append", Some(_)) => history.ret(tick, proc, Some(String::new()))?,
            _ => return Err(fail()),
        }
    }
    Ok(history.ops)
}

/// (process, type, f, key, value) of one key/value line.
fn kv_fields(line: &str) -> Option<(u64, &str, &str, &str, Option<&str>)> {
    let rest = line.strip_prefix("{:process ")?;
    let (proc, rest) = rest.split_once(", :type :")?;
    let (kind, rest) = rest.split_once(", :f :")?;
    let (f, rest) = rest.split_once(", :key \"")?;
    let (key, rest) = rest.split_once("\", :value ")?;
    let value = match rest {
        "nil}" => None,
        quoted => Some(quoted.strip_prefix('"')?.strip_suffix("\"}")?),
    };
    Some((number(proc)?, kind, f, key, value))
}

/// The corpus under `dir`: every `jepsen/*.log` with at least one
/// operation, then every `kv/*.txt`, each in name order.
fn corpus(dir: &Path) -> Result<Vec<CorpusFile>, String> {
    let mut files = Vec::new();
    for (sub, ext) in [("jepsen", "log"), ("kv", "txt")] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(dir.join(sub))
            .map_err(|e| format!("cannot read {}: {e}", dir.join(sub).display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|e| e == ext))
            .collect();
        names.sort();
        for path in names {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let name = format!(
                "{sub}/{}",
                path.file_name().and_then(|s| s.to_str()).unwrap_or("")
            );
            let named = |e: String| format!("{name}: {e}");
            let (history, linearizable) = if sub == "jepsen" {
                let history = parse_jepsen(&text).map_err(named)?;
                if history.is_empty() {
                    continue;
                }
                let number: u32 = stem.trim_start_matches("etcd_").parse().unwrap_or(u32::MAX);
                (History::Etcd(history), ETCD_LINEARIZABLE.contains(&number))
            } else {
                let history = parse_kv(&text).map_err(named)?;
                (History::Kv(history), stem.ends_with("-ok"))
            };
            files.push(CorpusFile {
                name,
                history,
                linearizable,
            });
        }
    }
    if files.is_empty() {
        return Err(format!(
            "no histories under {} (expected jepsen/*.log and kv/*.txt: Porcupine's test_data)",
            dir.display()
        ));
    }
    Ok(files)
}

/// One check of one file: wall seconds, the verdict's word, search steps.
fn timed<M: Model>(
    model: &M,
    history: &[Operation<M::Input, M::Output>],
) -> Result<(f64, &'static str, u64), String> {
    let start = Instant::now();
    let result = check(model, history, &CheckOptions::default()).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    let verdict = match result.verdict {
        Verdict::Linearizable => "ok",
        Verdict::Violation(_) => "illegal",
        Verdict::Unknown { .. } => "unknown",
    };
    Ok((seconds, verdict, result.stats().steps))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The workload: `rounds` rounds over the corpus under `dir`; one JSON
/// row with the totals (medians over rounds) and `files`, each file's
/// median time and verdict. Fails if a verdict is not Porcupine's.
///
/// A round's wall time is the sum of its checks'; its CPU time is this
/// thread's, from the round's start to its end (the kernel's count moves
/// in steps of milliseconds, too coarse for one small file).
pub fn measure(dir: &Path, rounds: usize) -> Result<Json, String> {
    let files = corpus(dir)?;
    let mut wall = vec![Vec::with_capacity(rounds); files.len()];
    let mut round_totals = Vec::with_capacity(rounds);
    let mut verdicts = vec![""; files.len()];
    let mut steps = vec![0; files.len()];
    for _ in 0..rounds {
        let mut round_wall = 0.0;
        let cpu_start = thread_cpu_ns();
        for (i, file) in files.iter().enumerate() {
            let (seconds, verdict, n) = match &file.history {
                History::Etcd(history) => timed(&CasRegister, history),
                History::Kv(history) => timed(&AppendKv, history),
            }
            .map_err(|e| format!("{}: {e}", file.name))?;
            wall[i].push(seconds);
            (verdicts[i], steps[i]) = (verdict, n);
            round_wall += seconds;
        }
        let round_cpu = cpu_start
            .zip(thread_cpu_ns())
            .map_or(f64::NAN, |(from, to)| to.saturating_sub(from) as f64 / 1e9);
        round_totals.push((round_wall, round_cpu));
    }
    let mut rows = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        let expected = if file.linearizable { "ok" } else { "illegal" };
        if verdicts[i] != expected {
            return Err(format!(
                "{}: lincheck says {}, Porcupine's tests expect {expected}",
                file.name, verdicts[i]
            ));
        }
        let ops = match &file.history {
            History::Etcd(h) => h.len(),
            History::Kv(h) => h.len(),
        };
        rows.push(json!({
            "file": file.name,
            "ops": ops,
            "verdict": verdicts[i],
            "seconds": median(&mut wall[i]),
            "steps": steps[i],
        }));
    }
    let mut total_wall: Vec<f64> = round_totals.iter().map(|t| t.0).collect();
    let mut total_cpu: Vec<f64> = round_totals.iter().map(|t| t.1).collect();
    let ops: u64 = rows.iter().filter_map(|r| r["ops"].as_u64()).sum();
    let steps: u64 = steps.iter().sum();
    Ok(json!({
        "seconds": median(&mut total_wall),
        "cpu_seconds": median(&mut total_cpu),
        "ops": ops,
        "steps": steps,
        "files": rows,
    }))
}

/// The per-file table of a `lincheck-porcupine` row: file, operations,
/// verdict, milliseconds, steps; then the totals (wall and CPU).
pub fn report(row: &Json, repeats: usize) -> String {
    let Some(files) = row["files"].as_array() else {
        return String::new();
    };
    let ms = |v: &Json| {
        v.as_f64()
            .map_or_else(|| "?".to_owned(), |s| format!("{:.3}", s * 1e3))
    };
    let mut out = format!(
        "\nlincheck-porcupine: {} histories of Porcupine's test_data, each the median of {} runs\n\n",
        files.len(),
        repeats
    );
    out.push_str(&format!(
        "{:<22}  {:>5}  {:<7}  {:>10}  {:>9}\n",
        "file", "ops", "verdict", "ms", "steps"
    ));
    out.push_str(&format!(
        "{:-<22}  {:->5}  {:-<7}  {:->10}  {:->9}\n",
        "", "", "", "", ""
    ));
    for file in files {
        out.push_str(&format!(
            "{:<22}  {:>5}  {:<7}  {:>10}  {:>9}\n",
            file["file"].as_str().unwrap_or("?"),
            file["ops"].as_u64().unwrap_or(0),
            file["verdict"].as_str().unwrap_or("?"),
            ms(&file["seconds"]),
            file["steps"].as_u64().unwrap_or(0),
        ));
    }
    out.push_str(&format!(
        "total (median round): {} ops, {} ms wall, {} ms CPU, {} steps; every verdict Porcupine's\n",
        row["ops"].as_u64().unwrap_or(0),
        ms(&row["seconds"]),
        ms(&row["cpu_seconds"]),
        row["steps"].as_u64().unwrap_or(0),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jepsen_log_reads_as_porcupine_reads_it() {
        let log = "INFO  jepsen.util - 4\t:invoke\t:write\t3\n\
                   INFO  jepsen.util - 2\t:invoke\t:cas\t[0 3]\n\
                   INFO  jepsen.util - 4\t:ok\t:write\t3\n\
                   INFO  jepsen.util - 1\t:invoke\t:read\tnil\n\
                   INFO  jepsen.util - 2\t:fail\t:cas\t[0 3]\n\
                   INFO  jepsen.util - 0\t:invoke\t:write\t1\n\
                   INFO  jepsen.util - 1\t:fail\t:read\t:timed-out\n\
                   INFO  jepsen.util - 0\t:info\t:write\t:timed-out\n\
                   some other line\n";
        let ops = parse_jepsen(log).expect("parses");
        assert_eq!(ops.len(), 4);
        assert_eq!(
            ops[0],
            Operation::completed(0, 4, 0, 2, RegisterInput::Write(3), RegisterOutput::Ok)
        );
        assert_eq!(ops[1].output, Some(RegisterOutput::Failed));
        assert_eq!(ops[1].input, RegisterInput::Cas { from: 0, to: 3 });
        assert_eq!((ops[2].ret, ops[2].output), (Some(6), None));
        assert!(ops[3].never_returned());
    }

    #[test]
    fn a_kv_history_reads_every_line_and_refuses_others() {
        let text = "{:process 6, :type :invoke, :f :append, :key \"0\", :value \"x 6 0 y\"}\n\
                    {:process 8, :type :invoke, :f :get, :key \"0\", :value nil}\n\
                    {:process 6, :type :ok, :f :append, :key \"0\", :value \"x 6 0 y\"}\n\
                    {:process 8, :type :ok, :f :get, :key \"0\", :value \"x 6 0 y\"}\n";
        let ops = parse_kv(text).expect("parses");
        assert_eq!(ops.len(), 2);
        assert_eq!(ops[1].output.as_deref(), Some("x 6 0 y"));
        let result = check(&AppendKv, &ops, &CheckOptions::default()).expect("valid");
        assert!(result.is_linearizable());
        assert!(parse_kv("{:process 6, :type :info}").is_err());
    }
}
