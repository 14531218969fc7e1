//! The legend of the words a matrix cell can contain, experiment by
//! experiment (the cells are built in `labs`' `observed.rs` from values the
//! protocols' probes and traces report; this is what each word means).

use std::fmt::Write as _;

use super::html::escape;

/// One word or phrase of a cell and what it means.
pub type Entry = (&'static str, &'static str);

/// Words every experiment may use.
const COMMON: &[Entry] = &[
    (
        "none",
        "the key has no value on that node (never written there, or not yet replicated)",
    ),
    ("yes / no", "the observed fact held / did not hold"),
];

const EXP1: &[Entry] = &[
    (
        "acked @N",
        "the write was acknowledged at the variant's ack level and given position N in the \
         protocol's log (Redis replication offset, PostgreSQL LSN, Kafka offset, Raft log index; \
         Raft's index counts the no-op entry a new leader appends first)",
    ),
    ("refused", "the write was not acknowledged at that level"),
    (
        "follower at ack: V",
        "what one follower held for the key at the very moment of the ack — `none` means the \
         ack came before the follower had the write (asynchronous), `v` that it already had it",
    ),
    (
        "after: V",
        "the same follower's value once the group ran until idle",
    ),
    (
        "(offsets L/F)",
        "the leader's and that follower's applied / committed position after convergence",
    ),
];

const EXP2: &[Entry] = &[
    (
        "survived",
        "after the leader crashed right after the ack and the group failed over, the new leader \
         reads the acknowledged value",
    ),
    (
        "lost",
        "the new leader does not have the acknowledged write: an acknowledged write vanished",
    ),
    (
        "new leader N reads V",
        "the node elected / promoted after the crash, and what it returns for the key",
    ),
    (
        "refused",
        "the write was not acknowledged, so there was nothing to lose",
    ),
];

const EXP3: &[Entry] = &[
    (
        "old write acked",
        "a write sent to the old leader while it was isolated in a minority was acknowledged \
         (`yes` is an acknowledged write that is later thrown away)",
    ),
    (
        "new write acked",
        "the write at the leader the majority chose was acknowledged",
    ),
    (
        "partition reads: X (old) / Y (new)",
        "during the partition, after both writes, a LOCAL read at the old leader and at the new \
         one: each side holds only its own write (the old side its dirty write where it took one; \
         a Raft old leader never commits it, so it still reads the value before)",
    ),
    (
        "fenced: N",
        "N messages of the old lineage were rejected by their receivers after heal, counted in \
         the trace: `async_message_rejected` (reason non_current_primary / stale_generation), \
         `wal_fenced` (timeline check), `isr_append_rejected` (stale_leader_epoch / \
         non_current_leader), `raft_stale_term_rejected` (lower term)",
    ),
    (
        "converged",
        "after heal every live node holds exactly the new leader's data",
    ),
    (
        "old leader now R",
        "the old leader's role after heal, read from the protocol's probe: `replica` (Redis), \
         `standby` (PostgreSQL), `follower` (Kafka ISR, Raft); `primary` / `leader` would mean it \
         still believes it leads",
    ),
    (
        "values M/N",
        "the contested key read LOCAL on the old leader / on the new leader after heal; equal \
         values mean the minority's write was discarded",
    ),
];

