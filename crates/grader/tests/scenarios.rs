//! Every lab scenario file shows what the laboratory's own rules print:
//! the grader compares a student's run with it. `GRADER_REWRITE=1 cargo
//! test -p grader --test scenarios` rewrites the files from the reference.

use grader::{Check, Lab, Student};

fn reference(lab: Lab) -> Student {
    match lab {
        Lab::Isr => Student::Isr(&proto_isr::decisions::Reference),
        Lab::Raft => Student::Raft(&proto_raft::decisions::Reference),
    }
}

#[test]
fn every_lab_scenario_file_is_what_the_reference_prints() {
    let rewrite = std::env::var_os("GRADER_REWRITE").is_some();
    let mut files = 0;
    for lab in Lab::ALL {
        let registry = grader::registry(reference(lab));
        for stage in lab.stages() {
            for check in &stage.checks {
                let Check::Scenario { file, text } = check else {
                    continue;
                };
                files += 1;
                let parsed = scenario::parse(file, text, &registry).expect("parses");
                let outputs = scenario::run_protocols(&parsed, registry.protocols(), &registry);
                let fresh = scenario::render(&parsed, &outputs, true, &registry);
                if rewrite {
                    let path = format!(
                        "{}/scenarios/{}/{file}",
                        env!("CARGO_MANIFEST_DIR"),
                        lab.name()
                    );
                    std::fs::write(path, &fresh).expect("writes");
                } else {
                    assert_eq!(&fresh, text, "{file}: rewrite with GRADER_REWRITE=1");
                }
                assert!(!fresh.contains("panicked"), "{file}:\n{fresh}");
            }
        }
    }
    assert_eq!(files, 10);
}
