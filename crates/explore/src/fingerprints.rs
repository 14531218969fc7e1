//! Sets and maps keyed by a fingerprint.
//!
//! A fingerprint is a 64-bit hash already ([`replication::StateHasher`]),
//! so hashing it again with std's SipHash only costs time: the checker's
//! seen set takes a million of them a level, on the one thread that merges
//! the workers' answers. These use foldhash's fixed-seed state (a multiply
//! and a fold), as the fingerprints themselves do; the order of such a set
//! is never read, so nothing reaches an output through it.

use std::collections::{HashMap, HashSet};

/// The hasher state: foldhash, fixed seed.
pub(crate) type Fixed = foldhash::fast::FixedState;

/// A set of fingerprints.
pub(crate) type FingerprintSet = HashSet<u64, Fixed>;

/// A map from fingerprints.
pub(crate) type FingerprintMap<V> = HashMap<u64, V, Fixed>;
