//! A space-time diagram of a tiny hand-made trace: a leader replicates one
//! write to two followers (one append is dropped by a partition), a client
//! writes, reads the key back from the leader, then reads it from the
//! follower that missed the write (a stale read, drawn in the bad tone).
//!
//! Run: `cargo run -p sim-diagram --example hand_made_trace > trace.svg`, then
//! open `trace.svg` in a browser.

use bytes::Bytes;
use sim_core::{NodeId, Trace, record};

fn main() {
    let (n1, n2, n3) = (NodeId::new("n1"), NodeId::new("n2"), NodeId::new("n3"));
    let (key, value) = (Bytes::from_static(b"k"), Bytes::from_static(b"v1"));
    let mut trace = Trace::new();
    record!(
        trace,
        0,
        "demo_group_started",
        nodes = vec![n1.clone(), n2.clone(), n3.clone()],
        leader = &n1,
        term = 1u64
    );
    record!(
        trace,
        0,
        "client_op_submitted",
        op = 1u64,
        kind = "write",
        key = key.clone(),
        value = value.clone(),
        level = "QUORUM",
        node = &n1
    );
    for (id, follower) in [(0u64, &n2), (1, &n3)] {
        record!(
            trace,
            0,
            "message_sent",
            id = id,
            src = &n1,
            dst = follower,
            msg = "append"
        );
    }
    record!(
        trace,
        0,
        "message_dropped",
        id = 1u64,
        src = &n1,
        dst = &n3,
        msg = "append",
        reason = "partition"
    );
    record!(
        trace,
        1,
        "message_delivered",
        id = 0u64,
        src = &n1,
        dst = &n2,
        msg = "append"
    );
    record!(
        trace,
        1,
        "message_sent",
        id = 2u64,
        src = &n2,
        dst = &n1,
        msg = "append_ok"
    );
    record!(
        trace,
        2,
        "message_delivered",
        id = 2u64,
        src = &n2,
        dst = &n1,
        msg = "append_ok"
    );
    record!(
        trace,
        2,
        "client_op_completed",
        op = 1u64,
        outcome = "done",
        node = &n1,
        index = 1u64
    );
    record!(
        trace,
        3,
        "client_op_submitted",
        op = 2u64,
        kind = "read",
        key = key.clone(),
        level = "LEADER",
        node = &n1
    );
    record!(
        trace,
        3,
        "client_op_completed",
        op = 2u64,
        outcome = "done",
        node = &n1,
        value = value
    );
    // n3 missed the append: a LOCAL read there returns nothing, although
    // the write was acknowledged before the read began — drawn stale.
    let nothing: Option<Bytes> = None;
    record!(
        trace,
        4,
        "client_op_submitted",
        op = 3u64,
        kind = "read",
        key = key.clone(),
        value = nothing.clone(),
        level = "LOCAL",
        node = &n3
    );
    record!(
        trace,
        4,
        "demo_read_served",
        node = &n3,
        level = "LOCAL",
        key = key.clone(),
        value = nothing.clone()
    );
    record!(
        trace,
        4,
        "client_op_completed",
        op = 3u64,
        outcome = "done",
        node = &n3,
        value = nothing
    );
    let options = diagram::DiagramOptions::titled("a hand-made trace");
    print!("{}", diagram::render_svg(&trace, &options));
}