const EXP4: &[Entry] = &[
    (
        "write available",
        "a write at the variant's level was acknowledged while one replica was slow or cut off",
    ),
    (
        "slow replica stale",
        "the slow replica does not have that write",
    ),
    (
        "is not a voter",
        "(Redis) replicas never gate an ack: the primary answered while the replica lagged",
    ),
    (
        "async standby … does not gate commit",
        "(PostgreSQL) the lagging standby is not in synchronous_standby_names",
    ),
    (
        "synchronous standby … gates QUORUM commit",
        "(PostgreSQL) the commit waits for that standby, so the write is `refused` while it lags",
    ),
    (
        "FIRST n (…) / ANY n (…): … cut off, confirmed by […]",
        "(PostgreSQL) the variant's `synchronous_standby_names`: with one listed standby cut off, \
         the commit waits only for the first n connected (FIRST) or any n (ANY) of the list, so \
         the other listed standby confirms and the write stays available",
    ),
    (
        "removed from ISR / still in ISR",
        "(Kafka) the controller shrank the in-sync replica set after replica.lag.time.max, so the \
         slow replica no longer gates acks=all",
    ),
    (
        "ISR n below min.insync m",
        "(Kafka) after shrinking, fewer in-sync replicas than min.insync.replicas: acks=all \
         writes are refused (NotEnoughReplicas)",
    ),
    (
        "fixed voter; majority unaffected (h/v hold index i)",
        "(Raft) membership never changes; h of v voters hold entry i, a majority without the slow \
         one (`lost` if not)",
    ),
    (
        "acked / refused LSN N while it was at LSN M",
        "the answer to the write, and the slow replica's own position then",
    ),
];

const EXP5: &[Entry] = &[
    (
        "A / B",
        "the catch-up mode of a replica that reconnected after missing a few writes (inside the \
         retained window) / after missing more than the window holds (outside it)",
    ),
    (
        "partial / full",
        "(Redis) `partial`: PSYNC +CONTINUE from the primary's backlog; `full`: +FULLRESYNC, the \
         whole data set replaced",
    ),
    (
        "incremental / full",
        "(PostgreSQL, Kafka) `incremental`: the missing records re-sent from the leader's \
         retained log (wal_keep_size, log retention); `full`: a base backup / full snapshot \
         replaces the replica's state because the records it needs were removed",
    ),
    (
        "log replay",
        "(Raft) the leader re-sends the missing entries from its log, batch by batch from the \
         follower's next_index — what a follower inside the leader's retained log gets",
    ),
    (
        "snapshot",
        "(Raft) the entries the follower needs were compacted into the leader's snapshot, so the \
         leader sends InstallSnapshot: the state machine at the snapshot index replaces the \
         follower's, then log replay resumes from there",
    ),
    (
        "streaming / never",
        "no catch-up was needed: the replica followed the live stream / never received anything",
    ),
    (
        "no catch-up",
        "(Raft) the trace shows no catch-up of that follower",
    ),
];

const EXP6: &[Entry] = &[
    (
        "L / R / Z",
        "the outcome of a read of a just-written key at LOCAL (on a lagging follower) / LEADER / \
         LINEARIZABLE",
    ),
    ("stale", "served, but not the latest acknowledged value"),
    ("fresh", "served the latest acknowledged value"),
    (
        "blocked",
        "the level exists, and the protocol's authority guard refused to serve it now (ISR: the \
         leader's log end is above the high watermark)",
    ),
    (
        "unsupported",
        "the protocol has no such read level (refused before anything is tried — not the same as \
         blocked)",
    ),
];

const EXP7: &[Entry] = &[
    (
        "old LOCAL V",
        "a LOCAL read on the isolated old leader: it still serves its own, now stale, state",
    ),
    ("current V", "the same key read on the current leader"),
    (
        "guard: G",
        "what the protocol's authority guard did when a LINEARIZABLE read was tried against the \
         old leader",
    ),
    (
        "unsupported",
        "the protocol has no guard to try (no LINEARIZABLE read)",
    ),
    (
        "lease fenced",
        "(Kafka-style ISR) the node is not the controller's current leader, so its lease is not \
         honoured: the read fails closed",
    ),
    (
        "lease expired",
        "(ISR) the leader's lease ran out before the read",
    ),
    (
        "read-index fenced (no quorum)",
        "(Raft) the ReadIndex heartbeat round got no majority in time, so the cut-off leader \
         refuses to serve",
    ),
    (
        "read-index fenced (deposed)",
        "(Raft) the node lost leadership while the ReadIndex round ran",
    ),
    (
        "no current-term commit / not leader",
        "(Raft) the node has not committed an entry of its own term yet / is not a leader",
    ),
    (
        "served V",
        "the guard let the old leader answer (a split-brain read)",
    ),
    (
        "error: E",
        "trying the read failed for another reason, quoted",
    ),
];

