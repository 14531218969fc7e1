//! Pictures of histories: a self-contained HTML page (or a fragment to
//! embed) with one SVG per partition.
//!
//! Each picture has one lane per client and draws every operation as an
//! interval from its call to its return (an operation that never returned
//! runs off to the right, dashed). With a [`CheckResult`]:
//!
//! - a **violated** partition shows its stuck point: the longest
//!   linearizable prefix the search found, as numbered linearization
//!   points, and the operation that could not be placed next, in red, with
//!   the tick by which it had to take effect;
//! - a **linearizable** partition checked with
//!   [`CheckOptions::witness`](crate::CheckOptions::witness) shows its
//!   linearization points, numbered in order;
//! - every partition says how its search ended and what it cost (steps,
//!   cache hits, configurations).
//!
//! The partition is selectable: each is a `<details>` element with its
//! verdict as the summary, the violated one (or the first) open. Nothing
//! is loaded from elsewhere and there is no script; the markup is
//! well-formed XML, so it can be embedded in XHTML or checked by an XML
//! parser. Time is drawn as the order of the distinct ticks (equal gaps),
//! so a picture stays readable whatever the clock's resolution; a
//! partition of more than [`MAX_DRAWN_OPS`] operations is drawn in a
//! window of that many around its stuck point (or from its start).
//!
//! ```
//! use lincheck::{check, parse_jsonl, CheckOptions, KvModel, html};
//!
//! let history = parse_jsonl(r#"
//! {"id":1,"client":0,"call":0,"return":2,"op":"put","key":"k","value":"v1"}
//! {"id":2,"client":1,"call":3,"return":4,"op":"get","key":"k","value":null}
//! "#)?;
//! let result = check(&KvModel, &history, &CheckOptions::default())?;
//! let page = html::history_page(&KvModel, &history, Some(&result), "a stale read");
//! assert!(page.starts_with("<!DOCTYPE html>"));
//! assert!(page.contains("class=\"lc-op lc-stuck\""));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod layout;
mod svg;

use std::fmt::Write as _;

use crate::history::Operation;
use crate::model::Model;
use crate::result::CheckResult;

pub use layout::MAX_DRAWN_OPS;

/// The stylesheet of [`history_fragment`]: include it once in a page that
/// embeds fragments ([`history_page`] does). Every class it styles starts
/// with `lc-` (or is `lincheck`), so it does not clash with a host page.
pub const STYLE: &str = include_str!("style.css");

/// The picture of `history` as an HTML fragment: a `<div
/// class="lincheck">` with one `<details>` per partition, each holding its
/// SVG. Style it with [`STYLE`]. `result` is what [`check`](crate::check)
/// said of this history (with the same model), or `None` for a picture of
/// the history alone.
pub fn history_fragment<M: Model>(
    model: &M,
    history: &[Operation<M::Input, M::Output>],
    result: Option<&CheckResult>,
) -> String {
    let partitions = layout::partitions(model, history, result);
    let mut out = String::from("<div class=\"lincheck\">\n");
    if partitions.is_empty() {
        out.push_str("<p class=\"lc-note\">The history is empty.</p>\n");
    }
    let open = partitions
        .iter()
        .position(|p| p.violated)
        .unwrap_or_default();
    for (i, partition) in partitions.iter().enumerate() {
        let _ = writeln!(
            out,
            "<details class=\"lc-partition\"{}>\n<summary>{}</summary>",
            if i == open { " open=\"open\"" } else { "" },
            escape(&partition.summary)
        );
        if let Some(note) = &partition.window_note {
            let _ = writeln!(out, "<p class=\"lc-note\">{}</p>", escape(note));
        }
        let _ = writeln!(
            out,
            "<div class=\"lc-scroll\">\n{}\n</div>",
            svg::draw(partition)
        );
        if let Some(explanation) = &partition.explanation {
            let _ = writeln!(
                out,
                "<pre class=\"lc-explanation\">{}</pre>",
                escape(explanation)
            );
        }
        out.push_str("</details>\n");
    }
    out.push_str(LEGEND);
    out.push_str("</div>\n");
    out
}

/// A whole, self-contained HTML page: `title`, the verdict, and
/// [`history_fragment`] with its stylesheet inlined. Open it from the file
/// system; it loads nothing.
pub fn history_page<M: Model>(
    model: &M,
    history: &[Operation<M::Input, M::Output>],
    result: Option<&CheckResult>,
    title: &str,
) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(out, "<style>\n{PAGE_STYLE}{STYLE}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", escape(title));
    let verdict = match result {
        Some(result) => {
            let stats = result.stats();
            format!(
                "{} operations, {} partitions: {}. Search: {} steps, {} cache hits, {} \
                 configurations.",
                history.len(),
                result.partitions.len(),
                result
                    .verdict
                    .to_string()
                    .lines()
                    .next()
                    .unwrap_or_default(),
                stats.steps,
                stats.cache_hits,
                stats.configurations
            )
        }
        None => format!("{} operations (not checked).", history.len()),
    };
    let _ = writeln!(out, "<p class=\"lc-verdict\">{}</p>", escape(&verdict));
    out.push_str(&history_fragment(model, history, result));
    out.push_str("</body>\n</html>\n");
    out
}

