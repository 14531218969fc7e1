//! The checker agrees with a brute-force search over all orders on many
//! small random histories — including repeated values, touching intervals
//! and unknown outcomes, where its pruning and candidate ordering could go
//! wrong.

use lincheck::synthetic::{CasRegister, RegisterInput, RegisterOutput};
use lincheck::{CheckOptions, KvInput, KvModel, KvOutput, Model, Next, Operation, Verdict, check};

type KvOp = Operation<KvInput, KvOutput>;

/// SplitMix64, so the test needs no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

fn random_history(rng: &mut Rng, keys: u64) -> Vec<KvOp> {
    let values = ["a", "b", "c"];
    let n = 1 + rng.below(8);
    (0..n)
        .map(|id| {
            let key = format!("k{}", rng.below(keys));
            let call = rng.below(10);
            let ret = (rng.below(7) != 0).then(|| call + rng.below(5));
            let value = values[rng.below(3) as usize];
            let (input, output) = if rng.below(2) == 0 {
                (KvInput::put(key, value), KvOutput::Ok)
            } else {
                let seen = (rng.below(4) != 0).then(|| value.to_string());
                (KvInput::get(key), KvOutput::Value(seen))
            };
            Operation {
                id,
                client: id,
                call,
                ret,
                input,
                output: ret.map(|_| output),
            }
        })
        .collect()
}

/// Tries every order that respects real time; unknown operations may also
/// never happen. No partitioning, no cache, no reductions.
fn brute_force(history: &[KvOp]) -> bool {
    fn must_precede(a: &KvOp, b: &KvOp) -> bool {
        a.ret.is_some_and(|ret| ret < b.call)
    }
    fn search(
        history: &[KvOp],
        placed: &mut Vec<bool>,
        state: &std::collections::BTreeMap<String, String>,
    ) -> bool {
        let done = history
            .iter()
            .zip(placed.iter())
            .all(|(op, &p)| p || op.ret.is_none());
        if done {
            return true;
        }
        for (i, op) in history.iter().enumerate() {
            if placed[i] {
                continue;
            }
            let ready = history
                .iter()
                .enumerate()
                .all(|(j, other)| placed[j] || !must_precede(other, op));
            if !ready {
                continue;
            }
            let key = op.input.key().to_string();
            let current = state.get(&key).cloned();
            for next in KvModel
                .step(&current, &op.input, op.output.as_ref())
                .into_states(&current)
            {
                let mut state = state.clone();
                match next {
                    Some(v) => state.insert(key.clone(), v),
                    None => state.remove(&key),
                };
                placed[i] = true;
                let found = search(history, placed, &state);
                placed[i] = false;
                if found {
                    return true;
                }
            }
        }
        false
    }
    search(
        history,
        &mut vec![false; history.len()],
        &std::collections::BTreeMap::new(),
    )
}

fn agree_on_random_histories(seed: u64, keys: u64, cases: usize) {
    let mut rng = Rng(seed);
    let (mut linearizable, mut violated) = (0, 0);
    for case in 0..cases {
        let history = random_history(&mut rng, keys);
        let expected = brute_force(&history);
        let result = check(&KvModel, &history, &CheckOptions::default()).map(|r| r.verdict);
        match (&result, expected) {
            (Ok(Verdict::Linearizable), true) => linearizable += 1,
            (Ok(Verdict::Violation(_)), false) => violated += 1,
            _ => {
                panic!("case {case}: brute force says {expected}, checker {result:?}\n{history:#?}")
            }
        }
    }
    // Both verdicts must be well represented for the comparison to mean
    // anything.
    assert!(linearizable > cases / 10, "{linearizable} linearizable");
    assert!(violated > cases / 10, "{violated} violated");
}

#[test]
fn the_checker_agrees_with_brute_force_on_one_key() {
    agree_on_random_histories(1, 1, 3_000);
}

#[test]
fn the_checker_agrees_with_brute_force_over_two_keys() {
    agree_on_random_histories(2, 2, 3_000);
}

/// A pool of at most three tokens: `Take` needs one, `Give` returns one
/// but may be lost (two next states), `Peek` reads the count. Unknown
/// outcomes matter here: an unknown `Take` with no token left cannot take
/// effect, so it must be allowed never to happen.
struct Tokens;

#[derive(Debug, Clone, Copy)]
enum TokenOp {
    Take,
    Give,
    Peek(u8),
}

impl Model for Tokens {
    type State = u8;
    type Input = TokenOp;
    type Output = ();

    fn init(&self) -> u8 {
        1
    }

    fn step(&self, &count: &u8, input: &TokenOp, _: Option<&()>) -> Next<u8> {
        match *input {
            TokenOp::Take if count > 0 => Next::To(count - 1),
            TokenOp::Take => Next::Illegal,
            TokenOp::Give => Next::AnyOf(vec![(count + 1).min(3), count]),
            TokenOp::Peek(seen) if seen == count => Next::Unchanged,
            TokenOp::Peek(_) => Next::Illegal,
        }
    }

