//! SimClock and Scheduler behaviour.

use sim_core::{Scheduler, SimClock, SimError};

#[test]
fn clock_refuses_a_zero_step_and_does_not_move() {
    let mut clock = SimClock::new();
    assert_eq!(clock.advance(0), Err(SimError::ZeroStep));
    assert_eq!(clock.now(), 0);
    assert_eq!(clock.advance(3), Ok(3));
    assert_eq!(clock.now(), 3);
}

#[test]
fn same_tick_events_run_in_insertion_order_including_delay_zero_ones() {
    let mut s = Scheduler::new();
    s.schedule(1, "first");
    s.schedule(1, "second");
    s.schedule(2, "later");
    s.schedule(1, "third");
    let mut seen = Vec::new();
    s.tick(|s, now, event| {
        seen.push((now, event));
        if event == "first" {
            // Scheduled while tick 1 runs, with delay 0: runs in tick 1, after the others.
            s.schedule(0, "spawned");
        }
    });
    assert_eq!(
        seen,
        [(1, "first"), (1, "second"), (1, "third"), (1, "spawned")]
    );
    assert_eq!(s.len(), 1);
    assert_eq!(s.next_due(), Some(2));
}

#[test]
fn run_until_idle_returns_ticks_taken() {
    let mut s = Scheduler::new();
    s.schedule(5, 1u32);
    let mut count = 0;
    let ticks = s
        .run_until_idle(10, |_, _, _| count += 1)
        .expect("idle within bound");
    assert_eq!((ticks, count, s.now()), (5, 1, 5));
}

#[test]
fn run_until_idle_errors_when_the_bound_is_exceeded() {
    let mut s = Scheduler::new();
    s.schedule(1, ());
    // An event that always reschedules itself never lets the queue drain.
    let err = s
        .run_until_idle(7, |s, _, ()| s.schedule(1, ()))
        .unwrap_err();
    assert_eq!(
        err,
        SimError::NotIdle {
            max_ticks: 7,
            pending: 1
        }
    );
    assert_eq!(s.now(), 7);
}

#[test]
fn events_scheduled_in_the_past_run_at_the_next_opportunity() {
    let mut s: Scheduler<&str> = Scheduler::new();
    s.advance();
    s.advance();
    s.schedule_at(0, "late");
    assert_eq!(s.pop_due(), Some("late"));
}
