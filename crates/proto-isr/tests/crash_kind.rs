//! `crash_as` names the kind of crash the bare `lose_unfsynced` bool of
//! `crash` stands for: a process crash keeps the replica's log, a power
//! loss rolls it back to its last fsync.

use proto_isr::{IsrConfig, IsrGroup};
use replication::{AckLevel, Bytes, Crash, NodeId, ReplicationGroup};

#[test]
fn crash_as_process_keeps_the_log_and_crash_as_power_loss_rolls_it_back_to_the_last_fsync() {
    let mut g = IsrGroup::new(IsrConfig::default()).expect("valid config");
    let w = g
        .client_write(
            Bytes::from_static(b"k"),
            Bytes::from_static(b"v"),
            AckLevel::AllIsr,
        )
        .expect("written");
    assert!(w.accepted);
    let (kept, lost) = (NodeId::new("node-2"), NodeId::new("node-3"));
    g.crash_as(&kept, Crash::Process).expect("crashed");
    g.crash_as(&lost, Crash::PowerLoss).expect("crashed");
    let probe = g.probe();
    let log_end = |id: &NodeId| probe.node(id).expect("a node").log_end_offset;
    assert_eq!(log_end(&kept), 1, "a process crash keeps the log");
    assert_eq!(
        log_end(&lost),
        probe.node(&lost).expect("a node").durable_offset,
        "a power loss keeps only what was fsynced"
    );
    assert_eq!(log_end(&lost), 0);
}
