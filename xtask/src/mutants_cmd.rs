//! `cargo xtask mutants [--package P] [--oracle tests|explore] [--shard K/N]`:
//! mutation testing of each protocol crate's safety files with
//! cargo-mutants. Prints caught / viable per crate.
//!
//! The oracle is what judges a mutant: `tests` (the default) runs that
//! crate's own tests plus the cross-crate `tests` crate; `explore` runs the
//! explorer alone — `tests/tests/explore_oracle.rs`, a sweep of the crate's
//! explorer rows at 2,000 schedules each, built with the `oracle` profile
//! (optimized), which fails when any verdict status differs from
//! `docs/guarantees.md`. `--shard K/N` takes every N-th mutant
//! (cargo-mutants' round-robin sharding), a spread sample.
//!
//! Slow (every mutant is a rebuild and a test run): run by hand, not in CI.
//! Mutants known to be equivalent are excluded in `.cargo/mutants.toml`
//! (`exclude_re`, one commented reason per entry), which cargo-mutants
//! reads itself.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::error::ErrorKind;

use crate::output::{self, Failure};

/// The safety files of each protocol crate: where a surviving mutant means
/// a protocol guarantee no test pins.
pub const SAFETY_FILES: &[(&str, &[&str])] = &[
    (
        "proto-isr",
        &[
            "controller/membership.rs",
            "controller/election.rs",
            "controller/reads.rs",
            "node.rs",
            "leader.rs",
            "follower.rs",
            "client.rs",
            "reads.rs",
            "group.rs",
        ],
    ),
    (
        "proto-raft",
        &[
            "node.rs",
            "leader.rs",
            "follower.rs",
            "reads.rs",
            "prevote.rs",
            "snapshot.rs",
            "transfer.rs",
        ],
    ),
    (
        "proto-wal",
        &[
            "node/standby.rs",
            "node/primary.rs",
            "node/follow.rs",
            "node/log.rs",
            "node/mod.rs",
            "group.rs",
            "operator.rs",
        ],
    ),
    (
        "proto-async",
        &[
            "node/mod.rs",
            "node/primary.rs",
            "node/replica.rs",
            "sentinel.rs",
            "group.rs",
            "replication_impl.rs",
        ],
    ),
];

/// `cargo xtask mutants [--package P]`.
#[derive(clap::Args)]
pub struct Args {
    /// Only this protocol crate [default: all four].
    #[arg(long, short = 'p', value_name = "PACKAGE")]
    package: Option<String>,
    /// Where cargo-mutants writes `<package>/mutants.out`
    /// (`explore/<package>/…` for the explorer oracle).
    #[arg(long, value_name = "DIR", default_value = "target/mutants")]
    output: PathBuf,
    /// What judges a mutant: the crate's own and the cross-crate tests, or
    /// the explorer's verdicts alone.
    #[arg(long, value_enum, default_value_t = Oracle::Tests)]
    oracle: Oracle,
    /// Only every N-th mutant, starting at the K-th (`0/8`: an eighth).
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<(u32, u32)>,
}

/// What judges a mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Oracle {
    /// The crate's own tests plus the cross-crate `tests` crate.
    Tests,
    /// The explorer alone (`tests/tests/explore_oracle.rs`, release build).
    Explore,
}

/// `K/N` with `K < N`.
fn parse_shard(text: &str) -> Result<(u32, u32), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("{text:?} is not K/N"))?;
    let k: u32 = k.parse().map_err(|_| format!("{k:?} is not a number"))?;
    let n: u32 = n.parse().map_err(|_| format!("{n:?} is not a number"))?;
    if n == 0 || k >= n {
        return Err(format!("{text:?}: K must be below N and N above 0"));
    }
    Ok((k, n))
}

/// The `cargo test` arguments that run the explorer oracle.
const ORACLE_TEST: [&str; 4] = ["--test", "explore_oracle", "--", "--ignored"];

/// The explorer's protocol name of a protocol crate (`proto-raft` → `raft`).
fn protocol_of(package: &str) -> &str {
    package.strip_prefix("proto-").unwrap_or(package)
}

/// Counts from one package's `mutants.out/outcomes.json`.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    caught: u64,
    missed: u64,
    timeout: u64,
    unviable: u64,
}

impl Tally {
    /// Mutants that built: caught, missed or timed out.
    fn viable(&self) -> u64 {
        self.caught + self.missed + self.timeout
    }
}

