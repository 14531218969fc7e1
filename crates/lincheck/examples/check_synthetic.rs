//! Generates a 10,000-operation history (5 clients, 10 keys), checks it,
//! and prints how long the check took.
//!
//! Run: `cargo run --release -p sim-lincheck --example check_synthetic`
//! (optionally `-- OPS CLIENTS KEYS SEED`).

use std::time::Instant;

use lincheck::{CheckOptions, KvModel, check, synthetic::synthetic_history};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse::<u64>())
        .collect::<Result<_, _>>()?;
    let arg = |i: usize, default: u64| args.get(i).copied().unwrap_or(default);
    let (ops, clients, keys, seed) = (arg(0, 10_000), arg(1, 5), arg(2, 10), arg(3, 42));
    let history = synthetic_history(
        seed,
        usize::try_from(ops)?,
        usize::try_from(clients)?,
        usize::try_from(keys)?,
    );

    let started = Instant::now();
    let result = check(&KvModel, &history, &CheckOptions::default())?;
    let elapsed = started.elapsed();

    println!(
        "{} operations, {clients} clients, {keys} keys, seed {seed}: {result}",
        history.len()
    );
    println!("checked in {:.2} ms", elapsed.as_secs_f64() * 1e3);
    Ok(())
}
