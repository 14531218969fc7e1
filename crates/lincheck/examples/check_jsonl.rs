//! Checks a key/value history recorded as JSON lines and prints the verdict
//! (with the explanation of a violation).
//!
//! Run: `cargo run -p lincheck --example check_jsonl -- history.jsonl`.
//! Without an argument it checks a built-in history in which an
//! acknowledged write is lost: client 2 reads the key after the write
//! returned and still sees the older value. Exits 1 on a violation, 2 on
//! unknown (budget exhausted), 3 on unreadable input.

use std::process::ExitCode;

use lincheck::{CheckOptions, CheckResult, KvModel, check, parse_jsonl};

const BUILT_IN: &str = r#"{"id":1,"client":0,"call":0,"return":3,"op":"put","key":"x","value":"a"}
{"id":2,"client":1,"call":1,"return":2,"op":"get","key":"y","value":null}
{"id":3,"client":0,"call":4,"return":9,"op":"put","key":"x","value":"b"}
{"id":4,"client":1,"call":5,"return":7,"op":"get","key":"x","value":"b"}
{"id":5,"client":2,"call":8,"return":null,"op":"put","key":"y","value":"c"}
{"id":6,"client":2,"call":10,"return":11,"op":"get","key":"x","value":"a"}
{"id":7,"client":1,"call":12,"return":13,"op":"get","key":"y","value":"c"}
"#;

fn main() -> ExitCode {
    let text = match std::env::args().nth(1) {
        Some(path) => match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("cannot read {path}: {e}");
                return ExitCode::from(3);
            }
        },
        None => {
            println!("(no file given; checking the built-in history)\n{BUILT_IN}");
            BUILT_IN.to_string()
        }
    };
    let history = match parse_jsonl(&text) {
        Ok(history) => history,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(3);
        }
    };
    match check(&KvModel, &history, &CheckOptions::default()) {
        Ok(CheckResult::Linearizable) => {
            println!("{} operations: linearizable", history.len());
            ExitCode::SUCCESS
        }
        Ok(result @ CheckResult::Violation(_)) => {
            println!("{result}");
            ExitCode::from(1)
        }
        Ok(result @ CheckResult::Unknown { .. }) => {
            println!("{result}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(3)
        }
    }
}
