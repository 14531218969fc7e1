//! A compare-and-set register — the object a Jepsen etcd test checks —
//! written against lincheck's public API only, and checked on small
//! hand-made histories of each shape a real recorder produces: a read that
//! timed out at a known time, a compare-and-set that failed, a write that
//! never returned.
//!
//! Run: `cargo run -p sim-lincheck --example cas_register` (prints each
//! history's verdict); `cargo test -p sim-lincheck --example cas_register`
//! runs the tests that pin them.

use lincheck::{CheckOptions, Model, Next, Operation, Verdict, check};

/// What a client asked of the register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// Read the value.
    Read,
    /// Write a value.
    Write(i64),
    /// Write `new` if the value is `expect`.
    Cas {
        /// The value expected.
        expect: i64,
        /// The value written if it was there.
        new: i64,
    },
}

/// What the register answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// A read's value (`None`: never written).
    Read(Option<i64>),
    /// A write was applied.
    Written,
    /// A compare-and-set: `true` if it swapped, `false` if the value was
    /// not the expected one (then it changed nothing).
    Swapped(bool),
}

/// The register, starting empty.
pub struct Register;

impl Model for Register {
    type State = Option<i64>;
    type Input = Call;
    type Output = Reply;

    fn init(&self) -> Option<i64> {
        None
    }

    fn step(&self, value: &Option<i64>, call: &Call, reply: Option<&Reply>) -> Next<Option<i64>> {
        match (*call, reply.copied()) {
            // A read with no reply constrains nothing (lincheck drops it,
            // since it is read-only).
            (Call::Read, None) => Next::Unchanged,
            (Call::Read, Some(Reply::Read(seen))) if seen == *value => Next::Unchanged,
            (Call::Write(v), None | Some(Reply::Written)) => Next::To(Some(v)),
            // A compare-and-set with no reply did what the value made it
            // do: swap if it found `expect`, nothing otherwise.
            (Call::Cas { expect, new }, None | Some(Reply::Swapped(true)))
                if *value == Some(expect) =>
            {
                Next::To(Some(new))
            }
            (Call::Cas { .. }, None) => Next::Unchanged,
            (Call::Cas { expect, .. }, Some(Reply::Swapped(false))) if *value != Some(expect) => {
                Next::Unchanged
            }
            _ => Next::Illegal,
        }
    }

    /// Reads, and compare-and-sets that did not swap, change nothing: the
    /// search tries them first and places one that fits without
    /// branching. (A compare-and-set with no reply might have swapped, so
    /// it is not read-only.)
    fn is_read_only(&self, call: &Call, reply: Option<&Reply>) -> bool {
        match call {
            Call::Read => true,
            Call::Cas { .. } => reply == Some(&Reply::Swapped(false)),
            Call::Write(_) => false,
        }
    }
}

type Op = Operation<Call, Reply>;

/// Answered at `ret`.
fn done(id: u64, call: u64, ret: u64, input: Call, output: Reply) -> Op {
    Operation::completed(id, id, call, ret, input, output)
}

/// Returned at `ret` without an answer (timed out at a known tick).
fn timed_out(id: u64, call: u64, ret: u64, input: Call) -> Op {
    Operation::unanswered(id, id, call, ret, input)
}

/// Never returned.
fn lost(id: u64, call: u64, input: Call) -> Op {
    Operation::unknown(id, id, call, input)
}

fn verdict(history: &[Op]) -> Verdict {
    match check(&Register, history, &CheckOptions::default()) {
        Ok(result) => result.verdict,
        Err(e) => panic!("invalid history: {e}"),
    }
}

/// The hand-made histories, with a name and the verdict they must get.
fn histories() -> Vec<(&'static str, Vec<Op>, bool)> {
    use Call::{Cas, Read, Write};
    vec![
        (
            "a read that timed out constrains no value",
            vec![
                done(1, 0, 1, Write(1), Reply::Written),
                timed_out(2, 2, 5, Read),
                done(3, 6, 7, Read, Reply::Read(Some(1))),
            ],
            true,
        ),
        (
            "a compare-and-set that timed out took effect by its return",
            vec![
                done(1, 0, 1, Write(1), Reply::Written),
                timed_out(2, 2, 3, Cas { expect: 1, new: 2 }),
                done(3, 4, 5, Read, Reply::Read(Some(1))),
            ],
            false,
        ),
        (
            "a compare-and-set that never returned may not have happened yet",
            vec![
                done(1, 0, 1, Write(1), Reply::Written),
                lost(2, 2, Cas { expect: 1, new: 2 }),
                done(3, 4, 5, Read, Reply::Read(Some(1))),
                done(4, 6, 7, Read, Reply::Read(Some(2))),
            ],
            true,
        ),
        (
            "a failed compare-and-set saw another value",
            vec![
                done(1, 0, 1, Write(1), Reply::Written),
                done(2, 2, 3, Cas { expect: 2, new: 3 }, Reply::Swapped(false)),
                done(3, 4, 5, Read, Reply::Read(Some(1))),
            ],
            true,
        ),
        (
            "a failed compare-and-set cannot have seen its expected value",
            vec![
                done(1, 0, 1, Write(1), Reply::Written),
                done(2, 2, 3, Cas { expect: 1, new: 3 }, Reply::Swapped(false)),
            ],
            false,
        ),
        (
            "a write that never returned took effect late",
            vec![
                done(1, 0, 1, Write(1), Reply::Written),
                lost(2, 2, Write(2)),
                done(3, 10, 11, Read, Reply::Read(Some(1))),
                done(4, 12, 13, Read, Reply::Read(Some(2))),
            ],
            true,
        ),
        (
            "a write that never returned takes effect once",
            vec![
                done(1, 0, 1, Write(1), Reply::Written),
                lost(2, 2, Write(2)),
                done(3, 10, 11, Read, Reply::Read(Some(2))),
                done(4, 12, 13, Read, Reply::Read(Some(1))),
            ],
            false,
        ),
    ]
}

