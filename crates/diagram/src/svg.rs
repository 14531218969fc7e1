//! A very small SVG writer: elements with escaped attributes, one per line,
//! indented, so the output is stable and diffs well in a snapshot.

use super::text::{escape_xml, num};

/// One element's start tag under construction.
pub(super) struct El {
    tag: &'static str,
    attrs: String,
}

impl El {
    /// A new element named `tag`.
    pub(super) fn new(tag: &'static str) -> El {
        El {
            tag,
            attrs: String::new(),
        }
    }

    /// Adds a text attribute (escaped).
    pub(super) fn attr(mut self, key: &str, value: &str) -> El {
        self.attrs.push(' ');
        self.attrs.push_str(key);
        self.attrs.push_str("=\"");
        self.attrs.push_str(&escape_xml(value));
        self.attrs.push('"');
        self
    }

    /// Adds a numeric attribute (a coordinate, a size).
    pub(super) fn num(self, key: &str, value: f64) -> El {
        self.attr(key, &num(value))
    }

    /// Adds `class`.
    pub(super) fn class(self, class: &str) -> El {
        self.attr("class", class)
    }
}

/// The document being written.
pub(super) struct Svg {
    out: String,
    depth: usize,
}

impl Svg {
    /// An empty document (the XML declaration only).
    pub(super) fn new() -> Svg {
        Svg {
            out: String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"),
            depth: 0,
        }
    }

    fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    /// Opens an element; close it with [`Svg::close`].
    pub(super) fn open(&mut self, el: El) {
        self.indent();
        self.out.push('<');
        self.out.push_str(el.tag);
        self.out.push_str(&el.attrs);
        self.out.push_str(">\n");
        self.depth += 1;
    }

    /// Closes the innermost open element.
    pub(super) fn close(&mut self, tag: &'static str) {
        self.depth = self.depth.saturating_sub(1);
        self.indent();
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push_str(">\n");
    }

    /// An empty element.
    pub(super) fn leaf(&mut self, el: El) {
        self.indent();
        self.out.push('<');
        self.out.push_str(el.tag);
        self.out.push_str(&el.attrs);
        self.out.push_str("/>\n");
    }

    /// An element holding only text (escaped), e.g. `<text>` or `<title>`.
    pub(super) fn text(&mut self, el: El, content: &str) {
        self.indent();
        self.out.push('<');
        self.out.push_str(el.tag);
        self.out.push_str(&el.attrs);
        self.out.push('>');
        self.out.push_str(&escape_xml(content));
        self.out.push_str("</");
        self.out.push_str(el.tag);
        self.out.push_str(">\n");
    }

    /// A `<title>` (the tooltip a browser shows on hover).
    pub(super) fn title(&mut self, content: &str) {
        self.text(El::new("title"), content);
    }

    /// A fragment to be placed inside an element opened elsewhere, at
    /// nesting depth `depth` (no XML declaration).
    pub(super) fn fragment(depth: usize) -> Svg {
        Svg {
            out: String::new(),
            depth,
        }
    }

    /// Appends a fragment written with [`Svg::fragment`].
    pub(super) fn append(&mut self, fragment: Svg) {
        self.out.push_str(&fragment.out);
    }

    /// The finished document.
    pub(super) fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_and_text_are_escaped() {
        let mut svg = Svg::new();
        svg.open(El::new("g").class("a\"b"));
        svg.text(El::new("text").num("x", 1.25), "k=<v> & 'w'");
        svg.close("g");
        let out = svg.finish();
        assert!(out.contains(r#"<g class="a&quot;b">"#), "{out}");
        assert!(
            out.contains("<text x=\"1.3\">k=&lt;v&gt; &amp; &apos;w&apos;</text>"),
            "{out}"
        );
    }
}
