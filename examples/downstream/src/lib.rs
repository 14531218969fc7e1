//! A downstream user of MiniDist's protocol crates: see `tests/`.
