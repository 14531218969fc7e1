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

use std::collections::BTreeMap;

use crate::protocol::Protocol;

/// What each protocol is expected to print for one directive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expected {
    per_protocol: BTreeMap<Protocol, Vec<String>>,
}

/// `p1,p2: rest` → the protocols and the rest, if the line has that shape.
fn prefix(line: &str) -> Option<(Vec<Protocol>, &str)> {
    let (head, rest) = line
        .split_once(": ")
        .or_else(|| line.strip_suffix(':').map(|head| (head, "")))?;
    let protocols: Option<Vec<Protocol>> = head.split(',').map(Protocol::from_name).collect();
    protocols.map(|p| (p, rest))
}

impl Expected {
    /// Parses a block; on error, the 0-based line within the block and why.
    pub fn parse(block: &[String]) -> Result<Expected, (usize, String)> {
        let mut per_protocol: BTreeMap<Protocol, Vec<String>> = BTreeMap::new();
        let prefixed = block.first().is_some_and(|l| prefix(l).is_some());
        if !prefixed {
            if !block.is_empty() {
                for p in Protocol::ALL {
                    per_protocol.insert(p, block.to_vec());
                }
            }
            return Ok(Expected { per_protocol });
        }
        for (i, line) in block.iter().enumerate() {
            let (protocols, rest) = prefix(line).ok_or_else(|| {
                (
                    i,
                    format!(
                        "`{line}`: in a per-protocol block every line starts with `async:`, `wal,isr:`, …"
                    ),
                )
            })?;
            for p in protocols {
                per_protocol.entry(p).or_default().push(rest.to_owned());
            }
        }
        Ok(Expected { per_protocol })
    }

    /// Builds the expectation from outputs.
    pub fn from_outputs(per_protocol: BTreeMap<Protocol, Vec<String>>) -> Expected {
        Expected { per_protocol }
    }

    /// True when no protocol has an expected output.
    pub fn is_empty(&self) -> bool {
        self.per_protocol.is_empty()
    }

    /// `protocol`'s expected lines, if the block has any.
    pub fn get(&self, protocol: Protocol) -> Option<&[String]> {
        self.per_protocol.get(&protocol).map(Vec::as_slice)
    }

    /// Replaces `protocol`'s expected lines.
    pub fn set(&mut self, protocol: Protocol, lines: Vec<String>) {
        self.per_protocol.insert(protocol, lines);
    }

    /// The canonical block text, one string per line.
    pub fn render(&self) -> Vec<String> {
        let outputs: Vec<(Protocol, &Vec<String>)> =
            self.per_protocol.iter().map(|(p, l)| (*p, l)).collect();
        let all_agree =
            outputs.len() == Protocol::ALL.len() && outputs.windows(2).all(|w| w[0].1 == w[1].1);
        if all_agree {
            return outputs
                .first()
                .map(|(_, l)| (*l).clone())
                .unwrap_or_default();
        }
        let mut groups: Vec<(Vec<Protocol>, &Vec<String>)> = Vec::new();
        for (p, lines) in outputs {
            match groups.iter_mut().find(|(_, l)| *l == lines) {
                Some((ps, _)) => ps.push(p),
                None => groups.push((vec![p], lines)),
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

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn a_block_without_prefixes_is_every_protocols_output() {
        let e = Expected::parse(&lines("ok")).expect("parses");
        assert_eq!(e.get(Protocol::Raft), Some(&["ok".to_owned()][..]));
        assert_eq!(e.render(), lines("ok"));
    }

    #[test]
    fn protocols_with_the_same_output_share_a_prefix_when_rendered() {
        let block = lines("async: a\nwal,isr: b\nwal,isr: c\nraft: a");
        let e = Expected::parse(&block).expect("parses");
        assert_eq!(e.get(Protocol::Wal), Some(&lines("b\nc")[..]));
        assert_eq!(e.render(), lines("async,raft: a\nwal,isr: b\nwal,isr: c"));
    }

    #[test]
    fn a_per_protocol_block_with_an_unprefixed_line_is_an_error() {
        let err = Expected::parse(&lines("async: a\nb")).expect_err("mixed");
        assert_eq!(err.0, 1);
    }
}
