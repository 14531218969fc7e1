//! The seven experiments against `proto-wal`.

use replication::GroupError;

use crate::run::Run;

/// Every run of this protocol, in experiment order then variant order.
pub fn runs() -> Result<Vec<Run>, GroupError> {
    Ok(Vec::new())
}
