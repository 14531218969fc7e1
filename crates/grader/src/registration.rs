//! A lab's protocol as the laboratory registers it: the real protocol's
//! registration (its settings, levels, node names), with every group built
//! on a student's rules, staged at the `stage` setting — so scenario
//! files, the explorer, the model checker and the debugger all run the
//! student's code, and a replay id names the stage it was found at.

use replication::{
    ExplorerRow, GroupError, Levels, Registration, ScenarioGroup, SettingDoc, SettingKind, Settings,
};
use sim_core::NodeId;

/// Builds a group from settings, deciding by the student's rules through
/// stage `stage`.
pub(crate) type Build =
    dyn Fn(&Settings, u8) -> Result<Box<dyn ScenarioGroup>, GroupError> + Send + Sync;

/// The row settings `stage_1` … `stage_9` (a row's setting is a
/// `&'static str`).
const STAGE_SETTINGS: [&str; 9] = [
    "stage_1", "stage_2", "stage_3", "stage_4", "stage_5", "stage_6", "stage_7", "stage_8",
    "stage_9",
];

/// A lab's registration.
pub(crate) struct LabRegistration {
    /// The protocol's own registration.
    pub(crate) inner: &'static dyn Registration,
    /// Its settings plus `stage`.
    pub(crate) settings: &'static [SettingDoc],
    /// How many stages the lab has.
    pub(crate) stages: u8,
    /// The rows graded at every stage (ack, read).
    pub(crate) rows: &'static [(replication::AckLevel, replication::ReadLevel)],
    /// The settings a stage's rows add (Raft's PreVote stage turns
    /// `prevote` on).
    pub(crate) extra: fn(u8) -> &'static [(&'static str, &'static str)],
    /// The group builder.
    pub(crate) build: Box<Build>,
    /// The settings this lab refuses, with why (`mode`: the fetch data
    /// plane keeps Kafka's own rules).
    pub(crate) refused: &'static [(&'static str, &'static str)],
}

/// The setting that picks the stage.
pub(crate) const STAGE: SettingDoc = SettingDoc {
    name: "stage",
    kind: SettingKind::Number,
    doc: "the lab stage whose rules the group runs: the student's functions of stages 1..=N, the reference's after it (default: the last stage)",
};

/// `settings` plus [`STAGE`], made `'static` (once per lab and process).
pub(crate) fn with_stage(settings: &[SettingDoc]) -> &'static [SettingDoc] {
    let mut all = settings.to_vec();
    all.push(STAGE);
    Box::leak(all.into_boxed_slice())
}

/// A staged implementation's name: `student (stages 1-N)`.
pub(crate) fn staged_name(n: u8) -> &'static str {
    const NAMES: [&str; 9] = [
        "student (stage 1)",
        "student (stages 1-2)",
        "student (stages 1-3)",
        "student (stages 1-4)",
        "student (stages 1-5)",
        "student (stages 1-6)",
        "student (stages 1-7)",
        "student (stages 1-8)",
        "student (stages 1-9)",
    ];
    NAMES[usize::from(n.clamp(1, 9)) - 1]
}

/// A row's setting name for stage `n`.
pub(crate) fn stage_setting(n: u8) -> &'static str {
    STAGE_SETTINGS[usize::from(n.clamp(1, 9)) - 1]
}

impl LabRegistration {
    /// The stage `settings` ask for.
    fn stage(&self, settings: &Settings) -> Result<u8, GroupError> {
        match settings.number("stage")? {
            None => Ok(self.stages),
            Some(n) if (1..=u64::from(self.stages)).contains(&n) => {
                Ok(u8::try_from(n).unwrap_or(self.stages))
            }
            Some(n) => Err(GroupError::config(
                "stage",
                format!("stage {n}: this lab's stages are 1 to {}", self.stages),
            )),
        }
    }
}

impl Registration for LabRegistration {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn summary(&self) -> &'static str {
        "a lab: this protocol's group deciding by a student's rules"
    }

    fn settings(&self) -> &'static [SettingDoc] {
        self.settings
    }

    fn check_setting(&self, key: &str, value: &str) -> Result<(), String> {
        if let Some((_, why)) = self.refused.iter().find(|(k, _)| *k == key) {
            return Err(format!("`{key}={value}`: {why}"));
        }
        self.inner.check_setting(key, value)
    }

    fn build(&self, settings: &Settings) -> Result<Box<dyn ScenarioGroup>, GroupError> {
        if let Some((key, why)) = self.refused.iter().find(|(k, _)| settings.get(k).is_some()) {
            return Err(GroupError::config(*key, *why));
        }
        let stage = self.stage(settings)?;
        (self.build)(settings, stage)
    }

    fn default_nodes(&self) -> Vec<NodeId> {
        self.inner.default_nodes()
    }

    fn nodes_with(&self, settings: &Settings) -> Vec<NodeId> {
        self.inner.nodes_with(settings)
    }

    fn levels(&self) -> Levels {
        self.inner.levels()
    }

    /// Each graded row at every stage, its setting `stage_N`.
    fn explorer_rows(&self) -> Vec<ExplorerRow> {
        let mut rows = Vec::new();
        for n in 1..=self.stages {
            let stage = n.to_string();
            for (ack, read) in self.rows {
                let mut pairs: Vec<(&str, &str)> = vec![("stage", stage.as_str())];
                pairs.extend_from_slice((self.extra)(n));
                rows.push(ExplorerRow::new(*ack, *read, stage_setting(n), &pairs));
            }
        }
        rows
    }

    fn transport(&self) -> sim_core::Transport {
        self.inner.transport()
    }

    fn explorer_knobs(&self) -> Vec<replication::Knob> {
        self.inner.explorer_knobs()
    }

    fn node_counts(&self) -> Vec<u8> {
        self.inner.node_counts()
    }
}
