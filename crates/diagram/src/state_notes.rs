//! State notes: what the caller says changed in a node's protocol state
//! at a tick (`HW 2`, `LEO 3`, `ISR {1,3}`, `commit 4`), placed on the
//! node's lane at that tick — on a row of the tick where the lane has no
//! note yet, else joined to the lane's last note of the tick.

use super::options::StateNote;
use super::scene::{Note, NoteStyle, Scene};

impl Scene {
    /// Adds `notes` to the lanes they name (a note naming no lane, or a
    /// tick before the first row, is left out).
    pub(super) fn add_state_notes(&mut self, notes: &[StateNote]) {
        for sn in notes {
            let Some(lane) = self.lanes.iter().position(|l| *l == sn.node) else {
                continue;
            };
            let rows: Vec<usize> = (0..self.rows.len())
                .filter(|&r| self.rows[r].tick == sn.tick)
                .collect();
            let rows = if rows.is_empty() {
                match (0..self.rows.len()).rfind(|&r| self.rows[r].tick <= sn.tick) {
                    Some(r) => vec![r],
                    None => continue,
                }
            } else {
                rows
            };
            let taken = |row: usize| {
                self.notes
                    .iter()
                    .position(|n| n.lane == lane && n.row == row)
            };
            if let Some(&row) = rows.iter().rev().find(|&&r| taken(r).is_none()) {
                self.notes.push(Note {
                    row,
                    lane,
                    text: sn.text.clone(),
                    style: NoteStyle::StateLine,
                    title: sn.title.clone(),
                });
            } else if let Some(i) = rows.last().and_then(|&r| taken(r)) {
                let note = &mut self.notes[i];
                note.text.push_str(" · ");
                note.text.push_str(&sn.text);
                note.title.push('\n');
                note.title.push_str(&sn.title);
            }
        }
    }
}
