//! A panic is a finding, not a crash: a schedule that panics inside a
//! protocol (an `assert!`, an `expect`, or a `debug_assert!` in a build
//! with debug assertions) is reported as a violation of *invariants*
//! naming the panic, and the sweep goes on.
//!
//! Catching needs unwinding: the `checked` and `oracle` profiles unwind;
//! the `release` profile aborts (no landing pads on the hot path), so an
//! optimized sweep that panics ends the process, as before.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

thread_local! {
    /// True while this thread runs a schedule under [`catch`].
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// The last caught panic's `file:line: message`.
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Panics caught since the process started (shrinking re-runs count too).
static CAUGHT: AtomicU64 = AtomicU64::new(0);

static HOOK: Once = Once::new();

/// Installs, once, a panic hook that records a caught panic quietly (its
/// location and message become the finding) and leaves every other panic
/// to the hook that was there before.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.with(Cell::get) {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(no message)".to_owned());
                let at = info
                    .location()
                    .map(|l| format!("{}:{}: ", l.file(), l.line()))
                    .unwrap_or_default();
                let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
                LAST.with(|last| *last.borrow_mut() = Some(format!("{at}{message}")));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f`; a panic inside it is answered as `Err("file:line: message")`
/// (quietly: nothing is printed). Needs unwinding, as the module says.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let was = CATCHING.with(|c| c.replace(true));
    let out = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(was));
    out.map_err(|_| {
        CAUGHT.fetch_add(1, Ordering::Relaxed);
        LAST.with(|last| last.borrow_mut().take())
            .unwrap_or_else(|| "(no message)".to_owned())
    })
}

/// How many schedule runs have panicked in this process so far.
pub fn panics_caught() -> u64 {
    CAUGHT.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_answered_with_its_location_and_message_and_counted() {
        let before = panics_caught();
        let out: Result<(), String> = catch(|| panic!("planted:   two\nlines"));
        let err = out.unwrap_err();
        assert!(err.contains("panics.rs:"), "{err}");
        assert!(err.ends_with("planted: two lines"), "{err}");
        assert!(panics_caught() > before);
        assert_eq!(catch(|| 7), Ok(7));
    }
}
