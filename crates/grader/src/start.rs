//! `lab start`: a student's crate, written from the lab's templates — the
//! decision functions as `todo!()`, a `main` that serves the laboratory's
//! command line on them, and the scenario files the grader runs.

use std::path::{Path, PathBuf};

use crate::lab::Lab;

/// What a lab's crate is made of.
struct Template {
    crate_name: &'static str,
    module: &'static str,
    variant: &'static str,
    protocol: &'static str,
    title: &'static str,
    lib: &'static str,
}

fn template(lab: Lab) -> Template {
    match lab {
        Lab::Isr => Template {
            crate_name: "isr-lab",
            module: "isr_lab",
            variant: "Isr",
            protocol: "proto-isr",
            title: "the ISR chapter's rules",
            lib: include_str!("../templates/isr/lib.rs"),
        },
        Lab::Raft => Template {
            crate_name: "raft-lab",
            module: "raft_lab",
            variant: "Raft",
            protocol: "proto-raft",
            title: "Raft's rules",
            lib: include_str!("../templates/raft/lib.rs"),
        },
    }
}

/// The untouched skeleton of `lab`'s decision functions (`src/lib.rs`).
#[must_use]
pub fn skeleton(lab: Lab) -> &'static str {
    template(lab).lib
}

/// Writes `lab`'s student crate into `dir` (created; it must not exist or
/// be empty), depending on the laboratory checkout at `workspace` by
/// path. Answers the files written.
pub fn start(lab: Lab, dir: &Path, workspace: &Path) -> Result<Vec<PathBuf>, String> {
    if dir.exists()
        && std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .next()
            .is_some()
    {
        return Err(format!(
            "{} exists and is not empty: a lab starts in a new directory",
            dir.display()
        ));
    }
    let t = template(lab);
    let workspace = workspace.display().to_string();
    let fill = |text: &str| {
        text.replace("{{WORKSPACE}}", &workspace)
            .replace("{{CRATE_NAME}}", t.crate_name)
            .replace("{{PROTOCOL}}", t.protocol)
            .replace("{{LAB_TITLE}}", t.title)
            .replace("{{LAB}}", t.variant)
            .replace("{{CRATE}}", t.module)
    };
    let mut files: Vec<(PathBuf, String)> = vec![
        (
            "Cargo.toml".into(),
            fill(include_str!("../templates/Cargo.toml.in")),
        ),
        (
            ".cargo/config.toml".into(),
            fill(include_str!("../templates/config.toml.in")),
        ),
        ("src/lib.rs".into(), t.lib.to_owned()),
        (
            "src/main.rs".into(),
            fill(include_str!("../templates/main.rs")),
        ),
        ("README.md".into(), readme(lab, t.crate_name)),
    ];
    for stage in lab.stages() {
        for check in &stage.checks {
            if let crate::stage::Check::Scenario { file, text } = check {
                files.push((Path::new("scenarios").join(file), (*text).to_owned()));
            }
        }
    }
    // The checkout's lock file: the same dependency versions, no network.
    if let Ok(lock) = std::fs::read_to_string(Path::new(&workspace).join("Cargo.lock")) {
        files.push(("Cargo.lock".into(), lock));
    }
    let mut written = Vec::new();
    for (path, text) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// The crate's README: what to do, and the commands.
fn readme(lab: Lab, crate_name: &str) -> String {
    let mut out = format!(
        "# {crate_name}\n\nA MiniDist lab: rebuild {}, stage by stage. Write the functions of \
         `src/lib.rs`; each says what to answer and where to read about it.\n\n\
         ```sh\ncargo run --release -- lab grade --stage 1   # grade one stage\n\
         cargo run --release -- lab grade              # every stage, in order\n\
         cargo run --release -- run scenarios/FILE     # one scenario file, on your protocol\n\
         cargo run --release -- --help                 # every command of the laboratory\n```\n\n## Stages\n\n",
        template(lab).title
    );
    for stage in lab.stages() {
        out.push_str(&format!(
            "{}. {} ({}): `{}`\n",
            stage.number,
            stage.title,
            stage.reading,
            stage.functions.join("`, `")
        ));
    }
    out
}