/// `mutants`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let packages: Vec<&(&str, &[&str])> = match &args.package {
        None => SAFETY_FILES.iter().collect(),
        Some(name) => {
            let found: Vec<_> = SAFETY_FILES.iter().filter(|(p, _)| p == name).collect();
            if found.is_empty() {
                let known: Vec<&str> = SAFETY_FILES.iter().map(|(p, _)| *p).collect();
                return Err(Failure::usage(
                    "mutants",
                    ErrorKind::InvalidValue,
                    format!("unknown package {name:?}; one of {}", known.join(", ")),
                ));
            }
            found
        }
    };
    ensure_cargo_mutants()?;
    let mut all_survivors_explained = true;
    for (package, files) in packages {
        let out_dir = match args.oracle {
            Oracle::Tests => args.output.join(package),
            Oracle::Explore => args.output.join("explore").join(package),
        };
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| Failure::Failed(format!("cannot create {}: {e}", out_dir.display())))?;
        let mut cmd = Command::new("cargo");
        cmd.args(["mutants", "--package", package]);
        match args.oracle {
            Oracle::Tests => {
                cmd.args(["--test-package", package, "--test-package", "tests"]);
            }
            Oracle::Explore => {
                // cargo-mutants' own baseline runs the mutated package's
                // tests, not `--test-package`'s, so the baseline is run
                // here, and its timeouts are given: a crate's sweep takes
                // 1-12 s optimized, so 120 s is a mutant that never ends
                // (a loop counter divided instead of decremented).
                explorer_baseline(package)?;
                cmd.args(["--test-package", "tests", "--profile", "oracle"])
                    .args(["--baseline", "skip", "--timeout", "120"])
                    .args(["--build-timeout", "900"])
                    .env("MINIDIST_ORACLE_PROTOCOL", protocol_of(package));
            }
        }
        if let Some((k, n)) = args.shard {
            cmd.arg("--shard")
                .arg(format!("{k}/{n}"))
                .args(["--sharding", "round-robin"]);
        }
        cmd.arg("--output").arg(&out_dir);
        for file in *files {
            cmd.arg("--file")
                .arg(format!("crates/{package}/src/{file}"));
        }
        if args.oracle == Oracle::Explore {
            cmd.arg("--").args(ORACLE_TEST);
        }
        output::note(&format!("{package}: {cmd:?}"));
        // cargo-mutants exits non-zero when a mutant is missed: the count
        // below is the answer, not its exit code.
        let status = cmd
            .status()
            .map_err(|e| Failure::Failed(format!("cannot run cargo mutants: {e}")))?;
        let tally = read_outcomes(&out_dir.join("mutants.out").join("outcomes.json"))?;
        if tally.missed > 0 || tally.timeout > 0 {
            all_survivors_explained = false;
        }
        output::println(&format!(
            "{package}: caught {} / viable {} (missed {}, timeout {}, unviable {}; cargo mutants {status})",
            tally.caught,
            tally.viable(),
            tally.missed,
            tally.timeout,
            tally.unviable
        ))?;
    }
    Ok(if all_survivors_explained {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The explorer oracle on the unmutated tree: it must pass, or every
/// mutant would count as caught.
fn explorer_baseline(package: &str) -> Result<(), Failure> {
    let mut cmd = Command::new("cargo");
    cmd.args(["test", "--profile", "oracle", "-p", "tests"])
        .args(ORACLE_TEST)
        .env("MINIDIST_ORACLE_PROTOCOL", protocol_of(package));
    output::note(&format!("{package}: baseline {cmd:?}"));
    let status = cmd
        .status()
        .map_err(|e| Failure::Failed(format!("cannot run cargo test: {e}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(Failure::Failed(format!(
            "the explorer oracle fails on the unmutated tree ({status}): docs/guarantees.md is stale"
        )))
    }
}

/// Installs cargo-mutants when `cargo mutants --version` fails.
fn ensure_cargo_mutants() -> Result<(), Failure> {
    let present = Command::new("cargo")
        .args(["mutants", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if present {
        return Ok(());
    }
    output::note("cargo-mutants is missing: cargo install cargo-mutants --locked");
    let status = Command::new("cargo")
        .args(["install", "cargo-mutants", "--locked"])
        .status()
        .map_err(|e| Failure::Failed(format!("cannot run cargo install: {e}")))?;
    if !status.success() {
        return Err(Failure::Failed(format!(
            "cargo install cargo-mutants --locked failed ({status})"
        )));
    }
    Ok(())
}

/// Reads the counts cargo-mutants summarises at the top of `outcomes.json`.
fn read_outcomes(path: &Path) -> Result<Tally, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Failed(format!("cannot read {}: {e}", path.display())))?;
    parse_outcomes(&text).map_err(|e| Failure::Failed(format!("{}: {e}", path.display())))
}

fn parse_outcomes(text: &str) -> Result<Tally, String> {
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let count = |field: &str| {
        json.get(field)
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| format!("no count {field:?} in outcomes.json"))
    };
    Ok(Tally {
        caught: count("caught")?,
        missed: count("missed")?,
        timeout: count("timeout")?,
        unviable: count("unviable")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_k_of_n_with_k_below_n() {
        assert_eq!(parse_shard("0/4"), Ok((0, 4)));
        assert_eq!(parse_shard("3/4"), Ok((3, 4)));
        for bad in ["4/4", "0/0", "1", "a/4", "1/b", ""] {
            assert!(parse_shard(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_explorer_oracle_names_the_crates_protocol() {
        let names: Vec<&str> = SAFETY_FILES.iter().map(|(p, _)| protocol_of(p)).collect();
        assert_eq!(names, ["isr", "raft", "wal", "async"]);
        for name in names {
            assert!(
                labs::explore_configs().iter().any(|c| c.protocol == name),
                "no explorer row of {name}"
            );
        }
    }

    #[test]
    fn outcomes_summary_counts_are_read_and_viable_excludes_unviable() {
        let text = r#"{"outcomes": [], "total_mutants": 10, "caught": 6, "missed": 1,
            "timeout": 1, "unviable": 2, "success": 0, "failure": 0}"#;
        let tally = parse_outcomes(text).expect("valid summary");
        assert_eq!(
            tally,
            Tally {
                caught: 6,
                missed: 1,
                timeout: 1,
                unviable: 2
            }
        );
        assert_eq!(tally.viable(), 8);
    }

    #[test]
    fn outcomes_without_a_count_are_an_error() {
        assert!(parse_outcomes(r#"{"caught": 1}"#).is_err());
    }

    #[test]
    fn every_safety_file_exists() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for (package, files) in SAFETY_FILES {
            for file in *files {
                let path = root.join("crates").join(package).join("src").join(file);
                assert!(path.is_file(), "{}", path.display());
            }
        }
    }
}
