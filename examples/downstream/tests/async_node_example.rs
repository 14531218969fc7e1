//! proto-async's `node` module example, copied verbatim: a downstream
//! model checker drives `AsyncNode`s with `proto-async` alone, no group.

#[test]
fn async_node_module_example() {
    use proto_async::node::{AllUp, AsyncNode, NodeSettings, Output};
    use proto_async::{AckLevel, Bytes};

    let settings = NodeSettings::default();
    let mut primary = AsyncNode::primary(0, 2, settings);
    let mut replica = AsyncNode::replica(1, 2, 0, settings);
    let mut out = Vec::new();

    // A client write is applied at once; it is streamed when the tick ends.
    let offset = primary
        .write(0, Bytes::from("k"), Bytes::from("v"), AckLevel::Leader, &AllUp, &mut out)
        .unwrap();
    assert_eq!(offset, 1);
    out.clear();
    primary.tick(&AllUp, &mut out);
    let stream = out.iter().find_map(|o| match o {
        Output::Send { to: 1, msg } => Some(msg.clone()),
        _ => None,
    });

    // The replica applies it.
    out.clear();
    replica.step(1, 0, stream.expect("streamed to the replica"), &mut out);
    assert_eq!(replica.offset(), 1);
    assert_eq!(replica.get(b"k"), Some(&Bytes::from("v")));
}