    fn is_read_only(&self, input: &TokenOp, _: Option<&()>) -> bool {
        matches!(input, TokenOp::Peek(_))
    }
}

fn random_token_history(rng: &mut Rng) -> Vec<Operation<TokenOp, ()>> {
    let n = 1 + rng.below(7);
    (0..n)
        .map(|id| {
            let call = rng.below(10);
            let ret = (rng.below(5) != 0).then(|| call + rng.below(5));
            let input = match rng.below(3) {
                0 => TokenOp::Take,
                1 => TokenOp::Give,
                _ => TokenOp::Peek(rng.below(3) as u8),
            };
            Operation {
                id,
                client: id,
                call,
                ret,
                input,
                output: ret.map(|_| ()),
            }
        })
        .collect()
}

/// Every real-time order of any unpartitioned model, every next state;
/// unknown operations may never happen.
fn brute_force_model<M: Model>(model: &M, history: &[Operation<M::Input, M::Output>]) -> bool {
    fn search<M: Model>(
        model: &M,
        history: &[Operation<M::Input, M::Output>],
        placed: &mut Vec<bool>,
        state: &M::State,
    ) -> bool {
        if (0..history.len()).all(|i| placed[i] || history[i].ret.is_none()) {
            return true;
        }
        for (i, op) in history.iter().enumerate() {
            let ready = (0..history.len())
                .all(|j| placed[j] || history[j].ret.is_none_or(|ret| ret >= op.call));
            if placed[i] || !ready {
                continue;
            }
            for next in model
                .step(state, &op.input, op.output.as_ref())
                .into_states(state)
            {
                placed[i] = true;
                let found = search(model, history, placed, &next);
                placed[i] = false;
                if found {
                    return true;
                }
            }
        }
        false
    }
    search(
        model,
        history,
        &mut vec![false; history.len()],
        &model.init(),
    )
}

#[test]
fn the_checker_agrees_with_brute_force_on_a_nondeterministic_model_with_unknown_outcomes() {
    let mut rng = Rng(3);
    let (mut linearizable, mut violated) = (0, 0);
    for case in 0..3_000 {
        let history = random_token_history(&mut rng);
        let expected = brute_force_model(&Tokens, &history);
        let result = check(&Tokens, &history, &CheckOptions::default()).map(|r| r.verdict);
        match (&result, expected) {
            (Ok(Verdict::Linearizable), true) => linearizable += 1,
            (Ok(Verdict::Violation(e)), false) if e.partition.is_none() => violated += 1,
            _ => {
                panic!("case {case}: brute force says {expected}, checker {result:?}\n{history:#?}")
            }
        }
    }
    assert!(linearizable > 300, "{linearizable} linearizable");
    assert!(violated > 300, "{violated} violated");
}

/// Small random histories of the compare-and-set register in all three
/// shapes an operation can have: answered, returned without an answer (a
/// timed-out read or write), never returned.
fn random_register_history(rng: &mut Rng) -> Vec<Operation<RegisterInput, RegisterOutput>> {
    let n = 1 + rng.below(7);
    (0..n)
        .map(|id| {
            let call = rng.below(10);
            let ret = (rng.below(6) != 0).then(|| call + rng.below(5));
            let value = |rng: &mut Rng| rng.below(3);
            let (input, output) = match rng.below(3) {
                0 => {
                    let seen = (rng.below(4) != 0).then(|| value(rng));
                    (RegisterInput::Read, RegisterOutput::Value(seen))
                }
                1 => (RegisterInput::Write(value(rng)), RegisterOutput::Ok),
                _ => {
                    let cas = RegisterInput::Cas {
                        from: value(rng),
                        to: value(rng),
                    };
                    let answer = if rng.below(2) == 0 {
                        RegisterOutput::Ok
                    } else {
                        RegisterOutput::Failed
                    };
                    (cas, answer)
                }
            };
            let answered = ret.is_some() && rng.below(5) != 0;
            Operation {
                id,
                client: id,
                call,
                ret,
                input,
                output: answered.then_some(output),
            }
        })
        .collect()
}

#[test]
fn the_checker_agrees_with_brute_force_on_a_cas_register_with_unanswered_operations() {
    let mut rng = Rng(4);
    let (mut linearizable, mut violated, mut unanswered) = (0, 0, 0);
    for case in 0..3_000 {
        let history = random_register_history(&mut rng);
        unanswered += history
            .iter()
            .filter(|op| op.ret.is_some() && op.output.is_none())
            .count();
        let expected = brute_force_model(&CasRegister, &history);
        let result = check(&CasRegister, &history, &CheckOptions::default()).map(|r| r.verdict);
        match (&result, expected) {
            (Ok(Verdict::Linearizable), true) => linearizable += 1,
            (Ok(Verdict::Violation(_)), false) => violated += 1,
            _ => {
                panic!("case {case}: brute force says {expected}, checker {result:?}\n{history:#?}")
            }
        }
    }
    assert!(linearizable > 300, "{linearizable} linearizable");
    assert!(violated > 300, "{violated} violated");
    assert!(unanswered > 1_000, "{unanswered} unanswered operations");
}
