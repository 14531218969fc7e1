//! Two nodes bounce a counter over a lossy, jittery network; a partition
//! appears half way. Prints the trace.
//!
//! Run: `cargo run -p sim-core --example ping_pong`

use sim_core::{NetConfig, NodeId, Payload, Rng, SimError, SimNet, Trace, record};

#[derive(Debug)]
struct Ball(u64);

impl Payload for Ball {
    fn label(&self) -> &'static str {
        "ball"
    }
}

fn main() -> Result<(), SimError> {
    let (a, b) = (NodeId::new("a"), NodeId::new("b"));
    let config = NetConfig::default()
        .with_delay_range(1, 3)
        .with_drop_rate(0.1)
        .with_reorder(0.2, 2);
    let mut net = SimNet::new(config)?;
    let mut rng = Rng::new(42);
    let mut trace = Trace::new();

    for n in 0..4 {
        net.send(&a, &b, Ball(n), &mut rng, &mut trace);
    }
    for tick in 1..=12 {
        net.advance();
        if tick == 6 {
            net.partition(&b, &a);
            record!(trace, net.now(), "partition", src = &b, dst = &a);
        }
        while let Some(env) = net.next_delivery(&mut trace) {
            record!(
                trace,
                net.now(),
                "ball_caught",
                node = &env.dst,
                n = env.msg.0
            );
            if env.msg.0 < 8 {
                net.send(
                    &env.dst,
                    &env.src,
                    Ball(env.msg.0 + 4),
                    &mut rng,
                    &mut trace,
                );
            }
        }
    }
    print!("{}", trace.to_text());
    Ok(())
}
