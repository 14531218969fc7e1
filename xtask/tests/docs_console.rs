//! Every console block of the guide (`docs/**/*.md`) and of `README.md` is
//! run, and its output compared with the block, so the guide cannot go stale.
//!
//! A console block is a fenced block whose info string is `console`:
//!
//! ````text
//! ```console
//! $ cargo xtask trace --experiment 2 --protocol async
//! #0 @0 async_group_started primary=primary [..]
//! ...
//! #20 @2 client_op_completed op=3 outcome="done" node=replica-1 offset=0 value=none
//! ```
//! ````
//!
//! - A line starting with `$ ` is a command; the lines after it, up to the
//!   next command or the end of the block, are its expected **stdout**
//!   (stderr is not compared). A `? N` line right after the command expects
//!   exit status `N`; without one the command must exit 0. Blank lines at
//!   the end of an expected output are ignored.
//! - Wildcards, as `trycmd` spells them: a line that is exactly `...`
//!   matches any number of lines (also none); `[..]` inside a line matches
//!   any text on that line. Trailing spaces are ignored.
//! - Commands are run from the workspace root without a shell and without
//!   `cargo`: `cargo xtask ARGS` runs the `xtask` binary this test was
//!   built with (`CARGO_BIN_EXE_xtask`), and `cargo run -p PKG --example
//!   NAME [-- ARGS]` runs the example binary cargo built beside it
//!   (`target/debug/examples/NAME`; `cargo test --workspace` builds every
//!   example before it runs tests; an example binary older than its source
//!   fails with the command that rebuilds it). Any other command fails the
//!   test, so a
//!   console block only ever shows commands it can check.
//!
//! Blocks tagged `sh` or `text` are not run: use them for commands without
//! output or output without a command.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One `$ command` of a console block, with what it must print.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Case {
    /// `file:line` of the command, for messages.
    at: String,
    /// The command line after `$ `.
    command: String,
    /// The expected exit status.
    status: i32,
    /// The expected stdout lines, with wildcards.
    expected: Vec<String>,
}

/// The console cases of one Markdown text.
fn parse(file: &str, text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut in_console = false;
    let mut in_other = false;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_end();
        if in_console || in_other {
            if trimmed.trim_start().starts_with("```") {
                in_console = false;
                in_other = false;
                continue;
            }
            if in_other {
                continue;
            }
            if let Some(command) = trimmed.strip_prefix("$ ") {
                cases.push(Case {
                    at: format!("{file}:{}", number + 1),
                    command: command.trim().to_owned(),
                    status: 0,
                    expected: Vec::new(),
                });
                continue;
            }
            let Some(case) = cases.last_mut() else {
                panic!(
                    "{file}:{}: a console block must start with a `$ ` command",
                    number + 1
                );
            };
            if case.expected.is_empty()
                && let Some(status) = trimmed.strip_prefix("? ")
            {
                case.status = status
                    .trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{file}:{}: `? N` needs a number", number + 1));
                continue;
            }
            case.expected.push(trimmed.to_owned());
        } else if let Some(info) = trimmed.trim_start().strip_prefix("```") {
            if info.trim() == "console" {
                in_console = true;
            } else {
                in_other = true;
            }
        }
    }
    for case in &mut cases {
        while case.expected.last().is_some_and(String::is_empty) {
            case.expected.pop();
        }
    }
    cases
}

/// Whether `actual` matches the `expected` line, where `[..]` matches any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Whether `actual` lines match `expected` lines, where a `...` line
/// matches any number of lines.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, more)| line_matches(first, line) && lines_match(rest, more)),
    }
}

/// The first expected line (index and text) that a greedy left-to-right
/// scan cannot place in `actual`: after a `...` it may match any later
/// line, otherwise it must match the next one. For error messages only.
fn first_unmatched<'e>(expected: &'e [String], actual: &[&str]) -> Option<(usize, &'e str)> {
    let mut at = 0;
    let mut skipping = false;
    for (i, line) in expected.iter().enumerate() {
        if line == "..." {
            skipping = true;
            continue;
        }
        let found = if skipping {
            actual[at..]
                .iter()
                .position(|a| line_matches(line, a))
                .map(|p| at + p)
        } else {
            (at < actual.len() && line_matches(line, actual[at])).then_some(at)
        };
        match found {
            Some(p) => at = p + 1,
            None => return Some((i, line)),
        }
        skipping = false;
    }
    None
}