/// The legend of experiment `experiment`'s cell words (empty for an
/// unknown number).
pub fn for_experiment(experiment: u8) -> &'static [Entry] {
    match experiment {
        1 => EXP1,
        2 => EXP2,
        3 => EXP3,
        4 => EXP4,
        5 => EXP5,
        6 => EXP6,
        7 => EXP7,
        _ => &[],
    }
}

/// The legend as a definition list.
pub fn definition_list(entries: &[Entry]) -> String {
    let mut out = String::from("<dl class=\"legend\">\n");
    for (word, meaning) in entries.iter().chain(COMMON) {
        let _ = writeln!(
            out,
            "<dt>{}</dt><dd>{}</dd>",
            escape(word),
            super::html::inline_markdown(meaning)
        );
    }
    out.push_str("</dl>\n");
    out
}

/// Every experiment's legend, one heading each.
pub fn all(experiments: &[(u8, &str)]) -> String {
    let mut out = String::new();
    for (number, title) in experiments {
        let _ = writeln!(
            out,
            "<h3 id=\"legend-{number}\">{number}. {}</h3>",
            escape(title)
        );
        out.push_str(&definition_list(for_experiment(*number)));
    }
    out
}

#[cfg(test)]
mod tests {
    use labs::Observed;

    use super::*;

    /// The phrases of `entry`'s term long enough to look for in a cell.
    fn fragments(term: &str) -> Vec<&str> {
        term.split(['…', '/', ';', '('])
            .map(|f| f.trim().trim_end_matches(')'))
            .filter(|f| f.len() >= 6)
            .collect()
    }

    /// `word` is a term of `entries` (or one of its ` / `-separated
    /// alternatives), or quoted in backticks in a meaning.
    fn explains(entries: &[Entry], word: &str) -> bool {
        entries.iter().chain(COMMON).any(|(term, meaning)| {
            term.split(" / ").any(|t| t == word)
                || meaning.split('`').skip(1).step_by(2).any(|q| q == word)
        })
    }

    #[test]
    fn every_word_a_cell_shows_is_in_its_experiments_legend() {
        let runs = labs::all_runs().expect("every experiment runs");
        for run in &runs {
            let entries = for_experiment(run.experiment);
            let words: Vec<String> = match &run.observed {
                Observed::Normal(o) => vec![if o.acked { "acked @N" } else { "refused" }.into()],
                Observed::CrashAfterAck(o) => vec![
                    match (o.acked, o.survived) {
                        (false, _) => "refused",
                        (true, true) => "survived",
                        (true, false) => "lost",
                    }
                    .into(),
                ],
                Observed::Minority(o) => vec![o.old_leader_role_after.clone()],
                Observed::Reconnect(o) => vec![o.inside_window.clone(), o.outside_window.clone()],
                Observed::Reads(o) => [o.local, o.leader, o.linearizable]
                    .iter()
                    .map(|r| r.name().to_owned())
                    .collect(),
                Observed::SplitBrain(o) => {
                    let guard = o.guard.as_str();
                    vec![match guard.split_once(' ') {
                        Some(("served", _)) => "served V".to_owned(),
                        Some(("error:", _)) => "error: E".to_owned(),
                        _ => guard.to_owned(),
                    }]
                }
                Observed::Slow(o) => {
                    let explained = for_experiment(4)
                        .iter()
                        .flat_map(|(term, _)| fragments(term))
                        .any(|f| o.membership.contains(f));
                    assert!(explained, "no legend entry explains `{}`", o.membership);
                    Vec::new()
                }
            };
            for word in words {
                assert!(
                    explains(entries, &word),
                    "experiment {} of {} ({}): `{word}` is not in its legend",
                    run.experiment,
                    run.protocol,
                    run.variant
                );
            }
        }
    }
}
