//! What the caller says around the picture.

/// What to say around the picture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiagramOptions {
    /// The title line (e.g. experiment, protocol and variant); a generic
    /// one when `None`.
    pub title: Option<String>,
}

impl DiagramOptions {
    /// Options with `title`.
    pub fn titled(title: impl Into<String>) -> DiagramOptions {
        DiagramOptions {
            title: Some(title.into()),
        }
    }
}
