//! Reading a scenario file: cases of `directive args…`, `----`, expected
//! output, each checked against the directive's argument list so that a
//! mistake is reported as `file:line: message` before anything runs.

use std::collections::BTreeSet;
use std::fmt;

use replication::Registry;

use crate::directive::{Directive, OpSpec, parse_directive};
use crate::expected::Expected;
use crate::nodes::{known_nodes, known_nodes_with, most_followers};

/// A scenario that could not be read: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file name as given to [`parse`].
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// One directive with its expected output.
#[derive(Debug, Clone)]
pub struct Case {
    /// Comment and blank lines written before the directive, kept verbatim
    /// so [`render`](crate::render) (`--rewrite`) preserves them.
    pub preamble: Vec<String>,
    /// 1-based line of the directive.
    pub line: usize,
    /// The directive line exactly as written.
    pub text: String,
    /// What it asks for.
    pub directive: Directive,
    /// Its `as=` label: the name its answer is recorded under.
    pub label: Option<String>,
    /// The expected output, per protocol (empty when the file has no
    /// `----` block yet).
    pub expected: Expected,
}

/// A parsed scenario file.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file name used in error messages.
    pub file: String,
    /// The cases, in file order.
    pub cases: Vec<Case>,
    /// Comment lines after the last case.
    pub trailer: Vec<String>,
}

/// Splits a directive line into words; `"…"` quotes a word with spaces
/// (no escapes inside).
pub(crate) fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            return Ok(out);
        }
        let mut word = String::new();
        let mut quoted = false;
        while let Some(&c) = chars.peek() {
            if c == '"' {
                quoted = !quoted;
                chars.next();
                continue;
            }
            if c.is_whitespace() && !quoted {
                break;
            }
            word.push(c);
            chars.next();
        }
        if quoted {
            return Err("unterminated quote".into());
        }
        out.push(word);
    }
}

fn is_comment(line: &str) -> bool {
    line.trim_start().starts_with('#')
}

