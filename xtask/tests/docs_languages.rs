//! The guide in two languages stays one guide: every English page has a
//! Chinese twin (`docs/X.md` ↔ `docs/zh-CN/X.md`, `README.md` ↔
//! `README.zh-CN.md`) and the other way round, each page opens with the
//! language switch, the twins' console blocks are byte-identical (the
//! console test runs them once), and every relative link in either
//! language — `#fragment` included — resolves.
//!
//! The generated tables (`matrix.md`, `guarantees.md`, `planted.md`) are
//! data a command writes, not guide pages: both languages link to them.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// Pages a command generates; they have no twin.
const GENERATED: [&str; 3] = ["matrix.md", "guarantees.md", "planted.md"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `.md` file under `dir`, as paths relative to `dir`, sorted.
fn pages(dir: &Path) -> Vec<PathBuf> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a readable directory entry").path();
            if path.is_dir() {
                walk(base, &path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path.strip_prefix(base).expect("under base").to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The English guide pages (relative to `docs/`), generated tables and
/// the Chinese tree left out.
fn english_pages() -> Vec<PathBuf> {
    pages(&root().join("docs"))
        .into_iter()
        .filter(|p| !p.starts_with("zh-CN"))
        .filter(|p| !GENERATED.iter().any(|g| p == Path::new(g)))
        .collect()
}

/// `(English, Chinese)` absolute paths of every twin pair.
fn twins() -> Vec<(PathBuf, PathBuf)> {
    let root = root();
    let mut out = vec![(root.join("README.md"), root.join("README.zh-CN.md"))];
    for page in english_pages() {
        out.push((
            root.join("docs").join(&page),
            root.join("docs/zh-CN").join(&page),
        ));
    }
    out
}

/// `to` relative to the directory of `from`, with `/` separators.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<Component<'_>> = from.parent().expect("a file").components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// The console blocks of a page, each as its lines.
fn console_blocks(text: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    let mut other = false;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        if let Some(block) = current.as_mut() {
            if fence {
                blocks.push(current.take().expect("in a block"));
            } else {
                block.push(line.trim_end());
            }
        } else if other {
            other = !fence;
        } else if fence {
            if line.trim().trim_start_matches('`').trim() == "console" {
                current = Some(Vec::new());
            } else {
                other = true;
            }
        }
    }
    blocks
}

/// GitHub's anchor of a heading: lower case; letters (any script),
/// digits, spaces, `-` and `_` kept, everything else dropped; spaces → `-`.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut chars = heading.chars().peekable();
    // Inline code keeps its text; a link keeps its label.
    while let Some(c) = chars.next() {
        match c {
            '`' => {}
            '[' => {}
            ']' if chars.peek() == Some(&'(') => {
                for d in chars.by_ref() {
                    if d == ')' {
                        break;
                    }
                }
            }
            _ => text.push(c),
        }
    }
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// Every anchor a page offers: its headings' (numbered `-1`, `-2` when
/// repeated, as GitHub does) and explicit `<a id="…">`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(line[hashes..].trim().trim_end_matches('#').trim());
            let mut name = base.clone();
            let mut n = 0;
            while out.contains(&name) {
                n += 1;
                name = format!("{base}-{n}");
            }
            out.insert(name);
        }
        for part in line.split("<a id=\"").skip(1) {
            if let Some(id) = part.split('"').next() {
                out.insert(id.to_owned());
            }
        }
    }
    out
}

/// `(line number, target)` of every Markdown link and `src`/`href` outside
/// code.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    for (number, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Inline code spans are not links.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        for part in plain.split("](").skip(1) {
            if let Some(target) = part.split([')', ' ']).next() {
                out.push((number + 1, target.to_owned()));
            }
        }
        for attribute in ["src=\"", "href=\""] {
            for part in plain.split(attribute).skip(1) {
                if let Some(target) = part.split('"').next() {
                    out.push((number + 1, target.to_owned()));
                }
            }
        }
    }
    out
}