/// The workspace root (the parent of `xtask/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// The program and arguments a documented command stands for.
fn resolve(case: &Case) -> Result<(PathBuf, Vec<String>), String> {
    let words: Vec<String> = case.command.split_whitespace().map(str::to_owned).collect();
    let xtask = PathBuf::from(env!("CARGO_BIN_EXE_xtask"));
    match words.as_slice() {
        [cargo, sub, args @ ..] if cargo == "cargo" && sub == "xtask" => Ok((xtask, args.to_vec())),
        [cargo, run, p, pkg, ex, name, rest @ ..]
            if cargo == "cargo" && run == "run" && p == "-p" && ex == "--example" =>
        {
            let args = match rest {
                [] => Vec::new(),
                [dashes, args @ ..] if dashes == "--" => args.to_vec(),
                _ => return Err(format!("{}: arguments go after `--`", case.at)),
            };
            let dir = xtask.parent().expect("the xtask binary is in a directory");
            let example = dir
                .join("examples")
                .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
            if !example.exists() {
                return Err(format!(
                    "{}: example binary {} is missing: build it with \
                     `cargo build --workspace --examples` (cargo test --workspace does)",
                    case.at,
                    example.display()
                ));
            }
            let source = root()
                .join("crates")
                .join(pkg)
                .join("examples")
                .join(format!("{name}.rs"));
            let modified = |path: &Path| fs::metadata(path).and_then(|m| m.modified()).ok();
            if let (Some(built), Some(edited)) = (modified(&example), modified(&source))
                && edited > built
            {
                return Err(format!(
                    "{}: example binary {} is older than {}: rebuild it with \
                     `cargo build -p {pkg} --examples`",
                    case.at,
                    example.display(),
                    source.display()
                ));
            }
            Ok((example, args))
        }
        _ => Err(format!(
            "{}: `{}` is neither `cargo xtask …` nor `cargo run -p … --example …`",
            case.at, case.command
        )),
    }
}

