//! Role, epoch, term and timeline notes: who leads, follows or was
//! promoted, in which era, read from the kinds of group-start, election,
//! promotion, demotion and membership events.

use sim_core::{EventRef, Value};

use super::text::{field, field_node, field_text, field_uint, show};

/// The era an event names: `term 3`, `epoch 2`, `timeline 2`, `gen 2`.
fn era(event: &EventRef<'_>) -> Option<String> {
    const ERAS: [(&str, &str); 6] = [
        ("term", "term"),
        ("leader_epoch", "epoch"),
        ("new_timeline", "timeline"),
        ("timeline", "timeline"),
        ("generation", "gen"),
        ("epoch", "epoch"),
    ];
    ERAS.iter()
        .find_map(|(key, name)| field_uint(event, key).map(|v| format!("{name} {v}")))
}

/// `role (era)` or `role`.
fn role(role: &str, era: &Option<String>) -> String {
    match era {
        Some(era) => format!("{role} ({era})"),
        None => role.to_owned(),
    }
}

fn nodes_in(event: &EventRef<'_>, key: &str) -> Vec<String> {
    match field(event, key) {
        Some(Value::List(items)) => items
            .iter()
            .filter_map(|v| match v {
                Value::Node(n) => Some(n.as_str().to_owned()),
                _ => None,
            })
            .collect(),
        Some(Value::Node(n)) => vec![n.as_str().to_owned()],
        _ => Vec::new(),
    }
}

/// Role, epoch, term and timeline notes.
pub(super) fn notes(event: &EventRef<'_>) -> Vec<(String, String)> {
    let kind = event.kind;
    let era = era(event);
    let node = field_node(event, "node");
    let on_node = |text: String| node.clone().map(|n| vec![(n, text)]).unwrap_or_default();
    if kind.ends_with("_group_started") || kind.ends_with("_group_created") {
        return group_notes(event, &era);
    }
    if kind.ends_with("_controller_elected") {
        return match field_node(event, "leader") {
            Some(leader) => vec![(leader, role("leader", &era))],
            None => Vec::new(),
        };
    }
    let follows = |leader_key: &str| {
        let leader = field_node(event, leader_key).unwrap_or_else(|| "?".into());
        role(&format!("follows {leader}"), &era)
    };
    let text = if kind.ends_with("_leader_elected") {
        role("leader", &era)
    } else if kind.ends_with("_election_started") {
        role("candidate", &era)
    } else if kind.ends_with("_term_adopted") {
        match field_text(event, "was").as_deref() {
            Some(was) if was != "follower" => role(&format!("{was} → follower"), &era),
            _ => role("follower", &era),
        }
    } else if kind.ends_with("_leader_learned") || kind.ends_with("_leader_discovered") {
        follows("leader")
    } else if kind.ends_with("_promoted") {
        role("primary", &era)
    } else if kind.ends_with("_primary_demoted") {
        role(
            &format!(
                "demoted, follows {}",
                field_text(event, "new_primary").unwrap_or_else(|| "?".into())
            ),
            &era,
        )
    } else if kind.ends_with("_demoted")
        || kind.ends_with("_replica_reconfigured")
        || kind.ends_with("_following_changed")
    {
        follows("primary")
    } else if kind.ends_with("_member_removed") {
        match field_text(event, "reason") {
            Some(reason) => format!("out of ISR ({reason})"),
            None => "out of ISR".to_owned(),
        }
    } else if kind.ends_with("_member_added") {
        "back in ISR".to_owned()
    } else if kind.ends_with("_power_loss") {
        let lost = field(event, "lost").map(|v| show(&v)).unwrap_or_default();
        format!("power loss: {lost} unflushed lost")
    } else if kind.ends_with("_unclean_restart") {
        "unclean shutdown: out of ISR and ELR".to_owned()
    } else if kind.ends_with("_log_truncated") {
        let above = field(event, "above").map(|v| show(&v)).unwrap_or_default();
        match field_text(event, "reason") {
            Some(reason) => format!("log truncated above {above} ({reason})"),
            None => format!("log truncated above {above}"),
        }
    } else {
        return Vec::new();
    };
    on_node(text)
}

/// The roles a group starts with.
fn group_notes(event: &EventRef<'_>, era: &Option<String>) -> Vec<(String, String)> {
    let mut notes = Vec::new();
    let leader = field_node(event, "leader");
    if let Some(leader) = &leader {
        notes.push((leader.clone(), role("leader", era)));
    }
    if let Some(primary) = field_node(event, "primary") {
        notes.push((primary, role("primary", era)));
    }
    let synchronous = nodes_in(event, "synchronous_standbys");
    for standby in nodes_in(event, "standbys") {
        let text = if synchronous.contains(&standby) {
            "sync standby"
        } else {
            "standby"
        };
        notes.push((standby, text.to_owned()));
    }
    for replica in nodes_in(event, "replicas") {
        notes.push((replica, "replica".to_owned()));
    }
    for node in nodes_in(event, "nodes") {
        if Some(&node) != leader.as_ref() {
            notes.push((node, "follower".to_owned()));
        }
    }
    notes
}
