//! Expected output blocks: one block for every protocol, or lines prefixed
//! by the protocols they belong to.
//!
//! ```text
//! write key=k value=v level=weak
//! ----
//! async,wal,isr: acked offset=1 (LEADER)
//! raft: acked offset=2 (QUORUM)
//! ```
//!
//! A block without prefixes is what every protocol prints. With prefixes,
//! every line of the block has one: `p1,p2: text` is a line of the output
//! of both `p1` and `p2`, and a protocol's output is its lines in order.
//! [`render`] writes the canonical form `--rewrite` produces: unprefixed
//! when all four protocols agree, otherwise one group of lines per distinct
//! output, protocols with identical output sharing a prefix, groups in
//! matrix column order.

use replication::{Protocol, Registry};

/// What each protocol is expected to print for one directive, kept in the
/// registry's column order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expected {
    columns: Vec<Protocol>,
    per_protocol: Vec<(Protocol, Vec<String>)>,
}

/// `p1,p2: rest` → the protocols and the rest, if the line has that shape:
/// every name before `: ` a registered protocol.
fn prefix<'a>(line: &'a str, registry: &Registry) -> Option<(Vec<Protocol>, &'a str)> {
    let (head, rest) = line
        .split_once(": ")
        .or_else(|| line.strip_suffix(':').map(|head| (head, "")))?;
    let protocols: Option<Vec<Protocol>> = head.split(',').map(|n| registry.named(n)).collect();
    protocols.map(|p| (p, rest))
}

/// `p1,p2: rest` where the names look like protocol names but some are not
/// registered: the first unknown one. `error:` (the interpreter's own
/// lines) and node ids (`probe` lines) are never taken for protocols.
fn unknown_prefix<'a>(line: &'a str, registry: &Registry) -> Option<&'a str> {
    let (head, _) = line
        .split_once(": ")
        .or_else(|| line.strip_suffix(':').map(|head| (head, "")))?;
    let names: Vec<&str> = head.split(',').collect();
    let plausible = names.iter().all(|n| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
    });
    let own_words = |n: &str| {
        n == "error"
            || registry
                .protocols()
                .iter()
                .any(|p| p.registration().default_nodes().iter().any(|id| id == n))
    };
    if !plausible || names.iter().any(|n| own_words(n)) {
        return None;
    }
    names.into_iter().find(|n| registry.named(n).is_none())
}

impl Expected {
    /// An empty expectation for the protocols of `registry`.
    pub fn new(registry: &Registry) -> Expected {
        Expected {
            columns: registry.protocols().to_vec(),
            per_protocol: Vec::new(),
        }
    }

    /// Parses a block; on error, the 0-based line within the block and why.
    pub fn parse(block: &[String], registry: &Registry) -> Result<Expected, (usize, String)> {
        let mut expected = Expected::new(registry);
        let prefixed = block.first().is_some_and(|l| prefix(l, registry).is_some());
        if !prefixed {
            if let Some(first) = block.first()
                && let Some(name) = unknown_prefix(first, registry)
            {
                return Err((
                    0,
                    format!(
                        "`{name}:` is not a protocol (known: {}); a line of a per-protocol block starts with `async:`, `wal,isr:`, …",
                        registry.names().join(", ")
                    ),
                ));
            }
            if !block.is_empty() {
                for p in registry.protocols() {
                    expected.set(*p, block.to_vec());
                }
            }
            return Ok(expected);
        }
        for (i, line) in block.iter().enumerate() {
            let (protocols, rest) = prefix(line, registry).ok_or_else(|| {
                let why = match unknown_prefix(line, registry) {
                    Some(name) => format!(
                        "`{name}:` is not a protocol (known: {})",
                        registry.names().join(", ")
                    ),
                    None => format!(
                        "`{line}`: in a per-protocol block every line starts with `async:`, `wal,isr:`, …"
                    ),
                };
                (i, why)
            })?;
            for p in protocols {
                expected.push(p, rest.to_owned());
            }
        }
        Ok(expected)
    }

    fn position(&self, protocol: Protocol) -> usize {
        self.columns
            .iter()
            .position(|p| *p == protocol)
            .unwrap_or(self.columns.len())
    }

    fn push(&mut self, protocol: Protocol, line: String) {
        match self.per_protocol.iter_mut().find(|(p, _)| *p == protocol) {
            Some((_, lines)) => lines.push(line),
            None => self.set(protocol, vec![line]),
        }
    }

    /// True when no protocol has an expected output.
    pub fn is_empty(&self) -> bool {
        self.per_protocol.is_empty()
    }

    /// `protocol`'s expected lines, if the block has any.
    pub fn get(&self, protocol: Protocol) -> Option<&[String]> {
        self.per_protocol
            .iter()
            .find(|(p, _)| *p == protocol)
            .map(|(_, l)| l.as_slice())
    }

    /// Replaces `protocol`'s expected lines.
    pub fn set(&mut self, protocol: Protocol, lines: Vec<String>) {
        if let Some(slot) = self.per_protocol.iter_mut().find(|(p, _)| *p == protocol) {
            slot.1 = lines;
            return;
        }
        let at = self.position(protocol);
        let index = self
            .per_protocol
            .iter()
            .position(|(p, _)| self.position(*p) > at)
            .unwrap_or(self.per_protocol.len());
        self.per_protocol.insert(index, (protocol, lines));
    }

    /// The canonical block text, one string per line: unprefixed when every
    /// registered protocol prints the same, otherwise grouped by output.
    pub fn render(&self) -> Vec<String> {
        let outputs = &self.per_protocol;
        let all_agree =
            outputs.len() == self.columns.len() && outputs.windows(2).all(|w| w[0].1 == w[1].1);
        if all_agree {
            return outputs.first().map(|(_, l)| l.clone()).unwrap_or_default();
        }
        let mut groups: Vec<(Vec<Protocol>, &Vec<String>)> = Vec::new();
        for (p, lines) in outputs {
            match groups.iter_mut().find(|(_, l)| *l == lines) {
                Some((ps, _)) => ps.push(*p),
                None => groups.push((vec![*p], lines)),
            }
        }
        let mut out = Vec::new();
        for (protocols, lines) in groups {
            let names: Vec<&str> = protocols.iter().map(|p| p.name()).collect();
            let head = names.join(",");
            for line in lines {
                if line.is_empty() {
                    out.push(format!("{head}:"));
                } else {
                    out.push(format!("{head}: {line}"));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_registry;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    fn p(name: &str) -> Protocol {
        test_registry().named(name).expect("registered")
    }

    #[test]
    fn a_block_without_prefixes_is_every_protocols_output() {
        let e = Expected::parse(&lines("ok"), &test_registry()).expect("parses");
        assert_eq!(e.get(p("raft")), Some(&["ok".to_owned()][..]));
        assert_eq!(e.render(), lines("ok"));
    }

    #[test]
    fn protocols_with_the_same_output_share_a_prefix_when_rendered() {
        let block = lines("async: a\nwal,isr: b\nwal,isr: c\nraft: a");
        let e = Expected::parse(&block, &test_registry()).expect("parses");
        assert_eq!(e.get(p("wal")), Some(&lines("b\nc")[..]));
        assert_eq!(e.render(), lines("async,raft: a\nwal,isr: b\nwal,isr: c"));
    }

    #[test]
    fn a_per_protocol_block_with_an_unprefixed_line_is_an_error() {
        let err = Expected::parse(&lines("async: a\nb"), &test_registry()).expect_err("mixed");
        assert_eq!(err.0, 1);
    }
}
