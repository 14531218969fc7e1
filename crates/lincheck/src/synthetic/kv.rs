//! Closed-loop clients against one register per key.

use crate::bitset::splitmix64;
use crate::history::Operation;
use crate::kv::{KvInput, KvOutput};

/// A deterministic, linearizable key/value history of `ops` operations by
/// `clients` clients over `keys` keys (`"k0"`, `"k1"`, …).
///
/// About half the operations are puts; a put writes a value unique in the
/// history (`"v<id>"`), which makes any corrupted read detectable. Ids run
/// from 0 in call order; each operation lasts 1–8 ticks and a client thinks
/// 0–3 ticks between operations. Every operation returns. With no clients
/// or no keys the history is empty.
///
/// ```
/// use lincheck::{check, synthetic::synthetic_history, CheckOptions, KvModel};
///
/// let history = synthetic_history(7, 500, 4, 3);
/// assert_eq!(history.len(), 500);
/// assert_eq!(history, synthetic_history(7, 500, 4, 3));
/// assert!(check(&KvModel, &history, &CheckOptions::default())?.is_linearizable());
/// # Ok::<(), lincheck::HistoryError>(())
/// ```
pub fn synthetic_history(
    seed: u64,
    ops: usize,
    clients: usize,
    keys: usize,
) -> Vec<Operation<KvInput, KvOutput>> {
    if clients == 0 || keys == 0 {
        return Vec::new();
    }
    let mut rng = seed;
    let mut below = |n: u64| splitmix64(&mut rng) % n;

    // Each client's next call tick; start them slightly apart.
    let mut free_at: Vec<u64> = (0..clients).map(|_| below(4)).collect();
    // (operation, key index, effect tick)
    // Capped so an absurd `ops` fails by running out of memory while
    // generating, not by a capacity overflow up front.
    let mut planned = Vec::with_capacity(ops.min(1 << 20));
    for id in 0..ops as u64 {
        let client = (0..clients)
            .min_by_key(|&c| (free_at[c], c))
            .unwrap_or_default();
        let call = free_at[client];
        let duration = 1 + below(8);
        let ret = call + duration;
        let effect = call + below(duration + 1);
        free_at[client] = ret + below(4);

        let key_index = below(keys as u64) as usize;
        let key = format!("k{key_index}");
        let input = if below(2) == 0 {
            KvInput::Put {
                key,
                value: format!("v{id}"),
            }
        } else {
            KvInput::Get { key }
        };
        let op = Operation {
            id,
            client: client as u64,
            call,
            ret: Some(ret),
            input,
            output: None,
        };
        planned.push((op, key_index, effect));
    }

    // Apply every operation at its effect tick against real registers.
    let mut order: Vec<usize> = (0..planned.len()).collect();
    order.sort_by_key(|&i| (planned[i].2, planned[i].0.id));
    let mut registers: Vec<Option<String>> = vec![None; keys];
    for i in order {
        let (op, key_index, _) = &mut planned[i];
        let register = &mut registers[*key_index];
        op.output = Some(match &op.input {
            KvInput::Put { value, .. } => {
                *register = Some(value.clone());
                KvOutput::Ok
            }
            KvInput::Get { .. } => KvOutput::Value(register.clone()),
        });
    }
    planned.into_iter().map(|(op, _, _)| op).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_history_and_another_seed_another() {
        assert_eq!(
            synthetic_history(1, 200, 3, 2),
            synthetic_history(1, 200, 3, 2)
        );
        assert_ne!(
            synthetic_history(1, 200, 3, 2),
            synthetic_history(2, 200, 3, 2)
        );
    }

    #[test]
    fn clients_overlap_but_each_client_is_sequential() {
        let history = synthetic_history(3, 1_000, 5, 4);
        let overlapping = history
            .windows(2)
            .filter(|w| w[0].client != w[1].client && w[1].call < w[0].ret.unwrap_or(0));
        assert!(overlapping.count() > 100, "clients should run concurrently");
        for client in 0..5 {
            let mine: Vec<_> = history.iter().filter(|op| op.client == client).collect();
            for w in mine.windows(2) {
                assert!(w[1].call >= w[0].ret.unwrap_or(u64::MAX));
            }
        }
    }

    #[test]
    fn degenerate_shapes_give_empty_histories_not_panics() {
        assert!(synthetic_history(1, 10, 0, 3).is_empty());
        assert!(synthetic_history(1, 10, 3, 0).is_empty());
        assert!(synthetic_history(1, 0, 3, 3).is_empty());
    }
}
