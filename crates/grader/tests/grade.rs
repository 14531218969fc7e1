//! Grading, the quick cases (a debug build): an untouched skeleton fails
//! stage 1 clearly and runs nothing else; the lab protocol refuses what it
//! cannot grade. `cargo xtask lab calibrate` (in `.ci/run`) grades every
//! stage of the reference and of each classic mistake, optimized.

use grader::{Lab, Outcome, grade, skeleton_student};
use replication::Settings;

#[test]
fn an_untouched_skeleton_fails_stage_one_naming_the_todo_and_runs_nothing_else() {
    for lab in Lab::ALL {
        let stages = lab.stages();
        let report = grade(skeleton_student(lab), &stages[0]);
        assert!(!report.passed());
        let (_, why) = report.first_failure().expect("a failure");
        assert!(
            why.starts_with("not written yet: the `todo!()` at ")
                && why.contains(&format!("templates/{}/lib.rs:", lab.name())),
            "{why}"
        );
        for (name, outcome) in &report.checks {
            let is_unit = !["scenario", "explorer", "model checker"]
                .iter()
                .any(|k| name.starts_with(k));
            assert_eq!(
                matches!(outcome, Outcome::Skipped(_)),
                !is_unit,
                "{name}: {outcome:?}"
            );
        }
        let rendered = report.render();
        assert!(rendered.contains("  FAIL  "), "{rendered}");
        assert!(rendered.ends_with("checks passed\n"), "{rendered}");
        assert!(
            !rendered.contains("panicked at"),
            "no panic trace: {rendered}"
        );
    }
}

#[test]
fn the_lab_protocol_refuses_the_fetch_data_plane_planted_bugs_and_unknown_stages() {
    let registry = grader::registry(skeleton_student(Lab::Isr));
    let isr = registry.named("isr").expect("the lab's protocol");
    let build = |pairs: &[(&str, &str)]| {
        isr.registration()
            .build(&Settings::from_pairs(pairs))
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let fetch = build(&[("mode", "fetch")]).expect_err("refused");
    assert!(fetch.contains("mode") && fetch.contains("fetch"), "{fetch}");
    let planted = build(&[("planted", "isr_hw_from_leader")]).expect_err("refused");
    assert!(planted.contains("planted"), "{planted}");
    let stage = build(&[("stage", "6")]).expect_err("refused");
    assert!(
        stage.contains("stage 6") && stage.contains("1 to 5"),
        "{stage}"
    );
    build(&[("stage", "5")]).expect("stage 5 builds");
    assert!(
        isr.registration()
            .check_setting("mode", "fetch")
            .is_err_and(|e| e.contains("keeps its own rules")),
        "a scenario file is told at parse time"
    );
}

#[test]
fn every_row_names_its_stage_and_stage_four_of_raft_runs_pre_vote() {
    let registry = grader::registry(skeleton_student(Lab::Raft));
    let rows = registry.protocols()[0].registration().explorer_rows();
    let settings: Vec<&str> = rows.iter().map(|r| r.setting).collect();
    assert_eq!(settings, ["stage_1", "stage_2", "stage_3", "stage_4"]);
    assert_eq!(rows[3].settings.get("pre_vote"), Some("true"));
    assert_eq!(rows[2].settings.get("pre_vote"), None);
    assert_eq!(rows[3].settings.get("stage"), Some("4"));
}
