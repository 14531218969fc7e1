//! A scenario written inline, run on two protocols of a registry, printed
//! the way `cargo xtask run FILE` prints it.
//!
//! Run: `cargo run -p sim-scenario --example run_inline`

use scenario::{Protocol, Registry};

const TEXT: &str = "\
# A strong write, then the leader is cut off and fails over.
write key=k value=v level=strong

isolate node=leader

failover

read key=k level=authority
";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::new(vec![
        Protocol::new(&proto_isr::IsrRegistration),
        Protocol::new(&proto_raft::RaftRegistration),
    ]);
    let parsed = scenario::parse("inline.txt", TEXT, &registry)?;
    let outputs = scenario::run_protocols(&parsed, registry.protocols(), &registry);
    print!("{}", scenario::render(&parsed, &outputs, false, &registry));
    Ok(())
}
