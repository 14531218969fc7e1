//! The laboratory's command line with chain registered beside the
//! built-in four: `matrix`, `run`, `explore` (and `--replay` of chain's
//! counterexamples), `check`, `debug`, `report` — every command a chain
//! counterexample prints runs here.
//!
//! `cargo run --release --manifest-path examples/chain/Cargo.toml -- explore --protocol chain`

use std::process::ExitCode;

use labs::Protocol;
use proto_chain::ChainRegistration;

fn main() -> ExitCode {
    let registry = labs::registry().with(Protocol::new(&ChainRegistration));
    if labs::serve(registry, proto_chain::COMMAND).is_err() {
        eprintln!("a registry is served already");
        return ExitCode::from(2);
    }
    xtask::main()
}
