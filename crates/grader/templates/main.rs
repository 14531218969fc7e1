//! This lab's command line: `lab grade [--stage N]`, and every command of
//! the laboratory (`run`, `explore`, `check`, `debug`, `report`…) on your
//! protocol. `cargo run --release -- --help` lists them.

use std::process::ExitCode;

fn main() -> ExitCode {
    let command = concat!(
        "cargo run --release --manifest-path ",
        env!("CARGO_MANIFEST_DIR"),
        "/Cargo.toml --"
    );
    let student = grader::Student::{{LAB}}(&{{CRATE}}::Student);
    if let Err(why) = grader::install(student, command) {
        eprintln!("{why}");
        return ExitCode::from(2);
    }
    xtask::main()
}
