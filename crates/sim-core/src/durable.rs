//! Durable images: what survives a power loss.

use std::collections::BTreeMap;

use crate::node::NodeId;

/// Per node, the last fsynced copy of whatever that node persists.
///
/// `fsync` stores an image; a crash that loses unfsynced writes restores
/// exactly the stored image, while an ordinary crash (process restart with
/// persistence) keeps the live state and never consults this. The image type
/// is the protocol's choice: a whole state copy for small state, or a small
/// marker (e.g. "log durable through offset 17") for append-only logs, so an
/// fsync stays O(1) on a hot path.
///
/// ```
/// use sim_core::{DurableImages, NodeId};
/// let n1 = NodeId::new("n1");
/// let mut disk = DurableImages::new();
/// disk.fsync(&n1, vec![1, 2]);
/// let mut live = vec![1, 2, 3];
/// // power loss: back to the image
/// live = disk.image(&n1).cloned().unwrap_or_default();
/// assert_eq!(live, vec![1, 2]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurableImages<T> {
    images: BTreeMap<NodeId, T>,
}

impl<T> Default for DurableImages<T> {
    fn default() -> Self {
        DurableImages {
            images: BTreeMap::new(),
        }
    }
}

impl<T> DurableImages<T> {
    /// No node has fsynced anything yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `image` as `node`'s durable state, replacing the previous one.
    pub fn fsync(&mut self, node: &NodeId, image: T) {
        self.images.insert(node.clone(), image);
    }

    /// The last fsynced image of `node`, if it ever fsynced.
    pub fn image(&self, node: &NodeId) -> Option<&T> {
        self.images.get(node)
    }

    /// Mutable access to `node`'s image (e.g. to clamp a durable offset
    /// after a truncation that is itself durable).
    pub fn image_mut(&mut self, node: &NodeId) -> Option<&mut T> {
        self.images.get_mut(node)
    }
}
