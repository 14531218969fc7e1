//! The colours of the picture, shared by every drawing module: ink, the
//! marks of faults and roles, and the colour of each [`Tone`].

use super::classify::Tone;

pub(super) const INK: &str = "#1a202c";
pub(super) const MUTED: &str = "#718096";
pub(super) const FAINT: &str = "#e2e8f0";
pub(super) const ROLE: &str = "#6b46c1";
pub(super) const DROP: &str = "#dd6b20";
pub(super) const REJECT: &str = "#c53030";
pub(super) const CRASHED: &str = "#a0aec0";
pub(super) const ISOLATED: &str = "#fbd38d";
pub(super) const STATE_LINE: &str = "#2c7a7b";

/// The colour of a tone.
pub(super) fn tone_colour(tone: Tone) -> &'static str {
    match tone {
        Tone::Info => "#2b6cb0",
        Tone::Ok => "#2f855a",
        Tone::Bad => "#c53030",
        Tone::Unknown => "#b7791f",
    }
}
