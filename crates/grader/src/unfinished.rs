//! A panic inside a student's function, in words: a `todo!()` is a
//! function not written yet, anything else a panic at its line.

/// `panic` as [`explore::catch_panic`] answers it (`file:line: message`),
/// in a student's words.
#[must_use]
pub fn explain(panic: &str) -> String {
    let (at, message) = match panic.split_once(": ") {
        Some((at, message)) if at.contains(':') => (at, message),
        _ => ("", panic),
    };
    if message.starts_with("not yet implemented") {
        format!("not written yet: the `todo!()` at {at} panicked")
    } else if at.is_empty() {
        format!("panicked: {message}")
    } else {
        format!("panicked at {at}: {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::explain;

    #[test]
    fn a_todo_reads_as_not_written_yet_and_names_its_line() {
        assert_eq!(
            explain("src/lib.rs:42: not yet implemented"),
            "not written yet: the `todo!()` at src/lib.rs:42 panicked"
        );
        assert_eq!(
            explain("src/lib.rs:7: index out of bounds"),
            "panicked at src/lib.rs:7: index out of bounds"
        );
        assert_eq!(explain("(no message)"), "panicked: (no message)");
    }
}
