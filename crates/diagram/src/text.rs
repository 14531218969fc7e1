//! Text for the picture: XML escaping, readable field values, and the width
//! a label takes in the monospace font the diagram uses.

use sim_core::{EventRef, Value};

/// Font size (px) of lane notes and message labels.
pub(super) const LABEL_FONT: f64 = 10.5;

/// Advance of one character of the generic monospace font, as a fraction of
/// the font size (DejaVu Sans Mono, Liberation Mono and Menlo are all 0.6).
const MONO_ADVANCE: f64 = 0.6;

/// Escapes text for XML character data and attribute values.
///
/// `&`, `<`, `>`, `"` and `'` become entities, a tab a space; other control
/// characters than the newline, which XML 1.0 forbids even as character
/// references, become U+FFFD.
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' => out.push(' '),
            '\n' => out.push('\n'),
            c if (c as u32) < 0x20 || c == '\u{7f}' || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.push('\u{fffd}')
            }
            c => out.push(c),
        }
    }
    out
}

/// A byte string as a reader would write it: plain text when every byte is
/// printable ASCII (`v`), otherwise the trace's escaped form (`b"\x00\xff"`).
pub(super) fn show_bytes(bytes: &[u8]) -> String {
    if bytes.iter().all(|b| (0x20..0x7f).contains(b)) {
        return bytes.iter().map(|&b| b as char).collect();
    }
    let mut out = String::from("b\"");
    for &b in bytes {
        out.extend(std::ascii::escape_default(b).map(char::from));
    }
    out.push('"');
    out
}

/// A field value as short readable text: byte strings through
/// [`show_bytes`], text and nodes without quotes, lists in brackets.
pub(super) fn show(value: &Value) -> String {
    match value {
        Value::Bytes(b) => show_bytes(b),
        Value::Str(s) => s.to_string(),
        Value::Node(n) => n.as_str().to_owned(),
        Value::List(items) => {
            let inner: Vec<String> = items.iter().map(show).collect();
            format!("[{}]", inner.join(", "))
        }
        other => other.to_string(),
    }
}

/// The value of field `key` when present and not [`Value::Absent`].
pub(super) fn field(event: &EventRef<'_>, key: &str) -> Option<Value> {
    event.field(key).filter(|v| !matches!(v, Value::Absent))
}

/// Field `key` as readable text, when present.
pub(super) fn field_text(event: &EventRef<'_>, key: &str) -> Option<String> {
    field(event, key).map(|v| show(&v))
}

/// Field `key` as a node name, when it holds a node.
pub(super) fn field_node(event: &EventRef<'_>, key: &str) -> Option<String> {
    match field(event, key)? {
        Value::Node(n) => Some(n.as_str().to_owned()),
        _ => None,
    }
}

/// Field `key` as an unsigned integer, when it holds one.
pub(super) fn field_uint(event: &EventRef<'_>, key: &str) -> Option<u64> {
    match field(event, key)? {
        Value::UInt(v) => Some(v),
        _ => None,
    }
}

/// `text` cut to at most `max` characters, ending in `…` when cut.
pub(super) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Width in px of `text` set in the monospace font at `font_size`.
pub(super) fn text_width(text: &str, font_size: f64) -> f64 {
    text.chars().count() as f64 * font_size * MONO_ADVANCE
}

/// A coordinate as SVG text: at most one decimal, no trailing `.0`, so the
/// output is short and byte-stable.
pub(super) fn num(v: f64) -> String {
    let tenths = (v * 10.0).round() as i64;
    if tenths % 10 == 0 {
        format!("{}", tenths / 10)
    } else {
        let sign = if tenths < 0 { "-" } else { "" };
        let abs = tenths.abs();
        format!("{sign}{}.{}", abs / 10, abs % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(
            escape_xml(r#"<script>&"x"'y'</script>"#),
            "&lt;script&gt;&amp;&quot;x&quot;&apos;y&apos;&lt;/script&gt;"
        );
    }

    #[test]
    fn control_characters_never_reach_the_xml() {
        assert_eq!(escape_xml("a\u{0}b\u{1b}c\td"), "a\u{fffd}b\u{fffd}c d");
    }

    #[test]
    fn printable_bytes_read_as_text_and_others_as_escapes() {
        assert_eq!(show_bytes(b"majority"), "majority");
        assert_eq!(show_bytes(b"a\x00\xff"), r#"b"a\x00\xff""#);
        assert_eq!(
            show(&Value::Bytes(bytes::Bytes::from_static(b"<v>"))),
            "<v>"
        );
    }

    #[test]
    fn long_labels_are_cut_with_an_ellipsis() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }

    #[test]
    fn coordinates_print_with_at_most_one_decimal() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.34), "12.3");
        assert_eq!(num(-0.25), "-0.3");
        assert_eq!(num(-3.0), "-3");
    }
}
