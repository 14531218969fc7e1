//! An outcome's message, built from its parts without `format!`.
//!
//! Every acknowledged write carries a human-readable message
//! ([`Outcome::Written`](crate::Outcome)'s `message`), so a blocking write
//! workload builds one per write. `format!` walks its argument list and
//! pads every integer through `core::fmt`; for a message of a few literals,
//! a node name and an offset that machinery costs more than the rest of
//! the message. [`message!`](crate::message!) sizes the string once and
//! appends each part directly (integers through `itoa`). The text is the
//! same as `format!`'s for the same parts: the tests check it.

use sim_core::NodeId;

/// One part of a [`message!`](crate::message!): its length (an upper
/// bound for integers) and how it appends itself.
pub trait MessagePart {
    /// At most how many bytes [`MessagePart::push_to`] appends.
    fn max_len(&self) -> usize;
    /// Appends this part to `out`.
    fn push_to(&self, out: &mut String);
}

impl MessagePart for str {
    fn max_len(&self) -> usize {
        self.len()
    }
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl MessagePart for String {
    fn max_len(&self) -> usize {
        self.len()
    }
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl MessagePart for NodeId {
    fn max_len(&self) -> usize {
        self.as_str().len()
    }
    fn push_to(&self, out: &mut String) {
        out.push_str(self.as_str());
    }
}

impl<T: MessagePart + ?Sized> MessagePart for &T {
    fn max_len(&self) -> usize {
        (**self).max_len()
    }
    fn push_to(&self, out: &mut String) {
        (**self).push_to(out);
    }
}

macro_rules! integer_parts {
    ($($t:ty),*) => {$(
        impl MessagePart for $t {
            fn max_len(&self) -> usize {
                // The widest decimal of the type, sign included.
                const WIDEST: usize = {
                    let digits = <$t>::MAX.ilog10() as usize + 1;
                    if <$t>::MIN == 0 { digits } else { digits + 1 }
                };
                WIDEST
            }
            fn push_to(&self, out: &mut String) {
                out.push_str(itoa::Buffer::new().format(*self));
            }
        }
    )*};
}

integer_parts!(u8, u16, u32, u64, usize, i64);

/// The capacity a message of `parts` needs.
#[doc(hidden)]
pub fn capacity(parts: &[&dyn MessagePart]) -> usize {
    parts.iter().map(|p| p.max_len()).sum()
}

/// `message!["flushed on ", node, " at LSN ", lsn]`: the parts (string
/// slices, `String`s, [`NodeId`]s, integers) concatenated into one
/// `String`, allocated once — the same text as `format!` with each part as
/// `{}`, without its formatting machinery.
#[macro_export]
macro_rules! message {
    [$($part:expr),+ $(,)?] => {{
        let parts: &[&dyn $crate::MessagePart] = &[$(&$part),+];
        let mut out = ::std::string::String::with_capacity($crate::message_capacity(parts));
        for part in parts {
            part.push_to(&mut out);
        }
        out
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_the_text_format_would_build() {
        let node = NodeId::new("standby-1");
        let lsn: u64 = 18_446_744_073_709_551_615;
        assert_eq!(
            crate::message!["flushed on ", node, " at LSN ", lsn],
            format!("flushed on {node} at LSN {lsn}")
        );
        let (index, term, zero, neg): (u64, u64, usize, i64) = (42, 7, 0, -12);
        let owned = String::from(" by a majority");
        assert_eq!(
            crate::message!["index ", index, " term ", term, owned, " ", zero, " ", neg],
            format!("index {index} term {term}{owned} {zero} {neg}")
        );
    }

    #[test]
    fn a_message_is_allocated_once() {
        let lsn = u64::MAX;
        let i = i64::MIN;
        let text = crate::message!["LSN ", lsn, " ", i];
        assert_eq!(text, format!("LSN {lsn} {i}"));
        // Sized up front for the widest integers: no reallocation.
        assert_eq!(text.capacity(), 4 + 20 + 1 + 20);
    }
}
