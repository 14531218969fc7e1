//! MiniDist command line (matrix, trace, bench).
fn main() {}
