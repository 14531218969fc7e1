//! The files of this crate import each other without a circle: the graph
//! whose nodes are `src/*.rs` and whose edges are the paths one file names
//! into another (`use super::palette::INK`, `super::text::num(…)`,
//! `use crate::geometry::{…}`, and in `lib.rs` a bare `read::build(…)`) has
//! no cycle. A path to an item of `lib.rs` itself (`use super::render_svg`)
//! is an edge to `lib.rs`; a `mod` declaration is not an edge, and `super`
//! inside an inline `mod tests { … }` names its own file.
//!
//! The scan is textual but comment-, string- and char-literal-aware, which
//! is enough for this crate's flat module tree (one file per module, no
//! `#[path]`, no macros that name modules).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The root file's name in the graph.
const ROOT: &str = "lib";

/// `src` with comments, string literals and char literals blanked out
/// (newlines kept), so only code is scanned.
fn code_only(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if let Some(end) = raw_string_end(&chars, i) {
            chars[i..end].iter().for_each(|&c| out.push(blank(c)));
            i = end;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                for _ in 0..step {
                    if let Some(&c) = chars.get(i) {
                        out.push(blank(c));
                    }
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && is_char_literal(&chars, i) {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                out.extend(std::iter::repeat_n(' ', step));
                i += step;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The index just past a raw string literal (`r"…"`, `r#"…"#`, `br#"…"#`)
/// starting at `i`, if one does.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') || (i > 0 && is_ident_char(chars[i - 1])) {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && chars[j + 1..].iter().take(hashes).all(|&c| c == '#') {
            let end = j + 1 + hashes;
            if end <= chars.len() {
                return Some(end);
            }
        }
        j += 1;
    }
    Some(chars.len())
}

/// Whether the `'` at `i` opens a char literal (not a lifetime or label).
fn is_char_literal(chars: &[char], i: usize) -> bool {
    matches!(
        (chars.get(i + 1), chars.get(i + 2)),
        (Some('\\'), _) | (Some(_), Some('\''))
    )
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier starting at `i` (possibly empty).
fn ident_at(code: &[char], i: usize) -> String {
    code[i..]
        .iter()
        .take_while(|&&c| is_ident_char(c))
        .collect()
}

fn skip_space(code: &[char], mut i: usize) -> usize {
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    i
}

/// Whether `word` followed by `::` starts at `i` as a whole path segment.
fn segment_at(code: &[char], i: usize, word: &str) -> bool {
    let w: Vec<char> = word.chars().collect();
    code[i..].starts_with(&w)
        && code[i + w.len()..].starts_with(&[':', ':'])
        && (i == 0 || !(is_ident_char(code[i - 1]) || code[i - 1] == ':'))
}

/// The first segment of every path of the use tree at `i`: `text::num` →
/// `text`; `{DiagramOptions, read::build}` → both first segments.
fn first_segments(code: &[char], i: usize) -> Vec<String> {
    let i = skip_space(code, i);
    if code.get(i) != Some(&'{') {
        return vec![ident_at(code, i)];
    }
    let mut out = Vec::new();
    let (mut depth, mut j, mut at_item) = (0, i, true);
    while j < code.len() {
        match code[j] {
            '{' => {
                depth += 1;
                at_item = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => at_item = true,
            c if at_item && depth == 1 && is_ident_char(c) => {
                out.push(ident_at(code, j));
                at_item = false;
            }
            _ => {}
        }
        j += 1;
    }
    out
}

/// For each char of `code`, how many inline `mod name { … }` blocks it is
/// in: one `super` inside one such block names the file itself.
fn inline_mod_depth(code: &[char]) -> Vec<usize> {
    let mut depth_at = vec![0; code.len()];
    let mut open: Vec<usize> = Vec::new(); // brace depth at which each inline mod opened
    let mut braces = 0usize;
    let mut i = 0;
    while i < code.len() {
        if segment_like_keyword(code, i, "mod") {
            let name_at = skip_space(code, i + 3);
            let name = ident_at(code, name_at);
            let after = skip_space(code, name_at + name.len());
            if !name.is_empty() && code.get(after) == Some(&'{') {
                for d in depth_at.iter_mut().take(after).skip(i) {
                    *d = open.len();
                }
                open.push(braces);
                braces += 1;
                i = after + 1;
                continue;
            }
        }
        match code[i] {
            '{' => braces += 1,
            '}' => {
                braces = braces.saturating_sub(1);
                if open.last() == Some(&braces) {
                    open.pop();
                }
            }
            _ => {}
        }
        depth_at[i] = open.len();
        i += 1;
    }
    depth_at
}

/// Whether the keyword `word` stands alone at `i`.
fn segment_like_keyword(code: &[char], i: usize, word: &str) -> bool {
    let w: Vec<char> = word.chars().collect();
    code[i..].starts_with(&w)
        && (i == 0 || !is_ident_char(code[i - 1]))
        && code.get(i + w.len()).is_some_and(|c| c.is_whitespace())
}

/// The files `file` (a stem: `draw`, or [`ROOT`]) names, given the crate's
/// module files `modules`.
fn dependencies(file: &str, src: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code: Vec<char> = code_only(src).chars().collect();
    let nesting = inline_mod_depth(&code);
    let mut out = BTreeSet::new();
    let add = |name: String, out: &mut BTreeSet<String>| {
        let target = if modules.contains(&name) {
            name
        } else {
            ROOT.to_owned()
        };
        if target != file {
            out.insert(target);
        }
    };
    let mut i = 0;
    while i < code.len() {
        if segment_at(&code, i, "crate") {
            for name in first_segments(&code, i + "crate::".len()) {
                add(name, &mut out);
            }
            i += "crate::".len();
        } else if segment_at(&code, i, "super") {
            let up: Vec<char> = "super::".chars().collect();
            let (mut j, mut ups) = (i, 0);
            while code[j..].starts_with(&up) {
                ups += 1;
                j += up.len();
            }
            // `super` from a module file reaches the root; from inside an
            // inline `mod` it first climbs back to its own file.
            if ups > nesting[i] && file != ROOT {
                for name in first_segments(&code, j) {
                    add(name, &mut out);
                }
            }
            i = j;
        } else if file == ROOT && nesting[i] == 0 {
            let name = ident_at(&code, i);
            if !name.is_empty()
                && (i == 0 || !(is_ident_char(code[i - 1]) || code[i - 1] == ':'))
                && segment_at(&code, i, &name)
                && modules.contains(&name)
            {
                out.insert(name.clone());
            }
            i += name.len().max(1);
        } else {
            i += 1;
        }
    }
    out
}

/// Every cycle of `graph` found by a depth-first search (one per back
/// edge), each as `a.rs → b.rs → a.rs`.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
        found: &mut Vec<String>,
    ) {
        marks.insert(node.to_owned(), Mark::Open);
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            match marks.get(next.as_str()).copied().unwrap_or(Mark::New) {
                Mark::New => visit(next, graph, marks, stack, found),
                Mark::Open => {
                    let from = stack
                        .iter()
                        .position(|n| n == next)
                        .expect("an open node is on the stack");
                    let mut path: Vec<String> =
                        stack[from..].iter().map(|n| format!("{n}.rs")).collect();
                    path.push(format!("{next}.rs"));
                    found.push(path.join(" → "));
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        marks.insert(node.to_owned(), Mark::Done);
    }
    let mut marks = BTreeMap::new();
    let mut found = Vec::new();
    for node in graph.keys() {
        if marks.get(node.as_str()).copied().unwrap_or(Mark::New) == Mark::New {
            visit(node, graph, &mut marks, &mut Vec::new(), &mut found);
        }
    }
    found
}

/// The import graph of a crate's files, given as `(stem, source)`.
fn graph_of(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = files
        .iter()
        .map(|(stem, _)| stem.clone())
        .filter(|s| s != ROOT)
        .collect();
    files
        .iter()
        .map(|(stem, src)| (stem.clone(), dependencies(stem, src, &modules)))
        .collect()
}

/// This crate's `src/*.rs`, as `(stem, source)`.
fn own_sources() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: Vec<(String, String)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| {
            let stem = p
                .file_stem()
                .expect("a file has a name")
                .to_string_lossy()
                .into_owned();
            let src = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (stem, src)
        })
        .collect();
    files.sort();
    files
}

fn sources(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(stem, src)| (stem.to_string(), src.to_string()))
        .collect()
}