/// The page-level rules of [`history_page`] (a host page has its own).
const PAGE_STYLE: &str = "body { font-family: system-ui, sans-serif; margin: 1.5rem; \
                          color: #1d2733; }\nh1 { font-size: 1.4rem; }\n";

/// What the colours and marks mean.
const LEGEND: &str = "<p class=\"lc-legend\">\
<span class=\"lc-key lc-key-answered\"></span> answered \
<span class=\"lc-key lc-key-unanswered\"></span> returned, answer unknown \
<span class=\"lc-key lc-key-pending\"></span> never returned \
<span class=\"lc-key lc-key-dropped\"></span> read-only with no answer (constrains nothing) \
<span class=\"lc-key lc-key-stuck\"></span> could not be placed \
<span class=\"lc-key lc-key-point\"></span> linearization point, in order. \
Hover an operation for its description.</p>\n";

/// `text` with `& < > " '` escaped, for element text and attribute
/// values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 forbids most control characters even escaped.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CheckOptions, KvInput, KvModel, KvOutput, check};

    fn stale_read() -> Vec<Operation<KvInput, KvOutput>> {
        vec![
            Operation::completed(1, 0, 0, 2, KvInput::put("k", "v1"), KvOutput::Ok),
            Operation::completed(2, 1, 3, 4, KvInput::get("k"), KvOutput::absent()),
            Operation::completed(3, 2, 0, 9, KvInput::get("other"), KvOutput::absent()),
        ]
    }

    #[test]
    fn a_violation_is_drawn_with_its_stuck_operation_and_its_prefix() {
        let history = stale_read();
        let result = check(&KvModel, &history, &CheckOptions::default()).ok();
        let fragment = history_fragment(&KvModel, &history, result.as_ref());
        assert_eq!(fragment.matches("<details").count(), 2);
        assert_eq!(fragment.matches("class=\"lc-op lc-stuck\"").count(), 1);
        assert!(fragment.contains("class=\"lc-stuck-line\""));
        assert_eq!(fragment.matches("class=\"lc-point\"").count(), 1);
        // The violated partition "k" is the one open, though "k" < "other"
        // would make it first anyway: check the summary says why.
        assert!(fragment.contains("<summary>partition &quot;k&quot; — not linearizable"));
        assert!(fragment.contains("open=\"open\">\n<summary>partition &quot;k&quot;"));
    }

    #[test]
    fn a_witness_is_drawn_as_numbered_linearization_points() {
        let history = vec![
            Operation::completed(1, 0, 0, 5, KvInput::put("k", "a"), KvOutput::Ok),
            Operation::completed(2, 1, 1, 2, KvInput::get("k"), KvOutput::absent()),
            Operation::completed(3, 1, 3, 6, KvInput::get("k"), KvOutput::value("a")),
        ];
        let options = CheckOptions::default().with_witness(true);
        let result = check(&KvModel, &history, &options).ok();
        let fragment = history_fragment(&KvModel, &history, result.as_ref());
        assert_eq!(fragment.matches("class=\"lc-point\"").count(), 3);
        assert!(!fragment.contains("lc-stuck"));
        assert!(fragment.contains("linearizable"));
    }

    #[test]
    fn text_from_the_model_is_escaped() {
        let history = vec![Operation::completed(
            1,
            0,
            0,
            1,
            KvInput::put("<k&>", "'\"\u{1}"),
            KvOutput::Ok,
        )];
        let page = history_page(&KvModel, &history, None, "a <title>");
        assert!(page.contains("&lt;k&amp;&gt;"));
        assert!(!page.contains("<k&>"));
        assert!(!page.contains('\u{1}'));
        assert!(page.contains("<title>a &lt;title&gt;</title>"));
    }

    #[test]
    fn an_invalid_history_is_drawn_without_a_panic() {
        // Drawn without being checked: a return before the call, a repeated
        // id.
        let history = vec![
            Operation::completed(1, 0, 5, 2, KvInput::put("k", "a"), KvOutput::Ok),
            Operation::completed(1, 0, 6, 7, KvInput::get("k"), KvOutput::absent()),
        ];
        let page = history_page(&KvModel, &history, None, "invalid");
        assert_eq!(page.matches("class=\"lc-op ").count(), 2);
    }

    #[test]
    fn an_empty_history_is_a_page_that_says_so() {
        let history: Vec<Operation<KvInput, KvOutput>> = Vec::new();
        let page = history_page(&KvModel, &history, None, "nothing");
        assert!(page.contains("The history is empty."));
    }
}