/// The broken relative links of the page at `path`.
fn broken_links(path: &Path) -> Vec<String> {
    let root = root();
    let text = read(path);
    let name = path
        .strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string();
    let mut broken = Vec::new();
    for (line, target) in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
            continue;
        }
        let (file, fragment) = target.split_once('#').unwrap_or((&target, ""));
        let dest = if file.is_empty() {
            path.to_path_buf()
        } else {
            path.parent().expect("a file").join(file)
        };
        if !dest.exists() {
            broken.push(format!("{name}:{line}: {target}: no such file"));
            continue;
        }
        if !fragment.is_empty()
            && dest.extension().is_some_and(|e| e == "md")
            && !anchors(&read(&dest)).contains(fragment)
        {
            broken.push(format!(
                "{name}:{line}: {target}: no heading with that anchor"
            ));
        }
    }
    broken
}

#[test]
fn every_english_page_has_a_chinese_twin_and_every_chinese_page_an_english_one() {
    let missing: Vec<String> = twins()
        .into_iter()
        .filter(|(_, zh)| !zh.exists())
        .map(|(en, zh)| format!("{} has no twin {}", en.display(), zh.display()))
        .collect();
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    let english: BTreeSet<PathBuf> = english_pages().into_iter().collect();
    let orphans: Vec<String> = pages(&root().join("docs/zh-CN"))
        .into_iter()
        .filter(|p| !english.contains(p))
        .map(|p| format!("docs/zh-CN/{} has no English page", p.display()))
        .collect();
    assert!(orphans.is_empty(), "{}", orphans.join("\n"));
}

#[test]
fn every_page_opens_with_the_language_switch() {
    let mut wrong = Vec::new();
    for (en, zh) in twins().into_iter().filter(|(_, zh)| zh.exists()) {
        let want_en = format!(
            "> **Language**: English | [简体中文]({})",
            relative(&en, &zh)
        );
        let want_zh = format!(
            "> **Language**: [English]({}) | 简体中文",
            relative(&zh, &en)
        );
        for (path, want) in [(&en, want_en), (&zh, want_zh)] {
            let text = read(path);
            if text.lines().next().map(str::trim_end) != Some(want.as_str()) {
                wrong.push(format!("{}:1: should be `{want}`", path.display()));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn twins_show_the_same_console_blocks() {
    let mut differ = Vec::new();
    for (en, zh) in twins().into_iter().filter(|(_, zh)| zh.exists()) {
        let (en_text, zh_text) = (read(&en), read(&zh));
        let (a, b) = (console_blocks(&en_text), console_blocks(&zh_text));
        if a != b {
            let first = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            differ.push(format!(
                "{} and {}: {} vs {} console blocks, first difference at block {}",
                en.display(),
                zh.display(),
                a.len(),
                b.len(),
                first + 1
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn every_relative_link_in_either_language_resolves() {
    let root = root();
    let mut files = vec![root.join("README.md"), root.join("README.zh-CN.md")];
    files.extend(
        pages(&root.join("docs"))
            .into_iter()
            .map(|p| root.join("docs").join(p)),
    );
    let broken: Vec<String> = files
        .iter()
        .filter(|f| f.exists())
        .flat_map(|f| broken_links(f))
        .collect();
    assert!(
        broken.is_empty(),
        "{} broken links:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn anchors_follow_githubs_rule_for_both_scripts() {
    assert_eq!(
        slug("Hands-on: shrink, rejoin and the high watermark"),
        "hands-on-shrink-rejoin-and-the-high-watermark"
    );
    assert_eq!(
        slug("新增参数：WAIT 与 min-replicas-to-write"),
        "新增参数wait-与-min-replicas-to-write"
    );
    assert_eq!(slug("The `elr` rung"), "the-elr-rung");
    let page = "# A\n\n## Same\n\n## Same\n\n```\n## not a heading\n```\n";
    let found = anchors(page);
    assert!(found.contains("same") && found.contains("same-1") && !found.contains("not-a-heading"));
}

#[test]
fn a_missing_twin_or_a_broken_link_is_reported() {
    let dir = std::env::temp_dir().join(format!("minidist-languages-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("a temporary directory");
    let page = dir.join("page.md");
    fs::write(
        &page,
        "# Title\n\n[ok](#title) [gone](#nothing) [file](missing.md)\n",
    )
    .expect("writes");
    let broken = broken_links(&page);
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].contains("#nothing") && broken[1].contains("missing.md"));
    fs::remove_dir_all(&dir).ok();
    assert_eq!(
        relative(
            Path::new("/r/docs/zh-CN/protocols/isr.md"),
            Path::new("/r/docs/protocols/isr.md")
        ),
        "../../protocols/isr.md"
    );
}
