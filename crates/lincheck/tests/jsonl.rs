//! Reading and writing key/value histories as JSON lines.

use lincheck::{
    CheckOptions, KvInput, KvModel, KvOutput, Operation, ParseError, Verdict, check, parse_jsonl,
    synthetic::synthetic_history, to_jsonl,
};

const SAMPLE: &str = r#"{"id":1,"client":0,"call":3,"return":7,"op":"put","key":"k","value":"v1"}
{"id":2,"client":1,"call":4,"return":9,"op":"get","key":"k","value":"v1"}
{"id":3,"client":1,"call":10,"return":12,"op":"get","key":"x","value":null}
{"id":4,"client":2,"call":5,"return":null,"op":"put","key":"k","value":"v2"}
{"id":5,"client":3,"call":6,"return":null,"op":"get","key":"k","value":null}
"#;

fn parse(text: &str) -> Vec<Operation<KvInput, KvOutput>> {
    match parse_jsonl(text) {
        Ok(history) => history,
        Err(e) => panic!("{e}"),
    }
}

fn error(text: &str) -> ParseError {
    match parse_jsonl(text) {
        Ok(history) => panic!("expected a parse error, got {history:?}"),
        Err(e) => e,
    }
}

#[test]
fn the_documented_format_reads_as_the_operations_it_describes() {
    let history = parse(SAMPLE);
    assert_eq!(
        history,
        vec![
            Operation::completed(1, 0, 3, 7, KvInput::put("k", "v1"), KvOutput::Ok),
            Operation::completed(2, 1, 4, 9, KvInput::get("k"), KvOutput::value("v1")),
            Operation::completed(3, 1, 10, 12, KvInput::get("x"), KvOutput::absent()),
            Operation::unknown(4, 2, 5, KvInput::put("k", "v2")),
            Operation::unknown(5, 3, 6, KvInput::get("k")),
        ]
    );
    assert_eq!(
        check(&KvModel, &history, &CheckOptions::default()).map(|r| r.verdict),
        Ok(Verdict::Linearizable)
    );
}

#[test]
fn writing_then_reading_gives_back_the_same_history() {
    let history = parse(SAMPLE);
    let text = to_jsonl(&history);
    assert_eq!(text, SAMPLE);
    assert_eq!(parse(&text), history);

    let synthetic = synthetic_history(11, 300, 4, 3);
    assert_eq!(parse(&to_jsonl(&synthetic)), synthetic);
}

#[test]
fn blank_lines_and_extra_fields_are_ignored() {
    let text = "\n  \n{\"id\":1,\"client\":0,\"call\":0,\"return\":1,\"op\":\"get\",\"key\":\"k\",\"value\":null,\"node\":\"n1\"}\n\n";
    assert_eq!(
        parse(text),
        vec![Operation::completed(
            1,
            0,
            0,
            1,
            KvInput::get("k"),
            KvOutput::absent()
        )]
    );
}

#[test]
fn a_parse_error_names_the_line() {
    let text = format!(
        "{SAMPLE}\n{{\"id\":9,\"client\":0,\"call\":1,\"return\":2,\"op\":\"cas\",\"key\":\"k\"}}\n"
    );
    let e = error(&text);
    assert_eq!(e.line, 7);
    assert!(e.reason.contains("unknown op \"cas\""), "{e}");
    assert!(e.to_string().starts_with("history line 7: "), "{e}");
}

#[test]
fn each_kind_of_bad_line_is_refused_with_its_reason() {
    let cases = [
        ("not json", "invalid JSON"),
        ("[1,2]", "expected a JSON object"),
        (
            r#"{"client":0,"call":1,"return":2,"op":"put","key":"k","value":"v"}"#,
            "missing field `id`",
        ),
        (
            r#"{"id":-1,"client":0,"call":1,"return":2,"op":"put","key":"k","value":"v"}"#,
            "field `id` must be a non-negative integer",
        ),
        (
            r#"{"id":1,"client":0,"call":1,"op":"put","key":"k","value":"v"}"#,
            "missing field `return`",
        ),
        (
            r#"{"id":1,"client":0,"call":5,"return":2,"op":"put","key":"k","value":"v"}"#,
            "before its call",
        ),
        (
            r#"{"id":1,"client":0,"call":1,"return":2,"op":"put","key":"k"}"#,
            "missing field `value`",
        ),
        (
            r#"{"id":1,"client":0,"call":1,"return":2,"op":"get","key":"k","value":3}"#,
            "must be a string or null",
        ),
        (
            r#"{"id":1,"client":0,"call":1,"return":2,"op":"get","key":7,"value":null}"#,
            "field `key` must be a string",
        ),
    ];
    for (line, reason) in cases {
        let e = error(line);
        assert_eq!(e.line, 1, "{line}");
        assert!(e.reason.contains(reason), "{line}: {e}");
    }
}

#[test]
fn a_repeated_id_is_refused_naming_both_lines() {
    let text = "{\"id\":1,\"client\":0,\"call\":0,\"return\":1,\"op\":\"get\",\"key\":\"k\",\"value\":null}\n\
                {\"id\":1,\"client\":0,\"call\":2,\"return\":3,\"op\":\"get\",\"key\":\"k\",\"value\":null}\n";
    let e = error(text);
    assert_eq!(e.line, 2);
    assert!(e.reason.contains("already used on line 1"), "{e}");
}

#[test]
fn an_unknown_read_may_omit_its_value() {
    let text = r#"{"id":1,"client":0,"call":0,"return":null,"op":"get","key":"k"}"#;
    assert_eq!(
        parse(text),
        vec![Operation::unknown(1, 0, 0, KvInput::get("k"))]
    );
}

#[test]
fn an_operation_that_returned_without_an_answer_reads_and_writes_as_outcome_unknown() {
    let text = concat!(
        r#"{"id":1,"client":0,"call":0,"return":4,"outcome":"unknown","op":"get","key":"k"}"#,
        "\n",
        r#"{"id":2,"client":1,"call":1,"return":3,"outcome":"unknown","op":"put","key":"k","value":"v"}"#,
        "\n",
    );
    let history = parse(text);
    assert_eq!(
        history,
        vec![
            Operation::unanswered(1, 0, 0, 4, KvInput::get("k")),
            Operation::unanswered(2, 1, 1, 3, KvInput::put("k", "v")),
        ]
    );
    assert_eq!(parse(&to_jsonl(&history)), history);
    // The put took effect by tick 3, so a read called after it must see it.
    let mut stale = history.clone();
    stale.push(Operation::completed(
        3,
        2,
        5,
        6,
        KvInput::get("k"),
        KvOutput::absent(),
    ));
    let result = check(&KvModel, &stale, &CheckOptions::default()).map(|r| r.verdict);
    assert!(matches!(result, Ok(Verdict::Violation(_))), "{result:?}");
}

#[test]
fn an_outcome_other_than_unknown_is_refused() {
    let e =
        error(r#"{"id":1,"client":0,"call":0,"return":4,"outcome":"maybe","op":"get","key":"k"}"#);
    assert!(e.reason.contains("field `outcome`"), "{e}");
}
