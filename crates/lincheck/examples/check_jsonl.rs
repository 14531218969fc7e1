//! Checks a key/value history recorded as JSON lines and prints the verdict
//! (with the explanation of a violation) and what the search cost.
//!
//! Run: `cargo run -p sim-lincheck --example check_jsonl -- history.jsonl`,
//! and add `--html out.html` to also write a picture of the history (one
//! lane per client, the stuck point of a violation or the linearization
//! points of a success) as a self-contained page. Without a file it checks
//! a built-in history in which an acknowledged write is lost: client 2
//! reads the key after the write returned and still sees the older value.
//! Exits 1 on a violation, 2 on unknown (budget exhausted), 3 on unreadable
//! input or arguments.

use std::process::ExitCode;

use lincheck::{CheckOptions, KvModel, Verdict, check, html, parse_jsonl};

const BUILT_IN: &str = r#"{"id":1,"client":0,"call":0,"return":3,"op":"put","key":"x","value":"a"}
{"id":2,"client":1,"call":1,"return":2,"op":"get","key":"y","value":null}
{"id":3,"client":0,"call":4,"return":9,"op":"put","key":"x","value":"b"}
{"id":4,"client":1,"call":5,"return":7,"op":"get","key":"x","value":"b"}
{"id":5,"client":2,"call":8,"return":null,"op":"put","key":"y","value":"c"}
{"id":6,"client":2,"call":10,"return":11,"op":"get","key":"x","value":"a"}
{"id":7,"client":1,"call":12,"return":13,"op":"get","key":"y","value":"c"}
"#;

/// `[FILE] [--html OUT]`, in any order.
struct Args {
    file: Option<String>,
    html: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        file: None,
        html: None,
    };
    let mut words = std::env::args().skip(1);
    while let Some(word) = words.next() {
        if word == "--html" {
            let out = words.next().ok_or("--html needs a file name")?;
            args.html = Some(out);
        } else if args.file.is_none() && !word.starts_with("--") {
            args.file = Some(word);
        } else {
            return Err(format!(
                "unexpected argument {word:?} (usage: [FILE] [--html OUT])"
            ));
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(3);
        }
    };
    let (text, title) = match &args.file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => (text, path.clone()),
            Err(e) => {
                eprintln!("cannot read {path}: {e}");
                return ExitCode::from(3);
            }
        },
        None => {
            println!("(no file given; checking the built-in history)\n{BUILT_IN}");
            (BUILT_IN.to_string(), "the built-in history".to_string())
        }
    };
    let history = match parse_jsonl(&text) {
        Ok(history) => history,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(3);
        }
    };
    // A witness costs nothing worth measuring; the picture shows it.
    let options = CheckOptions::default().with_witness(args.html.is_some());
    let result = match check(&KvModel, &history, &options) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(3);
        }
    };
    match &result.verdict {
        Verdict::Linearizable => println!("{} operations: linearizable", history.len()),
        verdict => println!("{verdict}"),
    }
    let stats = result.stats();
    println!(
        "search: {} partitions, {} steps, {} cache hits, {} configurations",
        result.partitions.len(),
        stats.steps,
        stats.cache_hits,
        stats.configurations
    );
    if let Some(out) = &args.html {
        let page = html::history_page(&KvModel, &history, Some(&result), &title);
        if let Err(e) = std::fs::write(out, page) {
            eprintln!("cannot write {out}: {e}");
            return ExitCode::from(3);
        }
        println!("picture written to {out}");
    }
    match result.verdict {
        Verdict::Linearizable => ExitCode::SUCCESS,
        Verdict::Violation(_) => ExitCode::from(1),
        Verdict::Unknown { .. } => ExitCode::from(2),
    }
}
