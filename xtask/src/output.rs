//! How a command ends: what it prints, and the exit code for each way it
//! can fail.
//!
//! Everything goes through a locked stdout; a reader that went away
//! (`xtask matrix | head -1`) is not an error, so the command ends quietly.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::CommandFactory;
use clap::error::ErrorKind;

/// Why a command stopped early.
#[derive(Debug)]
pub enum Failure {
    /// The arguments make no sense together (exit 2, with clap's usage).
    Usage(clap::Error),
    /// The command ran and failed (exit 1).
    Failed(String),
    /// Stdout was closed under us: nothing more to say (exit 0).
    StdoutClosed,
}

impl Failure {
    /// A usage error of `subcommand`, reported like clap's own: the message,
    /// the subcommand's usage line, exit code 2.
    pub fn usage(subcommand: &str, kind: ErrorKind, message: impl std::fmt::Display) -> Failure {
        let mut cli = crate::Cli::command();
        cli.build();
        let error = match cli.find_subcommand_mut(subcommand) {
            Some(command) => command.error(kind, message),
            None => cli.error(kind, message),
        };
        Failure::Usage(error)
    }

    /// Reports the failure on stderr and gives the exit code.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Failure::Usage(error) => {
                // Prints the message and usage to stderr; ignores a closed stderr.
                let _ = error.print();
                ExitCode::from(2)
            }
            Failure::Failed(message) => {
                let _ = writeln!(io::stderr(), "error: {message}");
                ExitCode::FAILURE
            }
            Failure::StdoutClosed => ExitCode::SUCCESS,
        }
    }
}

/// What a stdout write error means: a closed pipe ends the command quietly,
/// anything else is a failure.
fn stdout_failure(error: io::Error) -> Failure {
    if error.kind() == io::ErrorKind::BrokenPipe {
        Failure::StdoutClosed
    } else {
        Failure::Failed(format!("cannot write to stdout: {error}"))
    }
}

/// Writes `text` to stdout as it is and flushes.
pub fn print(text: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(stdout_failure)
}

/// Writes `text` and a newline to stdout and flushes.
pub fn println(text: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .map_err(stdout_failure)
}

/// Writes a note for the person at the terminal to stderr; a closed stderr
/// is ignored (the note is not the command's output).
pub fn note(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}
