//! Node identities.

use std::fmt;
use std::sync::Arc;

/// The name of a simulated node, e.g. `node-1`.
///
/// Cheap to clone (one shared allocation), totally ordered by name, and
/// displayed as the bare name. The ordering is what every `BTreeMap` keyed by
/// node relies on, so iteration order never depends on hashing.
#[derive(Clone)]
pub struct NodeId(Arc<str>);

// Ids are cloned from one configured name, so comparing two handles to the
// same allocation is the common case: answer it without reading the text.
impl PartialEq for NodeId {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Eq for NodeId {}

// Hashes the name, consistent with equality by name.
impl std::hash::Hash for NodeId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialOrd for NodeId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for NodeId {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if Arc::ptr_eq(&self.0, &other.0) {
            std::cmp::Ordering::Equal
        } else {
            self.0.cmp(&other.0)
        }
    }
}

impl NodeId {
    /// Builds a node id from any string-like name.
    pub fn new(name: impl AsRef<str>) -> Self {
        NodeId(Arc::from(name.as_ref()))
    }

    /// The node's name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when `other` is a clone of this very id (the same shared
    /// name), a test that reads no text; two ids built separately from one
    /// name are equal but not the same.
    #[inline]
    pub fn same(&self, other: &NodeId) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &*self.0)
    }
}

impl From<&str> for NodeId {
    fn from(name: &str) -> Self {
        NodeId::new(name)
    }
}

impl From<String> for NodeId {
    fn from(name: String) -> Self {
        NodeId(Arc::from(name))
    }
}

impl From<&NodeId> for NodeId {
    fn from(id: &NodeId) -> Self {
        id.clone()
    }
}

impl AsRef<str> for NodeId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for NodeId {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for NodeId {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}
