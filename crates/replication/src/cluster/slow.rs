//! A slow mark lifted by a protocol's own transition rather than by the
//! fault call.

use sim_core::Payload;

use super::Cluster;

impl<M: Payload> Cluster<M> {
    /// Clears node `i`'s slow mark without recording `node_slow`: for a
    /// protocol transition that implies it and that the protocol records
    /// itself (an ISR replica elected leader is never slow; the election is
    /// the event). [`Cluster::set_slow`] is the fault call and records.
    pub fn lift_slow(&mut self, i: usize) {
        if !self.is_slow(i) {
            return;
        }
        // The fault call without its event: recording is suspended for it
        // alone, so no sequence number is used.
        let recording = self.trace.is_enabled();
        self.trace.set_enabled(false);
        self.set_slow(i, false);
        self.trace.set_enabled(recording);
    }
}
