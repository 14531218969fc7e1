//! Planted bugs: positive controls for the explorer.
//!
//! A planted bug is a small, named, historically real protocol mistake
//! compiled into a protocol crate only with its `planted` cargo feature and
//! switched on for one group by the `planted=NAME` scenario setting. The
//! explorer must catch each one — break the property it names — within its
//! CI schedule budget, while the unchanged protocol keeps that property:
//! a measure of how hard the search looks, not a claim it makes.

/// One planted bug of a protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlantedBug {
    /// The `planted=` value (`raft_commit_old_term`).
    pub name: &'static str,
    /// What the change is, and where it was seen for real.
    pub doc: &'static str,
    /// The explorer row it is swept on: `(ack, read, setting)` in snake
    /// case, as the row's key names them (`quorum`, `linearizable`,
    /// `default`).
    pub row: (&'static str, &'static str, &'static str),
    /// The property it must break (`durable`, `linearizable`,
    /// `invariants`, `recovers`, `available`).
    pub breaks: &'static str,
}

/// The `'static` name of `name` among `bugs`, or the marker `"unknown"`
/// that [`check_planted`] refuses (a config's `with_planted`).
pub fn planted_name(bugs: &[PlantedBug], name: &str) -> &'static str {
    bugs.iter()
        .map(|b| b.name)
        .find(|n| *n == name)
        .unwrap_or("unknown")
}

/// Checks a config's planted bug: [`GroupError::Config`](crate::GroupError::Config) naming the
/// `planted` setting when the crate (`krate`) was built without its
/// `planted` feature (`compiled` false) or the name is unknown.
pub fn check_planted(
    planted: Option<&'static str>,
    bugs: &[PlantedBug],
    compiled: bool,
    krate: &str,
) -> Result<(), crate::GroupError> {
    let Some(name) = planted else {
        return Ok(());
    };
    if !compiled {
        return Err(crate::GroupError::config(
            "planted",
            format!("planted bugs are compiled only with {krate}'s `planted` feature"),
        ));
    }
    if !bugs.iter().any(|b| b.name == name) {
        let known: Vec<&str> = bugs.iter().map(|b| b.name).collect();
        return Err(crate::GroupError::config(
            "planted",
            format!("no such planted bug (known: {})", known.join(", ")),
        ));
    }
    Ok(())
}
