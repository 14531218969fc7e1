//! `cargo xtask`: MiniDist's command line ([`xtask::main`]).

use std::process::ExitCode;

/// The binary's allocator (docs/using-a-crate.md, Dependencies): the explorer and the bench
/// workers allocate per step, and mimalloc's thread-local free lists are
/// measurably cheaper there. Library crates leave the choice to their users.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    xtask::main()
}
