//! A protocol's rules as a configuration field: a `&'static` trait object
//! (the crate's own rules, or a lab student's), compared and printed by
//! the name the rules give themselves.

use std::fmt;

/// Rules that say their own name (`reference`, `student`).
pub trait Named {
    /// The name.
    fn name(&self) -> &'static str;
}

/// Plugged-in rules of type `T` (a protocol's `dyn …Decisions`): `Copy`,
/// compared and printed by [`Named::name`] — so a configuration that
/// holds them keeps its derived `Debug`, `PartialEq` and `Eq`, and a
/// node's state text carries only the name.
pub struct Plugged<T: ?Sized + 'static>(pub &'static T);

impl<T: ?Sized> Clone for Plugged<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Plugged<T> {}

impl<T: ?Sized + Named> fmt::Debug for Plugged<T> {
    /// The name alone: a node's state text (which the model checker's
    /// fingerprint hashes) carries it on every state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

impl<T: ?Sized + Named> PartialEq for Plugged<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.name() == other.0.name()
    }
}

impl<T: ?Sized + Named> Eq for Plugged<T> {}

impl<T: ?Sized + Named> std::hash::Hash for Plugged<T> {
    /// The name, as it is compared.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.name().hash(state);
    }
}

impl<T: ?Sized> std::ops::Deref for Plugged<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0
    }
}
