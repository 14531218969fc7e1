//! Planted bugs: small, historically real Raft mistakes, compiled only with
//! the `planted` feature and switched on per group with
//! [`RaftConfig::with_planted`](crate::RaftConfig::with_planted) (scenario
//! setting `planted=NAME`). They are the explorer's positive controls: each
//! must be caught within the CI schedule budget.

use replication::PlantedBug;

/// Counting replicas to commit an entry of an older term — Figure 8 of the
/// Raft paper (§5.4.2): a leader commits an entry once a majority holds it,
/// whatever its term; a later leader may then overwrite it.
///
/// What it breaks is state machine safety (Figure 3): an entry committed
/// and applied at one index, a different one committed there later — the
/// protocol's invariant checker sees it at once. It cannot show as a lost
/// acknowledged write on its own: the entry committed early is of an
/// older term, and a write's outcome is decided by the leader that took it
/// in its own term, which had to lose that term for the log gap to form,
/// so that write already ended *unknown*. (Only deeper schedules, where a
/// follower applied several such entries and then skips acknowledged
/// entries written over them, and leads at the end, would lose one.)
pub const COMMIT_OLD_TERM: &str = "raft_commit_old_term";
/// Granting a vote without the log check (§5.4.1): a candidate missing
/// committed entries is elected and overwrites them.
pub const VOTE_IGNORES_LOG: &str = "raft_vote_ignores_log";
/// Truncating on an AppendEntries without a conflict (the paper deletes
/// only a conflicting suffix): a delayed or duplicated AppendEntries makes a
/// follower drop entries it already acknowledged.
pub const TRUNCATE_ON_STALE_APPEND: &str = "raft_truncate_on_stale_append";
/// Serving a read-index read without waiting for a majority's heartbeat
/// echo: a deposed leader answers from its stale state.
pub const READ_WITHOUT_QUORUM: &str = "raft_read_without_quorum";
/// Never granting a vote (a liveness bug): once the first leader is gone,
/// no election succeeds.
pub const NEVER_GRANT_VOTES: &str = "raft_never_grant_votes";

/// Every planted Raft bug with the explorer row and property it breaks.
pub fn bugs() -> Vec<PlantedBug> {
    let row = ("quorum", "linearizable", "default");
    vec![
        PlantedBug {
            name: COMMIT_OLD_TERM,
            doc: "commit an older term's entry by counting replicas (Figure 8, §5.4.2)",
            row,
            breaks: "invariants",
        },
        PlantedBug {
            name: VOTE_IGNORES_LOG,
            doc: "grant a vote without comparing logs (§5.4.1)",
            row,
            breaks: "durable",
        },
        PlantedBug {
            name: TRUNCATE_ON_STALE_APPEND,
            doc: "drop the suffix after a late AppendEntries that conflicts with nothing",
            row,
            breaks: "durable",
        },
        PlantedBug {
            name: READ_WITHOUT_QUORUM,
            doc: "serve a read-index read before a majority echoed the round",
            row,
            breaks: "linearizable",
        },
        PlantedBug {
            name: NEVER_GRANT_VOTES,
            doc: "never grant a vote (no election ever succeeds)",
            row,
            breaks: "recovers",
        },
    ]
}

/// [`TRUNCATE_ON_STALE_APPEND`]'s change to `handle_append` (kept here, out
/// of the protocol's files, so that mutation testing of the protocol does
/// not count mutants of test-only code): drop whatever follows the
/// message's last entry (`count` entries after `prev_log_index`), even
/// when nothing conflicts — never below the commit index, which this node
/// would notice.
pub(crate) fn truncate_after_append(
    node: &mut crate::node::RaftNode,
    prev_log_index: u64,
    count: u64,
    truncated_from: &mut Option<u64>,
) {
    let keep_through = (prev_log_index + count).max(node.commit_index);
    if keep_through < node.last_index() {
        node.truncate_from(keep_through + 1);
        *truncated_from = Some(keep_through + 1);
    }
}

/// True when the planted bug `name` is on (`planted` is the group's
/// setting); always false in a build without the `planted` feature.
#[inline]
pub(crate) fn on(planted: Option<&'static str>, name: &str) -> bool {
    cfg!(feature = "planted") && planted == Some(name)
}
