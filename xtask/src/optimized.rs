//! `explore` and `report` run optimized: a debug `xtask` (as `cargo xtask`
//! builds it) first runs `cargo build --release -p xtask` (cargo's progress
//! on stderr) and then runs the same command in that binary — a debug
//! build is 4–5× slower with identical output. `MINIDIST_REEXEC=0` runs the
//! command in this process instead (the tests do, so nothing runs cargo
//! recursively).

use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

use crate::output::{self, Failure};

/// `Some(exit code)` when the command ran in an optimized child process;
/// `None` when this process should run it (it is optimized already, or
/// `MINIDIST_REEXEC=0`). `features` are cargo features the optimized build
/// needs (`planted`): such a build goes to its own target directory, with
/// the `oracle` profile (optimized, without the release profile's
/// whole-program optimisation: the planted bugs' verdicts do not depend on
/// speed, and that build is made from scratch, 1m24s against about 2
/// minutes on 2 cores).
pub fn reexec(what: &str, features: &[&str]) -> Result<Option<ExitCode>, Failure> {
    reexec_in(what, features, false)
}

/// [`reexec`], in the `checked` profile when `checked` is set: optimized,
/// with every `debug_assert!` and overflow check on, and unwinding, so a
/// panic is reported as a finding (`explore --debug-assertions`).
pub fn reexec_in(
    what: &str,
    features: &[&str],
    checked: bool,
) -> Result<Option<ExitCode>, Failure> {
    // An optimized build without a feature the command needs (a release
    // xtask asked for a planted bug) re-executes too.
    let has_features = features
        .iter()
        .all(|f| *f != "planted" || cfg!(feature = "planted"));
    // A crate outside the workspace serving its own protocols runs the
    // command in its own binary (built as it chose: `cargo run --release`).
    if (!cfg!(debug_assertions) && has_features && !checked)
        || labs::served()
        || std::env::var_os("MINIDIST_REEXEC").is_some_and(|v| v == "0")
    {
        return Ok(None);
    }
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .ok_or_else(|| Failure::Failed("xtask has no parent directory".into()))?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let target = if features.is_empty() {
        target
    } else {
        target.join(format!("with-{}", features.join("-")))
    };
    let profile = if checked {
        "checked"
    } else if features.is_empty() {
        "release"
    } else {
        "oracle"
    };
    let mut build = vec!["build", "--profile", profile, "-p", "xtask"];
    let joined = features.join(",");
    if !features.is_empty() {
        build.extend(["--features", joined.as_str()]);
    }
    output::note(&format!(
        "{what}: building an optimized xtask (cargo {})",
        build.join(" ")
    ));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(&build)
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&workspace)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| Failure::Failed(format!("cannot run cargo: {e}")))?;
    if !status.success() {
        return Err(Failure::Failed("the optimized build failed".into()));
    }
    let binary = target
        .join(profile)
        .join(format!("xtask{}", std::env::consts::EXE_SUFFIX));
    let status = Command::new(&binary)
        .args(std::env::args_os().skip(1))
        .env("MINIDIST_REEXEC", "0")
        .status()
        .map_err(|e| Failure::Failed(format!("cannot run {}: {e}", binary.display())))?;
    Ok(Some(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    }))
}