/// Parses scenario `text` for the protocols of `registry`; `file` names it
/// in error messages.
///
/// Every directive, argument, level and node reference is checked here;
/// `await op=x` must name an operation submitted (`as=x`) earlier since
/// the last `config`, `gate write=x` a `write … as=x` since then, and an
/// `as=` name is used at most once between two `config`s.
pub fn parse(file: &str, text: &str, registry: &Registry) -> Result<Scenario, ScenarioError> {
    let err = |line: usize, message: String| ScenarioError {
        file: file.to_owned(),
        line,
        message,
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut cases = Vec::new();
    let mut preamble: Vec<String> = Vec::new();
    let mut submitted: BTreeSet<String> = BTreeSet::new();
    let mut named: BTreeSet<String> = BTreeSet::new();
    let mut writes: BTreeSet<String> = BTreeSet::new();
    let mut known = known_nodes(registry);
    let mut followers = most_followers(registry, &replication::Settings::new(), |_| true);
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        if raw.trim().is_empty() || is_comment(raw) {
            if !(preamble.is_empty() && raw.trim().is_empty()) {
                preamble.push(raw.to_owned());
            }
            i += 1;
            continue;
        }
        let line_no = i + 1;
        if raw.trim() == "----" {
            return Err(err(line_no, "`----` without a directive above it".into()));
        }
        let words = words(raw).map_err(|m| err(line_no, m))?;
        let (directive, label) =
            parse_directive(&words, registry, &known, followers).map_err(|m| err(line_no, m))?;
        if let Some(l) = &label
            && !named.insert(l.clone())
        {
            return Err(err(line_no, format!("the name `{l}` is already used")));
        }
        if let Some(l) = &label
            && matches!(
                directive,
                Directive::Blocking(OpSpec::Write { .. }) | Directive::Repeat { .. }
            )
        {
            writes.insert(l.clone());
        }
        match &directive {
            Directive::Config(config) => {
                known = known_nodes_with(registry, &config.settings);
                followers = most_followers(registry, &config.settings, |p| config.runs_on(p));
                submitted.clear();
                named.clear();
                writes.clear();
            }
            Directive::Gate { write, .. } if !writes.contains(write) => {
                return Err(err(
                    line_no,
                    format!(
                        "`gate write={write}`: no `write … as={write}` above (since the last config)"
                    ),
                ));
            }
            Directive::Submit { name: Some(n), .. } => {
                if !named.insert(n.clone()) {
                    return Err(err(
                        line_no,
                        format!("operation name `{n}` is already used"),
                    ));
                }
                submitted.insert(n.clone());
            }
            Directive::Await { op } if !submitted.contains(op) => {
                return Err(err(
                    line_no,
                    format!("`await op={op}`: no `submit … as={op}` above (since the last config)"),
                ));
            }
            _ => {}
        }
        i += 1;
        let mut block = Vec::new();
        let mut block_line = line_no;
        if i < lines.len() && lines[i].trim() == "----" {
            block_line = i + 1;
            i += 1;
            while i < lines.len() && !lines[i].trim().is_empty() {
                block.push(lines[i].to_owned());
                i += 1;
            }
        } else if i < lines.len() && !lines[i].trim().is_empty() {
            let next = lines[i].trim();
            let is_directive = !is_comment(next)
                && self::words(next)
                    .is_ok_and(|w| parse_directive(&w, registry, &known, followers).is_ok());
            let message = if is_directive {
                format!(
                    "`{next}` follows the directive on line {line_no} directly: every directive \
                     is a case of its own — put `----` and its expected output (or a blank line) \
                     after `{}` first",
                    raw.trim()
                )
            } else {
                "expected `----` or a blank line after a directive".to_owned()
            };
            return Err(err(i + 1, message));
        }
        let expected =
            Expected::parse(&block, registry).map_err(|(k, m)| err(block_line + 1 + k, m))?;
        cases.push(Case {
            preamble: std::mem::take(&mut preamble),
            line: line_no,
            text: raw.trim_end().to_owned(),
            directive,
            label,
            expected,
        });
    }
    while preamble.last().is_some_and(|l| l.trim().is_empty()) {
        preamble.pop();
    }
    Ok(Scenario {
        file: file.to_owned(),
        cases,
        trailer: preamble,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_quoted_spaces_together() {
        assert_eq!(
            words(r#"write key=k value="a b""#).expect("quotes close"),
            vec!["write", "key=k", "value=a b"]
        );
        assert!(words(r#"write value="a"#).is_err());
    }

    #[test]
    fn an_unknown_directive_names_its_line() {
        let e = parse(
            "f.txt",
            "# c\n\nwrit key=k\n----\nok\n",
            &crate::test_registry(),
        )
        .expect_err("unknown");
        assert_eq!(e.line, 3);
        assert!(
            e.to_string()
                .starts_with("f.txt:3: unknown directive `writ`"),
            "{e}"
        );
    }

    #[test]
    fn directives_one_per_line_are_an_error_that_says_each_needs_its_own_block() {
        let e = parse(
            "f.txt",
            "isolate node=leader\nheal node=leader\n----\nok\n",
            &crate::test_registry(),
        )
        .expect_err("two directives, one block");
        assert_eq!(e.line, 2);
        assert!(
            e.message
                .contains("`heal node=leader` follows the directive on line 1")
                && e.message.contains("every directive is a case of its own"),
            "{e}"
        );
        let e = parse(
            "f.txt",
            "isolate node=leader\nnot a directive\n",
            &crate::test_registry(),
        )
        .expect_err("junk after a directive");
        assert!(e.message.starts_with("expected `----`"), "{e}");
    }

    #[test]
    fn await_of_an_operation_never_submitted_is_a_parse_error() {
        let e = parse("f", "await op=w9\n", &crate::test_registry()).expect_err("no such op");
        assert!(e.message.contains("no `submit"), "{e}");
    }

    #[test]
    fn a_directive_without_a_block_has_empty_expectations() {
        let s = parse(
            "f",
            "tick\n\ntick n=2\n----\ntick=3\n",
            &crate::test_registry(),
        )
        .expect("parses");
        assert_eq!(s.cases.len(), 2);
        assert!(s.cases[0].expected.is_empty());
    }
}