fn main() {
    for (name, history, _) in histories() {
        let verdict = verdict(&history);
        println!(
            "{name}: {}",
            verdict.to_string().lines().next().unwrap_or_default()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_linearizable(history: &[Op]) -> bool {
        match verdict(history) {
            Verdict::Linearizable => true,
            Verdict::Violation(_) => false,
            unknown => panic!("no verdict: {unknown}"),
        }
    }

    #[test]
    fn every_hand_made_history_gets_its_verdict() {
        for (name, history, linearizable) in histories() {
            assert_eq!(is_linearizable(&history), linearizable, "{name}");
        }
    }

    #[test]
    fn a_read_that_timed_out_is_accepted_and_constrains_nothing() {
        use Call::{Read, Write};
        // Whatever value the timed-out read would have seen, it changes
        // nothing; the history is judged by the other operations.
        let history = [
            done(1, 0, 1, Write(1), Reply::Written),
            timed_out(2, 0, 9, Read),
            done(3, 2, 3, Write(2), Reply::Written),
            done(4, 4, 5, Read, Reply::Read(Some(1))),
        ];
        let Verdict::Violation(why) = verdict(&history) else {
            panic!("a stale read after a completed write");
        };
        assert_eq!(why.unplaceable.id, 4);
    }

    #[test]
    fn a_compare_and_set_that_timed_out_orders_time_but_not_its_answer() {
        use Call::{Cas, Read, Write};
        // Returned at 3 without an answer: it took effect by 3. Found 1, so
        // it swapped, and a later read must see 2.
        let history = [
            done(1, 0, 1, Write(1), Reply::Written),
            timed_out(2, 2, 3, Cas { expect: 1, new: 2 }),
            done(3, 4, 5, Read, Reply::Read(Some(2))),
        ];
        assert!(is_linearizable(&history));
        // Had it found another value it would have changed nothing.
        let history = [
            done(1, 0, 1, Write(5), Reply::Written),
            timed_out(2, 2, 3, Cas { expect: 1, new: 2 }),
            done(3, 4, 5, Read, Reply::Read(Some(5))),
        ];
        assert!(is_linearizable(&history));
    }

    #[test]
    fn a_failed_compare_and_set_concurrent_with_the_write_took_effect_before_it() {
        use Call::{Cas, Read, Write};
        let history = [
            done(1, 0, 4, Write(1), Reply::Written),
            done(2, 1, 3, Cas { expect: 1, new: 3 }, Reply::Swapped(false)),
            done(3, 5, 6, Read, Reply::Read(Some(1))),
        ];
        assert!(is_linearizable(&history));
    }

    #[test]
    fn a_compare_and_set_is_read_only_only_when_it_failed() {
        let cas = Call::Cas { expect: 1, new: 2 };
        assert!(Register.is_read_only(&cas, Some(&Reply::Swapped(false))));
        assert!(!Register.is_read_only(&cas, Some(&Reply::Swapped(true))));
        assert!(!Register.is_read_only(&cas, None));
        assert!(Register.is_read_only(&Call::Read, None));
    }

    #[test]
    fn verdicts_agree_with_the_library_register_on_generated_histories() {
        use lincheck::synthetic::{
            CasRegister, RegisterInput, RegisterOutput, RegisterShape, register_history,
        };
        let shape = RegisterShape {
            ops: 300,
            ..RegisterShape::default()
        };
        for seed in 0..20 {
            let mut generated = register_history(seed, shape);
            // Corrupt one read in every other history so both verdicts occur.
            if seed % 2 == 1
                && let Some(read) = generated
                    .iter_mut()
                    .skip(100)
                    .find(|op| op.input == RegisterInput::Read && op.output.is_some())
            {
                read.output = Some(RegisterOutput::Value(Some(99)));
            }
            let ours: Vec<Op> = generated
                .iter()
                .map(|op| Operation {
                    id: op.id,
                    client: op.client,
                    call: op.call,
                    ret: op.ret,
                    input: match op.input {
                        RegisterInput::Read => Call::Read,
                        RegisterInput::Write(v) => Call::Write(v as i64),
                        RegisterInput::Cas { from, to } => Call::Cas {
                            expect: from as i64,
                            new: to as i64,
                        },
                    },
                    output: op.output.map(|out| match (op.input, out) {
                        (_, RegisterOutput::Value(v)) => Reply::Read(v.map(|v| v as i64)),
                        (RegisterInput::Write(_), _) => Reply::Written,
                        (_, RegisterOutput::Ok) => Reply::Swapped(true),
                        (_, RegisterOutput::Failed) => Reply::Swapped(false),
                    }),
                })
                .collect();
            let library = check(&CasRegister, &generated, &CheckOptions::default())
                .map(|r| r.is_linearizable());
            assert_eq!(library, Ok(seed % 2 == 0), "seed {seed}");
            assert_eq!(is_linearizable(&ours), seed % 2 == 0, "seed {seed}");
        }
    }
}
