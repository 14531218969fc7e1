//! A many-key history with one expensive key and one refuted key.

use super::kv::synthetic_history;
use crate::history::Operation;
use crate::kv::{KvInput, KvOutput};

/// The shape of a [`partitions_history`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionsShape {
    /// Keys, `"k0"` to `"k{keys - 1}"`; at least 2 for the history to have
    /// both an expensive and a refuted key.
    pub keys: usize,
    /// Clients all working on `"k0"` at once.
    pub hard_clients: usize,
    /// Operations on `"k0"`.
    pub hard_ops: usize,
    /// Clients working on the other keys.
    pub clients: usize,
    /// Operations on the other keys.
    pub ops: usize,
}

impl Default for PartitionsShape {
    /// 50 clients over 10 keys: 25 of them on `"k0"` (2,000 operations), 25
    /// on the other nine (8,000 operations).
    fn default() -> Self {
        PartitionsShape {
            keys: 10,
            hard_clients: 25,
            hard_ops: 2_000,
            clients: 25,
            ops: 8_000,
        }
    }
}

/// A deterministic key/value history that is **not** linearizable, in
/// which one partition is expensive to search and another is cheap to
/// refute.
///
/// `"k0"` gets `shape.hard_ops` operations by `shape.hard_clients`
/// clients at once — enough overlap (about 20 clients) to exhaust the
/// default step budget, though it is linearizable. The other keys share
/// `shape.ops` operations by `shape.clients` further clients, as
/// [`synthetic_history`] generates them (ids and clients follow those of
/// `"k0"`), and the last of them, `"k{keys - 1}"`, has one read, about a
/// third of the way in, answered a value no one wrote. A checker that
/// searches partitions one after another in key order spends its whole
/// budget on `"k0"` before it looks at the refuted key.
///
/// With fewer than two keys the history is just `"k0"`'s (linearizable).
///
/// ```
/// use lincheck::synthetic::{PartitionsShape, partitions_history};
///
/// let shape = PartitionsShape { hard_ops: 100, ops: 400, ..PartitionsShape::default() };
/// let history = partitions_history(1, shape);
/// assert_eq!(history.len(), 500);
/// assert!(history.iter().any(|op| op.input.key() == "k9"));
/// ```
pub fn partitions_history(seed: u64, shape: PartitionsShape) -> Vec<Operation<KvInput, KvOutput>> {
    let mut history = synthetic_history(seed, shape.hard_ops, shape.hard_clients, 1);
    if shape.keys < 2 {
        return history;
    }
    let first_id = history.len() as u64;
    let first_client = shape.hard_clients as u64;
    let easy = synthetic_history(seed ^ 0x9A27, shape.ops, shape.clients, shape.keys - 1);
    let refuted = format!("k{}", shape.keys - 1);
    let mut planted = false;
    for (n, mut op) in easy.into_iter().enumerate() {
        op.id += first_id;
        op.client += first_client;
        let is_get = matches!(op.input, KvInput::Get { .. });
        let key = match &mut op.input {
            KvInput::Put { key, .. } | KvInput::Get { key } => key,
        };
        // The generator names its keys k0..; shift them to k1.. .
        let index: usize = key[1..].parse().unwrap_or_default();
        *key = format!("k{}", index + 1);
        if !planted && n >= shape.ops / 3 && is_get && *key == refuted {
            op.output = Some(KvOutput::value("never-written"));
            planted = true;
        }
        history.push(op);
    }
    history
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_read_of_the_last_key_answers_a_value_never_written() {
        let shape = PartitionsShape {
            hard_ops: 200,
            ops: 900,
            ..PartitionsShape::default()
        };
        let history = partitions_history(4, shape);
        assert_eq!(history.len(), 1_100);
        let planted: Vec<_> = history
            .iter()
            .filter(|op| op.output == Some(KvOutput::value("never-written")))
            .collect();
        assert_eq!(planted.len(), 1);
        assert_eq!(planted[0].input, KvInput::get("k9"));
        let hard = history.iter().filter(|op| op.input.key() == "k0").count();
        assert_eq!(hard, 200);
        let mut ids: Vec<u64> = history.iter().map(|op| op.id).collect();
        ids.dedup();
        assert_eq!(ids, (0..1_100).collect::<Vec<_>>());
    }

    #[test]
    fn one_key_gives_the_expensive_key_alone() {
        let shape = PartitionsShape {
            keys: 1,
            hard_ops: 50,
            ..PartitionsShape::default()
        };
        let history = partitions_history(4, shape);
        assert_eq!(history.len(), 50);
        assert!(history.iter().all(|op| op.input.key() == "k0"));
    }
}
