//! How chain replication presents itself to the laboratory.

use replication::{
    AckLevel, ExplorerRow, GroupError, Levels, NodeId, ReadLevel, Registration, ScenarioGroup,
    SettingDoc, SettingKind, Settings, WriteResult,
};

use crate::ChainGroup;

/// Chain replication's registration: `Protocol::new(&ChainRegistration)`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChainRegistration;

const SETTINGS: &[SettingDoc] = &[SettingDoc {
    name: "chain_length",
    kind: SettingKind::Number,
    doc: "nodes in the chain, `chain-1` … `chain-N` (default 3)",
}];

fn nodes(n: usize) -> Vec<NodeId> {
    (1..=n).map(|i| NodeId::new(format!("chain-{i}"))).collect()
}

impl Registration for ChainRegistration {
    fn name(&self) -> &'static str {
        "chain"
    }

    fn summary(&self) -> &'static str {
        "chain replication, head to tail (proto-chain, outside the workspace)"
    }

    fn settings(&self) -> &'static [SettingDoc] {
        SETTINGS
    }

    fn build(&self, settings: &Settings) -> Result<Box<dyn ScenarioGroup>, GroupError> {
        let n = settings.count("chain_length")?.unwrap_or(3);
        let seed = settings.seed()?.unwrap_or(0);
        Ok(Box::new(ChainGroup::new(nodes(n), seed)?))
    }

    fn default_nodes(&self) -> Vec<NodeId> {
        nodes(3)
    }

    fn levels(&self) -> Levels {
        Levels {
            weak_write: AckLevel::Leader,
            strong_write: AckLevel::AllIsr,
            authority_read: ReadLevel::Linearizable,
        }
    }

    /// Chain replication's own words: a write is acknowledged by the head
    /// (`HEAD`) or by the tail (`TAIL`), not by a leader or an ISR.
    fn ack_name(&self, level: AckLevel) -> &'static str {
        match level {
            AckLevel::Leader => "HEAD",
            AckLevel::AllIsr => "TAIL",
            other => other.name(),
        }
    }

    /// A read answered by the head (`HEAD`) or by the tail (`TAIL`).
    fn read_name(&self, level: ReadLevel) -> &'static str {
        match level {
            ReadLevel::Leader => "HEAD",
            ReadLevel::Linearizable => "TAIL",
            other => other.name(),
        }
    }

    fn explorer_rows(&self) -> Vec<ExplorerRow> {
        vec![
            ExplorerRow::new(AckLevel::Leader, ReadLevel::Local, "default", &[]),
            ExplorerRow::new(AckLevel::AllIsr, ReadLevel::Local, "default", &[]),
            ExplorerRow::new(AckLevel::AllIsr, ReadLevel::Linearizable, "default", &[]),
        ]
    }
}

impl ScenarioGroup for ChainGroup {
    fn catch_up(&self, node: &NodeId) -> Option<String> {
        self.catch_up_mode(node).map(str::to_owned)
    }

    fn fenced(&self) -> u64 {
        ChainGroup::fenced(self)
    }

    fn gate(&self, node: &NodeId, _level: AckLevel, write: &WriteResult) -> String {
        let (place, tail) = self.position(node);
        let seq = write.offset.unwrap_or(0);
        match place {
            Some(p) => format!(
                "position {} of the chain; the tail holds seq {tail} (write at seq {seq})",
                p + 1
            ),
            None => format!("{node} is out of the chain; the tail holds seq {tail}"),
        }
    }
}
