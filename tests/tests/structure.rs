//! Structure anyone can check: no file-level import circle inside any
//! crate, and no group or harness type with `impl` blocks in more than
//! three files.
//!
//! The import graph of a crate has one node per source file (its module)
//! and an edge `a → b` when `a` names something of module `b` through
//! `use crate::…`, `use super::…` (re-exports included) or a `crate::…`
//! path in code; `mod` declarations are not edges, and a name re-exported
//! by a module is resolved to the module that defines it. Test code at the
//! end of a file (after `#[cfg(test)]`) is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

/// Every crate source directory of the workspace.
fn crate_sources() -> Vec<PathBuf> {
    let root = workspace();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|e| e.expect("entry").path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    dirs.push(root.join("xtask/src"));
    dirs.sort();
    dirs
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/lib.rs` → [], `src/a/mod.rs` → [a],
/// `src/a/b.rs` → [a, b].
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("inside src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The code of a file without its trailing test module and comments.
fn code(text: &str) -> String {
    let body = text.split("#[cfg(test)]").next().unwrap_or("");
    body.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `use` statements (each begins a line), one string each (braces kept),
/// with whether it is a re-export (`pub use`).
fn use_statements(code: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let (reexport, rest) = if let Some(r) = t.strip_prefix("use ") {
            (false, r)
        } else if let Some(r) = ["pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .find_map(|p| t.strip_prefix(p))
        {
            (true, r)
        } else {
            continue;
        };
        let mut stmt = rest.to_owned();
        while !stmt.contains(';') {
            match lines.next() {
                Some(more) => {
                    stmt.push(' ');
                    stmt.push_str(more.trim());
                }
                None => break,
            }
        }
        let stmt = stmt.split(';').next().unwrap_or("").trim().to_owned();
        out.push((reexport, stmt));
    }
    out
}

/// Expands `a::{b, c::{d, e}}` into `a::b`, `a::c::d`, `a::c::e`.
fn expand(path: &str) -> Vec<String> {
    let path = path.split_whitespace().collect::<Vec<_>>().join(" ");
    let path = ["{", "}", ",", "::"].iter().fold(path, |p, tok| {
        p.replace(&format!(" {tok}"), tok)
            .replace(&format!("{tok} "), tok)
    });
    let Some(open) = path.find('{') else {
        return vec![path];
    };
    let prefix = &path[..open];
    let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|s| !s.is_empty())
        .flat_map(|item| expand(&format!("{prefix}{item}")))
        .collect()
}

struct Crate {
    modules: BTreeSet<Vec<String>>,
    files: Vec<(Vec<String>, String)>,
    /// `(module of the re-exporting file, name)` → module that defines it.
    reexports: BTreeMap<(Vec<String>, String), Vec<String>>,
}

impl Crate {
    fn load(src: &Path) -> Crate {
        let mut paths = Vec::new();
        rust_files(src, &mut paths);
        paths.sort();
        let mut files = Vec::new();
        let mut modules = BTreeSet::new();
        for p in &paths {
            let m = module_of(src, p);
            modules.insert(m.clone());
            files.push((m, code(&std::fs::read_to_string(p).expect("readable"))));
        }
        let mut c = Crate {
            modules,
            files,
            reexports: BTreeMap::new(),
        };
        for (m, text) in c.files.clone() {
            for (reexport, stmt) in use_statements(&text) {
                if !reexport {
                    continue;
                }
                for path in expand(&stmt) {
                    let segs: Vec<String> = path.split("::").map(str::to_owned).collect();
                    let Some(target) = c.resolve(&m, &segs) else {
                        continue;
                    };
                    let name = segs.last().cloned().unwrap_or_default();
                    let name = name.rsplit(" as ").next().unwrap_or(&name).to_owned();
                    c.reexports.insert((m.clone(), name), target);
                }
            }
        }
        c
    }

    /// The module file a path names, from file module `from`.
    fn resolve(&self, from: &[String], segs: &[String]) -> Option<Vec<String>> {
        let mut base: Vec<String> = match segs.first().map(String::as_str) {
            Some("crate") => Vec::new(),
            Some("super") => {
                let mut b = from.to_vec();
                b.pop();
                b
            }
            Some("self") => from.to_vec(),
            _ => {
                // A child module named without `self::` (in a mod.rs / lib.rs).
                let mut b = from.to_vec();
                b.push(segs.first()?.clone());
                if self.modules.contains(&b) {
                    return Some(b);
                }
                return None;
            }
        };
        let mut found = None;
        for seg in &segs[1..] {
            if seg == "super" {
                base.pop();
                continue;
            }
            let mut next = base.clone();
            next.push(seg.clone());
            if self.modules.contains(&next) {
                base = next;
                found = Some(base.clone());
            } else {
                if let Some(target) = self.reexports.get(&(base.clone(), seg.clone())) {
                    return Some(target.clone());
                }
                break;
            }
        }
        found.or(Some(base))
    }

    fn edges(&self) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (m, text) in &self.files {
            let mut paths: Vec<String> = Vec::new();
            for (_, stmt) in use_statements(text) {
                paths.extend(expand(&stmt));
            }
            // `crate::a::b` in code.
            let mut rest = text.as_str();
            while let Some(i) = rest.find("crate::") {
                let tail = &rest[i..];
                let end = tail
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(tail.len());
                paths.push(tail[..end].trim_end_matches(':').to_owned());
                rest = &tail[end..];
            }
            for path in paths {
                let segs: Vec<String> = path
                    .split("::")
                    .map(|s| s.split(" as ").next().unwrap_or(s).to_owned())
                    .collect();
                if let Some(target) = self.resolve(m, &segs)
                    && target != *m
                    && !m.starts_with(&target)
                {
                    edges.entry(m.clone()).or_default().insert(target);
                }
            }
        }
        edges
    }
}

fn cycle(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<Vec<String>>> {
    fn visit(
        n: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<Vec<String>>> {
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for next in edges.get(n).into_iter().flatten() {
            match state.get(next).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == next).unwrap_or(0);
                    let mut c = stack[at..].to_vec();
                    c.push(next.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(next, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if state.get(n).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(n, edges, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

fn show(m: &[String]) -> String {
    if m.is_empty() {
        "lib".to_owned()
    } else {
        m.join("/")
    }
}

#[test]
fn no_crate_has_a_file_level_import_circle() {
    let mut circles = Vec::new();
    for src in crate_sources() {
        let c = Crate::load(&src);
        if let Some(found) = cycle(&c.edges()) {
            let path: Vec<String> = found.iter().map(|m| show(m)).collect();
            circles.push(format!("{}: {}", src.display(), path.join(" → ")));
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_checker_finds_a_circle_it_is_shown() {
    let a = vec!["a".to_owned()];
    let b = vec!["b".to_owned()];
    let mut edges = BTreeMap::new();
    edges.insert(a.clone(), BTreeSet::from([b.clone()]));
    edges.insert(b.clone(), BTreeSet::from([a.clone()]));
    assert!(cycle(&edges).is_some());
    edges.get_mut(&b).expect("b").clear();
    assert!(cycle(&edges).is_none());
    assert_eq!(
        expand("crate::x::{Y, z::{W, V as U}}"),
        ["crate::x::Y", "crate::x::z::W", "crate::x::z::V as U"]
    );
}

#[test]
fn no_group_or_harness_type_has_impl_blocks_in_more_than_three_files() {
    let mut wide = Vec::new();
    for src in crate_sources() {
        let mut paths = Vec::new();
        rust_files(&src, &mut paths);
        let mut files_of: BTreeMap<String, BTreeSet<PathBuf>> = BTreeMap::new();
        for p in paths {
            let text = code(&std::fs::read_to_string(&p).expect("readable"));
            for line in text.lines() {
                let line = line.trim_start();
                let Some(rest) = line.strip_prefix("impl") else {
                    continue;
                };
                let head = rest.split('{').next().unwrap_or("");
                let ty = head.rsplit(" for ").next().unwrap_or(head).trim();
                let ty = ty.trim_start_matches(|c: char| c == '<' || c.is_whitespace());
                let ty = ty
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .find(|s| !s.is_empty())
                    .unwrap_or("");
                if ty.ends_with("Group") || ty == "Cluster" {
                    files_of.entry(ty.to_owned()).or_default().insert(p.clone());
                }
            }
        }
        for (ty, files) in files_of {
            if files.len() > 3 {
                let names: Vec<String> = files
                    .iter()
                    .map(|f| f.strip_prefix(&src).unwrap_or(f).display().to_string())
                    .collect();
                wide.push(format!("{ty} in {}: {}", src.display(), names.join(", ")));
            }
        }
    }
    assert!(
        wide.is_empty(),
        "impl blocks spread over more than 3 files:\n{}",
        wide.join("\n")
    );
}
