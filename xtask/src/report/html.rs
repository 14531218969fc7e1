//! The markup every page shares: escaping, the page frame, the stylesheet.
//!
//! Pages are HTML5 written as well-formed XML (every element closed, every
//! attribute quoted, only the five XML entities), so a test can parse each
//! one with an XML parser; the diagrams are inlined SVG.

use std::fmt::Write as _;

/// `text` with `& < > " '` escaped, for element text and attribute values
/// (the diagrams' own XML escaping, so the pages and the SVG agree).
pub fn escape(text: &str) -> String {
    diagram::escape_xml(text)
}

/// A tiny subset of Markdown as markup: `**bold**` and `` `code` ``, the
/// rest escaped (for the committed texts the report quotes).
pub fn inline_markdown(text: &str) -> String {
    let mut out = String::new();
    let mut bold = false;
    for (i, piece) in text.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(piece));
            continue;
        }
        for (j, part) in piece.split("**").enumerate() {
            if j > 0 {
                out.push_str(if bold { "</strong>" } else { "<strong>" });
                bold = !bold;
            }
            out.push_str(&escape(part));
        }
    }
    if bold {
        out.push_str("</strong>");
    }
    out
}

/// Markdown made of `## ` headings, `- ` list items and paragraphs (lines
/// wrapped inside each), as markup; headings become `<h3>`.
pub fn block_markdown(text: &str) -> String {
    let mut blocks: Vec<(char, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blocks.push((' ', String::new()));
        } else if let Some(h) = line.strip_prefix("## ") {
            blocks.push(('h', h.to_owned()));
        } else if let Some(item) = line.strip_prefix("- ") {
            blocks.push(('l', item.to_owned()));
        } else if let Some((_, last)) = blocks.last_mut().filter(|(k, _)| *k != 'h') {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(line.trim_start());
        } else {
            blocks.push(('p', line.to_owned()));
        }
    }
    let mut out = String::new();
    let mut in_list = false;
    for (kind, text) in blocks.iter().filter(|(_, t)| !t.is_empty()) {
        if *kind != 'l' && in_list {
            out.push_str("</ul>\n");
            in_list = false;
        }
        match kind {
            'h' => {
                let _ = writeln!(out, "<h3>{}</h3>", inline_markdown(text));
            }
            'l' => {
                if !in_list {
                    out.push_str("<ul>\n");
                    in_list = true;
                }
                let _ = writeln!(out, "<li>{}</li>", inline_markdown(text));
            }
            _ => {
                let _ = writeln!(out, "<p>{}</p>", inline_markdown(text));
            }
        }
    }
    if in_list {
        out.push_str("</ul>\n");
    }
    out
}

/// An SVG document made fit to sit inside a page: without its XML
/// declaration.
pub fn inline_svg(svg: &str) -> String {
    let svg = svg.trim_start();
    let svg = match svg.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(rest, |(_, body)| body),
        None => svg,
    };
    svg.trim().to_owned()
}

/// A whole page: `root` is the relative path from the page to the site's
/// top (`""` or `"../"`), `crumbs` the trail shown above the title.
pub fn page(title: &str, root: &str, crumbs: &[(&str, String)], body: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "<!DOCTYPE html>");
    let _ = writeln!(out, "<html lang=\"en\">");
    let _ = writeln!(out, "<head>");
    let _ = writeln!(out, "<meta charset=\"utf-8\"/>");
    let _ = writeln!(
        out,
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>"
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(out, "<link rel=\"stylesheet\" href=\"{root}style.css\"/>");
    let _ = writeln!(out, "</head>");
    let _ = writeln!(out, "<body>");
    let _ = write!(
        out,
        "<nav class=\"crumbs\"><a href=\"{root}index.html\">MiniDist report</a>"
    );
    for (label, href) in crumbs {
        let _ = write!(out, " › <a href=\"{}\">{}</a>", escape(href), escape(label));
    }
    let _ = writeln!(out, "</nav>");
    let _ = writeln!(out, "<main>");
    let _ = writeln!(out, "<h1>{}</h1>", escape(title));
    out.push_str(body);
    let _ = writeln!(out, "</main>");
    let _ = writeln!(out, "</body>");
    let _ = writeln!(out, "</html>");
    out
}