/// Runs `case`; `Err` explains how its output differs from the block.
fn check(case: &Case) -> Result<(), String> {
    let (program, args) = resolve(case)?;
    let output = Command::new(&program)
        .args(&args)
        .current_dir(root())
        .env_remove("RUST_LOG")
        .env("MINIDIST_REEXEC", "0")
        .output()
        .map_err(|e| format!("{}: cannot run {}: {e}", case.at, program.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let actual: Vec<&str> = stdout.lines().map(str::trim_end).collect();
    let status = output.status.code().unwrap_or(-1);
    if status != case.status {
        return Err(format!(
            "{}: `{}` exited {status}, the block expects {}\nstderr:\n{}",
            case.at,
            case.command,
            case.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    if lines_match(&case.expected, &actual) {
        return Ok(());
    }
    let hint = match first_unmatched(&case.expected, &actual) {
        Some((i, line)) => format!(
            "expected line {} not found where it should be: {line}",
            i + 1
        ),
        None => "more output than the block shows (end the block with `...`?)".to_owned(),
    };
    Err(format!(
        "{}: the output of `{}` differs from the block ({hint})\n--- actual stdout ---\n{stdout}",
        case.at, case.command
    ))
}

/// Every Markdown file of the guide, and the README.
fn documents() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a readable directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                out.push(path);
            }
        }
    }
    let root = root();
    let mut out = vec![root.join("README.md")];
    if root.join("README.zh-CN.md").exists() {
        out.push(root.join("README.zh-CN.md"));
    }
    walk(&root.join("docs"), &mut out);
    out
}

fn cases() -> Vec<Case> {
    let root = root();
    let mut all: Vec<Case> = documents()
        .iter()
        .flat_map(|path| {
            let text =
                fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path
                .strip_prefix(&root)
                .unwrap_or(path)
                .display()
                .to_string();
            parse(&name, &text)
        })
        .collect();
    // A Chinese page repeats its English twin's blocks byte for byte
    // (`docs_languages.rs` checks that): each distinct command and output
    // is run once, at its first place (the English page).
    let mut seen = std::collections::HashSet::new();
    all.retain(|case| seen.insert((case.command.clone(), case.status, case.expected.clone())));
    all
}

#[test]
fn every_console_block_in_the_guide_and_the_readme_prints_what_it_shows() {
    let cases = cases();
    let failures: Vec<String> = cases.iter().filter_map(|case| check(case).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} console commands are stale:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
    assert!(
        cases.len() >= 20,
        "the guide should hold its console blocks; found {}",
        cases.len()
    );
}

#[test]
fn every_guide_page_is_linked_from_the_guide_start_page_or_the_readme() {
    let root = root();
    let start = fs::read_to_string(root.join("docs/README.md")).expect("docs/README.md exists");
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md exists");
    for path in documents() {
        let Ok(relative) = path.strip_prefix(root.join("docs")) else {
            continue;
        };
        let relative = relative.display().to_string().replace('\\', "/");
        if relative == "README.md" {
            assert!(readme.contains("docs/README.md"), "README links the guide");
            continue;
        }
        if let Some(page) = relative.strip_prefix("zh-CN/") {
            // The Chinese guide: linked from its own start page.
            let start = fs::read_to_string(root.join("docs/zh-CN/README.md"))
                .expect("docs/zh-CN/README.md exists");
            assert!(
                page == "README.md" || start.contains(&format!("({page})")),
                "docs/{relative} is not linked from docs/zh-CN/README.md"
            );
            continue;
        }
        assert!(
            start.contains(&format!("({relative})"))
                || readme.contains(&format!("(docs/{relative})")),
            "docs/{relative} is linked from neither docs/README.md nor README.md"
        );
    }
}

#[test]
fn a_changed_expected_line_fails_the_check() {
    let good = "```console\n$ cargo xtask matrix --protocol raft --experiment 6\n...\n\
                raft      stale  fresh   fresh\n```\n";
    let case = &parse("inline", good)[0];
    assert_eq!(check(case), Ok(()));
    let bad = good.replace("stale  fresh   fresh", "stale  fresh   stale");
    let err = check(&parse("inline", &bad)[0]).expect_err("a changed line is caught");
    assert!(err.contains("differs from the block"), "{err}");
}

#[test]
fn a_wrong_exit_status_fails_the_check() {
    let block = "```console\n$ cargo xtask matrix --protocol nosuch\n? 0\n```\n";
    let err = check(&parse("inline", block)[0]).expect_err("exit 2 is not 0");
    assert!(err.contains("exited 2"), "{err}");
}

#[test]
fn wildcards_match_as_documented() {
    let lines = |s: &[&str]| s.iter().map(|l| (*l).to_owned()).collect::<Vec<_>>();
    assert!(line_matches("a [..] c", "a b b c"));
    assert!(line_matches("[..]", ""));
    assert!(!line_matches("a [..] c", "a b d"));
    assert!(!line_matches("abc", "abcd"));
    assert!(lines_match(
        &lines(&["a", "...", "d"]),
        &["a", "b", "c", "d"]
    ));
    assert!(lines_match(&lines(&["a", "...", "b"]), &["a", "b"]));
    assert!(lines_match(&lines(&["..."]), &[]));
    assert!(!lines_match(&lines(&["a", "d"]), &["a", "b", "d"]));
    assert!(!lines_match(&lines(&["a"]), &["a", "b"]));
}

#[test]
fn only_console_blocks_are_parsed_and_status_lines_are_read() {
    let text =
        "```sh\n$ rm -rf /\n```\n```console\n$ cargo xtask a\n? 1\nout\n\n$ cargo xtask b\n```\n";
    let cases = parse("t.md", text);
    assert_eq!(cases.len(), 2);
    assert_eq!(
        (cases[0].status, cases[0].expected.clone()),
        (1, vec!["out".to_owned()])
    );
    assert_eq!(cases[1].at, "t.md:9");
}
