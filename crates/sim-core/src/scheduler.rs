//! The event queue: data events ordered by (due tick, insertion order).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::clock::{SimClock, Tick};
use crate::error::SimError;

/// A queued event's place in the heap: its order and where it is stored.
/// The heap moves only these small keys; the events stay put in the slab.
#[derive(Clone, Copy)]
struct Key {
    due: Tick,
    seq: u64,
    slot: u32,
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.due == other.due && self.seq == other.seq
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    // BinaryHeap is a max-heap: reverse so the earliest (due, seq) is on top.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        (other.due, other.seq).cmp(&(self.due, self.seq))
    }
}

/// A priority queue of events keyed by (due tick, insertion order), with the
/// clock it runs against.
///
/// Events are plain data: the owner pops them and dispatches them itself, so
/// there are no boxed closures and the whole queue can be inspected. Events
/// at one tick always come out in the order they were scheduled, including
/// events scheduled with delay 0 while that tick is being processed.
///
/// ```
/// use sim_core::Scheduler;
/// let mut s = Scheduler::new();
/// s.schedule(1, "b");
/// s.schedule(0, "a");
/// let mut seen = vec![];
/// s.run_until_idle(10, |_, _, e| seen.push(e)).unwrap();
/// assert_eq!(seen, ["a", "b"]);
/// ```
#[derive(Clone)]
pub struct Scheduler<E> {
    clock: SimClock,
    /// The order: one small key per queued event.
    heap: BinaryHeap<Key>,
    /// The events, by slot; `None` for a free slot.
    slab: Vec<Option<E>>,
    /// Free slots, reused before the slab grows.
    free: Vec<u32>,
    next_seq: u64,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Scheduler<E> {
    /// An empty queue at tick 0.
    pub fn new() -> Self {
        Scheduler {
            clock: SimClock::new(),
            heap: BinaryHeap::new(),
            slab: Vec::new(),
            free: Vec::new(),
            next_seq: 0,
        }
    }

    /// The current tick.
    pub fn now(&self) -> Tick {
        self.clock.now()
    }

    /// Schedules `event` to run `delay` ticks from now (0 = this tick).
    pub fn schedule(&mut self, delay: u64, event: E) {
        let due = self.clock.now().saturating_add(delay);
        self.schedule_at(due, event);
    }

    /// Schedules `event` at an absolute tick; a tick in the past runs at the
    /// next opportunity, still in insertion order.
    pub fn schedule_at(&mut self, due: Tick, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slab[slot as usize] = Some(event);
                slot
            }
            None => {
                // More than u32::MAX events queued at once would exhaust
                // memory long before the slot number.
                let slot = u32::try_from(self.slab.len()).expect("fewer than 2^32 queued events");
                self.slab.push(Some(event));
                slot
            }
        };
        self.heap.push(Key { due, seq, slot });
    }

    /// Advances the clock by one tick and returns the new time. Pop what is
    /// due with [`Scheduler::pop_due`] afterwards.
    pub fn advance(&mut self) -> Tick {
        // A step of 1 is never the zero step, the clock's only error.
        match self.clock.advance(1) {
            Ok(now) => now,
            Err(_) => self.clock.now(),
        }
    }

    /// Removes and returns the next event due at or before now.
    #[inline]
    pub fn pop_due(&mut self) -> Option<E> {
        if self.heap.peek()?.due > self.clock.now() {
            return None;
        }
        let key = self.heap.pop()?;
        self.free.push(key.slot);
        self.slab[key.slot as usize].take()
    }

    /// Removes and returns every queued event, due or not, in the order
    /// they would run (due tick, then insertion order).
    pub fn drain(&mut self) -> Vec<E> {
        let mut out = Vec::with_capacity(self.heap.len());
        while let Some(key) = self.heap.pop() {
            self.free.push(key.slot);
            if let Some(event) = self.slab[key.slot as usize].take() {
                out.push(event);
            }
        }
        out
    }

    /// The due tick of the earliest queued event.
    pub fn next_due(&self) -> Option<Tick> {
        self.heap.peek().map(|key| key.due)
    }

    /// Number of queued events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Keeps only the queued events for which `keep` returns true (order of
    /// the survivors is unchanged).
    pub fn retain(&mut self, mut keep: impl FnMut(&E) -> bool) {
        let (slab, free) = (&mut self.slab, &mut self.free);
        self.heap.retain(|key| {
            let slot = &mut slab[key.slot as usize];
            if slot.as_ref().is_some_and(&mut keep) {
                return true;
            }
            *slot = None;
            free.push(key.slot);
            false
        });
    }

    /// Every queued event with its due tick, in the order they would run
    /// (due tick, then insertion order), without removing them.
    pub fn in_order(&self) -> Vec<(Tick, &E)> {
        let mut keys: Vec<Key> = self.heap.iter().copied().collect();
        keys.sort_unstable_by_key(|k| (k.due, k.seq));
        keys.iter()
            .filter_map(|k| self.slab[k.slot as usize].as_ref().map(|e| (k.due, e)))
            .collect()
    }

    /// Iterates over queued events in no particular order (for inspection
    /// and counting only; never let this order reach a trace).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.slab.iter().flatten()
    }

    /// Advances one tick and hands every event now due to `handler`,
    /// including events the handler schedules for this same tick.
    pub fn tick(&mut self, mut handler: impl FnMut(&mut Self, Tick, E)) -> Tick {
        let now = self.advance();
        while let Some(event) = self.pop_due() {
            handler(self, now, event);
        }
        now
    }

    /// Ticks until the queue is empty, at most `max_ticks` times. Returns the
    /// number of ticks taken, or [`SimError::NotIdle`] when the bound is hit.
    pub fn run_until_idle(
        &mut self,
        max_ticks: u64,
        mut handler: impl FnMut(&mut Self, Tick, E),
    ) -> Result<u64, SimError> {
        // Events already due (delay 0 before the first tick) run first.
        let now = self.now();
        while let Some(event) = self.pop_due() {
            handler(self, now, event);
        }
        let mut ticks = 0;
        while !self.is_empty() {
            if ticks >= max_ticks {
                return Err(SimError::NotIdle {
                    max_ticks,
                    pending: self.len(),
                });
            }
            self.tick(&mut handler);
            ticks += 1;
        }
        Ok(ticks)
    }
}
