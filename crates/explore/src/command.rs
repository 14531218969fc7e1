//! The command that reruns this program, as printed counterexamples name
//! it: `cargo xtask` in this workspace, or what a crate outside it
//! installed ([`set_command`]) when its own binary serves the command line.

use std::sync::OnceLock;

static COMMAND: OnceLock<String> = OnceLock::new();

/// The command prefix printed before `explore --replay ID` and the like:
/// `cargo xtask` unless [`set_command`] said otherwise.
pub fn command() -> &'static str {
    COMMAND.get().map_or("cargo xtask", String::as_str)
}

/// Sets [`command`] for this process (the first call wins).
pub fn set_command(prefix: &str) {
    let _ = COMMAND.set(prefix.trim_end().to_owned());
}