/// The one stylesheet (`style.css`).
pub const STYLE: &str = r#"body {
  margin: 0;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 15px;
  line-height: 1.45;
  color: #1a202c;
  background: #f7fafc;
}
main { max-width: 1320px; margin: 0 auto; padding: 8px 24px 48px; }
nav.crumbs { background: #2d3748; color: #e2e8f0; padding: 8px 24px; font-size: 14px; }
nav.crumbs a { color: #fbd38d; }
h1 { font-size: 26px; margin: 18px 0 6px; }
h2 { font-size: 20px; margin: 30px 0 8px; border-bottom: 2px solid #cbd5e0; padding-bottom: 3px; }
h3 { font-size: 16px; margin: 18px 0 6px; }
a { color: #2b6cb0; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; }
code { background: #edf2f7; padding: 0 3px; border-radius: 3px; }
code.replay-id { overflow-wrap: anywhere; word-break: break-all; font-size: 12px; }
table.guarantees td { max-width: 210px; vertical-align: top; }
pre { background: #fff; border: 1px solid #cbd5e0; border-radius: 4px; padding: 10px; overflow-x: auto; }
p.lead { color: #4a5568; max-width: 900px; }
.toc a { margin-right: 14px; }
table { border-collapse: collapse; background: #fff; margin: 6px 0 12px; }
th, td { border: 1px solid #cbd5e0; padding: 5px 8px; vertical-align: top; text-align: left; }
th { background: #edf2f7; font-weight: 600; }
table.matrix td { max-width: 300px; font-size: 13.5px; }
table.matrix td a { display: block; text-decoration: underline dotted #a0aec0; color: #1a202c; padding: 2px 4px; border-radius: 3px; }
table.matrix td a:hover { background: #ebf8ff; }
table.matrix td a .variant { font-weight: 700; color: #2b6cb0; }
table.matrix td a + a { border-top: 1px dashed #cbd5e0; margin-top: 3px; padding-top: 4px; }
table.matrix td a.survived { background: #f0fff4; }
table.matrix td a.lost { background: #fff5f5; color: #c53030; }
.matrix-key .survived { background: #f0fff4; padding: 0 4px; }
.matrix-key .lost { background: #fff5f5; color: #c53030; padding: 0 4px; }
td.holds { background: #f0fff4; white-space: nowrap; }
td.violated { background: #fff5f5; }
td.unknown { background: #fffff0; }
td.violated a { color: #c53030; font-weight: 600; }
.outcome-fresh { color: #276749; font-weight: 600; }
.outcome-stale { color: #c05621; font-weight: 600; }
.outcome-blocked { color: #2b6cb0; font-weight: 600; }
.outcome-unsupported { color: #718096; font-weight: 600; }
.cell-text { font-size: 17px; background: #fff; border-left: 4px solid #4299e1; padding: 8px 12px; }
table.observed td:first-child { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
dl.legend { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; background: #fff; border: 1px solid #cbd5e0; padding: 10px 14px; }
dl.legend dt { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; font-weight: 700; }
dl.legend dd { margin: 0; }
.diagram { overflow: auto; max-height: 900px; background: #fff; border: 1px solid #cbd5e0; border-radius: 4px; }
.diagram svg { display: block; }
.pager a { margin-right: 16px; }
div.facts { display: flex; flex-wrap: wrap; gap: 0 32px; align-items: flex-start; }
div.facts > section:last-child { flex: 1 1 560px; }
form.filter { background: #fff; border: 1px solid #cbd5e0; padding: 6px 10px; margin-bottom: 6px; }
form.filter label { margin-right: 14px; }
div.state-panel { background: #fff; border: 1px solid #cbd5e0; border-radius: 4px; padding: 6px 12px; margin-top: 10px; position: sticky; bottom: 0; max-height: 38vh; overflow: auto; box-shadow: 0 -2px 6px rgba(0, 0, 0, 0.08); }
div.state-panel[data-collapsed="true"] .state-body { display: none; }
div.state-panel .state-controls { margin: 0; }
div.state-panel button.state-toggle { margin-left: 12px; }
.diagram.whole { max-height: none; }
div.state-panel input[type=range] { width: 420px; vertical-align: middle; }
p.state-ticks button { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; margin: 1px; padding: 1px 6px; border: 1px solid #cbd5e0; border-radius: 3px; background: #f7fafc; cursor: pointer; }
p.state-ticks button.nemesis { border-color: #dd6b20; background: #fffaf0; }
p.state-ticks button.selected { background: #2c7a7b; border-color: #2c7a7b; color: #fff; }
p.state-caption { font-weight: 600; margin: 6px 0 2px; }
table.state { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
table.state td.changed { background: #e6fffa; color: #234e52; font-weight: 700; }
table.trace { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
table.trace td { padding: 2px 6px; border-color: #e2e8f0; }
table.trace td.kind { white-space: nowrap; color: #2c5282; }
table.trace tr.msg td.kind { color: #2f855a; }
table.trace tr.rejected td.kind { color: #c53030; font-weight: 700; }
table.trace tr.client td.kind { color: #6b46c1; }
ol.schedule { list-style: none; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; background: #fff; border: 1px solid #cbd5e0; padding: 8px 12px; }
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_turns_markup_characters_into_entities() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;"
        );
    }

    #[test]
    fn inline_markdown_knows_bold_and_code_and_escapes_the_rest() {
        assert_eq!(
            inline_markdown("**durable**: `a<b` & c"),
            "<strong>durable</strong>: <code>a&lt;b</code> &amp; c"
        );
    }

    #[test]
    fn block_markdown_joins_wrapped_lines_into_paragraphs_and_items() {
        let html = block_markdown("## Title\n\none\ntwo\n\n- a\n  b\n- c\n");
        assert_eq!(
            html,
            "<h3>Title</h3>\n<p>one two</p>\n<ul>\n<li>a b</li>\n<li>c</li>\n</ul>\n"
        );
    }

    #[test]
    fn inline_svg_drops_the_xml_declaration() {
        assert_eq!(inline_svg("<?xml version=\"1.0\"?>\n<svg/>\n"), "<svg/>");
    }
}
