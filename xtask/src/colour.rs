//! Whether output may be coloured: only on a terminal, and never when
//! `NO_COLOR` is set to anything but the empty string (<https://no-color.org>).

use std::ffi::OsStr;

/// True when a stream that `is_terminal` may be coloured, given the value
/// of `NO_COLOR` (`None`: unset).
pub fn allowed(is_terminal: bool, no_color: Option<&OsStr>) -> bool {
    is_terminal && no_color.is_none_or(OsStr::is_empty)
}

/// [`allowed`] for a stream, reading `NO_COLOR` from the environment.
pub fn allowed_on(is_terminal: bool) -> bool {
    allowed(is_terminal, std::env::var_os("NO_COLOR").as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_set_to_anything_turns_colour_off_even_on_a_terminal() {
        assert!(allowed(true, None));
        assert!(allowed(true, Some(OsStr::new(""))));
        assert!(!allowed(true, Some(OsStr::new("1"))));
        assert!(!allowed(true, Some(OsStr::new("0"))));
        assert!(!allowed(false, None));
    }
}