#[test]
fn the_files_of_the_crate_import_each_other_without_a_circle() {
    let graph = graph_of(&own_sources());
    let found = cycles(&graph);
    assert!(
        found.is_empty(),
        "import circles between files of crates/diagram/src:\n{}\n(graph: {graph:#?})",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_the_crates_real_imports() {
    let graph = graph_of(&own_sources());
    let edge = |from: &str, to: &str| graph.get(from).is_some_and(|d| d.contains(to));
    // `use super::arrows;`, a grouped `use super::{DiagramOptions, …}` to
    // the root's re-export, an inline `super::text::num(…)`, and the root's
    // bare `draw::render(…)`.
    for (from, to) in [
        ("draw", "arrows"),
        ("draw", "palette"),
        ("tests", ROOT),
        ("arrows", "text"),
        (ROOT, "draw"),
        (ROOT, "read"),
    ] {
        assert!(edge(from, to), "{from}.rs → {to}.rs not seen: {graph:#?}");
    }
    assert!(
        !edge("place", ROOT),
        "place.rs's own `mod tests` is not an import"
    );
}

#[test]
fn a_circle_between_files_is_found_and_named() {
    let files = sources(&[
        (
            "lib",
            "mod draw;\nmod palette;\npub fn f() { draw::render() }",
        ),
        (
            "draw",
            "use super::{palette::INK, lanes};\n// use super::nothing;\n",
        ),
        (
            "lanes",
            "fn f() -> &'static str { super::draw::X; \"super::text\" }",
        ),
        (
            "palette",
            "#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        ),
        ("text", ""),
    ]);
    let graph = graph_of(&files);
    assert_eq!(
        graph["draw"],
        BTreeSet::from(["lanes".to_owned(), "palette".to_owned()])
    );
    assert_eq!(graph["lanes"], BTreeSet::from(["draw".to_owned()]));
    assert!(graph["palette"].is_empty(), "{graph:?}");
    assert_eq!(cycles(&graph), vec!["draw.rs → lanes.rs → draw.rs"]);
}

#[test]
fn a_path_to_a_root_item_from_a_file_the_root_imports_is_a_circle() {
    let files = sources(&[
        (
            "lib",
            "mod draw;\npub struct Options;\npub fn f() { draw::render() }",
        ),
        ("draw", "use crate::Options;\n"),
    ]);
    assert_eq!(
        cycles(&graph_of(&files)),
        vec!["draw.rs → lib.rs → draw.rs"]
    );
}
