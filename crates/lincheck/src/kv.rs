//! The built-in key/value register model.

use std::borrow::Cow;

use crate::model::{Model, Next};

/// A key/value request: a blind write or a read of one key.
///
/// Keys and values are `String`s: histories recorded elsewhere (JSON lines,
/// logs) carry text, and a binary payload can be hex- or base64-encoded by
/// the recorder.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KvInput {
    /// Set `key` to `value`.
    Put {
        /// The key written.
        key: String,
        /// The value written.
        value: String,
    },
    /// Read `key`.
    Get {
        /// The key read.
        key: String,
    },
}

impl KvInput {
    /// `put(key, value)`.
    pub fn put(key: impl Into<String>, value: impl Into<String>) -> Self {
        KvInput::Put {
            key: key.into(),
            value: value.into(),
        }
    }

    /// `get(key)`.
    pub fn get(key: impl Into<String>) -> Self {
        KvInput::Get { key: key.into() }
    }

    /// The key this request touches.
    pub fn key(&self) -> &str {
        match self {
            KvInput::Put { key, .. } | KvInput::Get { key } => key,
        }
    }
}

/// A key/value answer.
///
/// A `put` is answered [`KvOutput::Ok`], a `get` [`KvOutput::Value`]. The
/// other pairings cannot happen in a register, so [`KvModel`] finds them
/// illegal (a violation) wherever they appear.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KvOutput {
    /// The write was acknowledged.
    Ok,
    /// The value read; `None` means the key was absent.
    Value(Option<String>),
}

impl KvOutput {
    /// A read that saw `value`.
    pub fn value(value: impl Into<String>) -> Self {
        KvOutput::Value(Some(value.into()))
    }

    /// A read that found the key absent.
    pub fn absent() -> Self {
        KvOutput::Value(None)
    }
}

/// A map of independent registers, one per key; every key starts absent.
///
/// - `put(key, value)` sets the key and answers `ok`;
/// - `get(key)` answers the key's current value, or absent.
///
/// The model is partitioned by key ([`Model::partition_key`]), so the
/// checker checks each key's sub-history on its own, and a state is just
/// the value of that one key (`None` = absent). A `put` whose answer is
/// unknown still writes its value if it takes effect; a `get` whose answer
/// is unknown constrains nothing and is dropped before the search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KvModel;

impl Model for KvModel {
    type State = Option<String>;
    type Input = KvInput;
    type Output = KvOutput;

    fn init(&self) -> Option<String> {
        None
    }

    fn step(
        &self,
        state: &Option<String>,
        input: &KvInput,
        output: Option<&KvOutput>,
    ) -> Next<Option<String>> {
        match (input, output) {
            (KvInput::Put { value, .. }, None | Some(KvOutput::Ok)) => {
                Next::To(Some(value.clone()))
            }
            (KvInput::Get { .. }, None) => Next::Unchanged,
            (KvInput::Get { .. }, Some(KvOutput::Value(seen))) if seen == state => Next::Unchanged,
            _ => Next::Illegal,
        }
    }

    fn partition_key<'a>(&self, input: &'a KvInput) -> Option<Cow<'a, str>> {
        Some(Cow::Borrowed(input.key()))
    }

    fn is_read_only(&self, input: &KvInput, _output: Option<&KvOutput>) -> bool {
        matches!(input, KvInput::Get { .. })
    }

    fn describe_operation(&self, input: &KvInput, output: Option<&KvOutput>) -> String {
        let call = match input {
            KvInput::Put { key, value } => format!("put({key:?}, {value:?})"),
            KvInput::Get { key } => format!("get({key:?})"),
        };
        let answer = match output {
            None => "? (outcome unknown)".to_string(),
            Some(KvOutput::Ok) => "ok".to_string(),
            Some(KvOutput::Value(value)) => describe_value(value.as_deref()),
        };
        format!("{call} -> {answer}")
    }

    fn describe_state(&self, state: &Option<String>) -> String {
        describe_value(state.as_deref())
    }
}

/// `"v1"` for a value, `absent` for none.
fn describe_value(value: Option<&str>) -> String {
    match value {
        Some(value) => format!("{value:?}"),
        None => "absent".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_is_legal_only_when_it_returns_the_current_value() {
        let state = Some("v1".to_string());
        let get = KvInput::get("k");
        assert_eq!(
            KvModel.step(&state, &get, Some(&KvOutput::value("v1"))),
            Next::Unchanged
        );
        assert_eq!(
            KvModel.step(&state, &get, Some(&KvOutput::value("v2"))),
            Next::Illegal
        );
        assert_eq!(
            KvModel.step(&state, &get, Some(&KvOutput::absent())),
            Next::Illegal
        );
        assert_eq!(
            KvModel.step(&None, &get, Some(&KvOutput::absent())),
            Next::Unchanged
        );
    }

    #[test]
    fn a_write_sets_the_value_whether_or_not_its_outcome_is_known() {
        let put = KvInput::put("k", "v2");
        let after = Next::To(Some("v2".to_string()));
        assert_eq!(KvModel.step(&None, &put, Some(&KvOutput::Ok)), after);
        assert_eq!(KvModel.step(&None, &put, None), after);
    }

    #[test]
    fn mismatched_answers_are_illegal() {
        assert_eq!(
            KvModel.step(&None, &KvInput::get("k"), Some(&KvOutput::Ok)),
            Next::Illegal
        );
        assert_eq!(
            KvModel.step(&None, &KvInput::put("k", "v"), Some(&KvOutput::absent())),
            Next::Illegal
        );
    }

    #[test]
    fn operations_are_partitioned_by_key_and_reads_are_read_only() {
        assert_eq!(
            KvModel.partition_key(&KvInput::put("a", "1")).as_deref(),
            Some("a")
        );
        assert!(KvModel.is_read_only(&KvInput::get("a"), None));
        assert!(!KvModel.is_read_only(&KvInput::put("a", "1"), Some(&KvOutput::Ok)));
    }

    #[test]
    fn operations_and_states_are_described_readably() {
        assert_eq!(
            KvModel.describe_operation(&KvInput::get("k"), Some(&KvOutput::absent())),
            "get(\"k\") -> absent"
        );
        assert_eq!(
            KvModel.describe_operation(&KvInput::put("k", "v"), None),
            "put(\"k\", \"v\") -> ? (outcome unknown)"
        );
        assert_eq!(KvModel.describe_state(&Some("v".into())), "\"v\"");
    }
}
