//! The compact storage behind [`Trace`](crate::Trace): fields encoded as
//! bytes, with keys, kinds, static text and node ids interned.
//!
//! A field is `key-id value`; a value is a tag byte and a payload:
//! unsigned LEB128 integers, zig-zag for negatives, interned ids for static
//! text and nodes, length-prefixed bytes for byte strings and owned text.
//! An event of five small fields takes about 20 bytes instead of about 350
//! as boxed values, which is what keeps a traced run of a million events
//! cheap in page faults and cache misses.

use std::borrow::Cow;
use std::collections::HashMap;

use bytes::Bytes;

use crate::node::NodeId;
use crate::trace::value::Value;

const ABSENT: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UINT: u8 = 3;
const INT: u8 = 4;
const STR_ID: u8 = 5;
const STR_INLINE: u8 = 6;
const NODE: u8 = 7;
const BYTES: u8 = 8;
const LIST: u8 = 9;

/// The static-text table's first size (a power of two; it doubles when half
/// full): a run's trace uses 60-90 literals, which fit without a doubling
/// in 4 KiB.
const TEXT_TABLE_BITS: u32 = 8;
/// Up to this many nodes, a node's id is found by scanning the interned
/// nodes (a handful: a pointer comparison each, and no table to build per
/// run); past it, by name in a map.
const SCANNED_NODES: usize = 16;

/// Fibonacci hashing of an address into a table of `2^bits` slots.
#[inline]
fn slot(addr: usize, bits: u32) -> usize {
    ((addr as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

/// One slot of the static-text table: a literal's address and length and
/// its id (address 0, never a `&'static str`'s, marks an empty slot). A
/// text longer than `u32::MAX` bytes is interned by value instead.
type TextSlot = (usize, u32, u32);

/// A small multiplicative hasher for the interner's fallback maps (their
/// keys are addresses and short names; iteration order is never used).
#[derive(Default, Clone, Copy)]
struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0.rotate_left(5) ^ n as u64).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
    }
}

type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

/// Interned texts (event kinds, field keys, static text values) and nodes.
#[derive(Debug, Clone)]
pub(crate) struct Interner {
    texts: Vec<Cow<'static, str>>,
    /// `'static` texts by address, open addressing with linear probing
    /// (`2^text_bits` slots, at most half full).
    text_table: Vec<TextSlot>,
    text_bits: u32,
    statics: usize,
    text_by_value: FastMap<Box<str>, u32>,
    pub(crate) nodes: Vec<NodeId>,
    /// Node ids by name, once there are more than [`SCANNED_NODES`].
    node_by_name: FastMap<NodeId, u32>,
    /// The lookup tables were released ([`Interner::release_lookups`]):
    /// the next miss rebuilds them from `texts` and `nodes`.
    released: bool,
}

/// Empty and allocation-free: a trace that is switched off, or moved out
/// and replaced, never pays for tables it does not fill. The caches are
/// allocated by the first event that needs them.
impl Default for Interner {
    fn default() -> Self {
        Interner {
            texts: Vec::new(),
            text_table: Vec::new(),
            text_bits: TEXT_TABLE_BITS,
            statics: 0,
            text_by_value: FastMap::default(),
            nodes: Vec::new(),
            node_by_name: FastMap::default(),
            released: false,
        }
    }
}

impl Interner {
    /// The id of a text; `'static` texts are recognised by address first.
    #[allow(clippy::ptr_arg)] // the Cow's variant is what tells static from owned text
    #[inline]
    pub(crate) fn text(&mut self, text: &Cow<'static, str>) -> u32 {
        match text {
            Cow::Borrowed(s) => self.static_text(s),
            Cow::Owned(s) => self.owned_text(s),
        }
    }

    /// The id of a `'static` text: a hit in its home slot (nearly every
    /// event's kind and keys, after their first use) is inlined; the rest
    /// is [`Interner::static_text_probe`].
    #[inline]
    pub(crate) fn static_text(&mut self, text: &'static str) -> u32 {
        let (addr, len) = (text.as_ptr() as usize, text.len() as u32);
        if let Some(&(at, at_len, id)) = self.text_table.get(slot(addr, self.text_bits))
            && at == addr
            && at_len == len
            && text.len() <= u32::MAX as usize
        {
            return id;
        }
        self.static_text_probe(text)
    }

    /// [`Interner::static_text`] past the home slot: probes on, and adds
    /// the text when it is new.
    #[cold]
    #[inline(never)]
    fn static_text_probe(&mut self, text: &'static str) -> u32 {
        if self.released {
            self.restore_lookups();
        }
        let Ok(len) = u32::try_from(text.len()) else {
            return self.owned_text(text);
        };
        let addr = text.as_ptr() as usize;
        if let Some(id) = self.find_static(addr, len) {
            return id;
        }
        let id = self.texts.len() as u32;
        self.texts.push(Cow::Borrowed(text));
        self.insert_static(addr, len, id);
        id
    }

    /// The id of the static text at `addr` of `len` bytes, probing from its
    /// home slot.
    fn find_static(&self, addr: usize, len: u32) -> Option<u32> {
        if self.text_table.is_empty() {
            return None;
        }
        let mask = self.text_table.len() - 1;
        let mut at = slot(addr, self.text_bits);
        loop {
            match self.text_table[at] {
                (a, l, id) if a == addr && l == len => return Some(id),
                (0, _, _) => return None,
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Adds a static text (not in the table) under `id`; the table is
    /// allocated by the first text and doubles when half full.
    fn insert_static(&mut self, addr: usize, len: u32, id: u32) {
        if self.text_table.is_empty() {
            self.text_bits = TEXT_TABLE_BITS;
            self.text_table = vec![(0, 0, 0); 1 << TEXT_TABLE_BITS];
            self.texts.reserve(128);
        }
        self.place((addr, len, id));
        self.statics += 1;
        if self.statics * 2 > self.text_table.len() {
            self.grow_text_table();
        }
    }

    /// Doubles the static-text table, re-placing every text.
    fn grow_text_table(&mut self) {
        self.text_bits += 1;
        let old = std::mem::replace(&mut self.text_table, vec![(0, 0, 0); 1 << self.text_bits]);
        for entry in old.into_iter().filter(|e| e.0 != 0) {
            self.place(entry);
        }
    }

    /// Puts `entry` in the first empty slot from its home slot on.
    fn place(&mut self, entry: TextSlot) {
        let mask = self.text_table.len() - 1;
        let mut at = slot(entry.0, self.text_bits);
        while self.text_table[at].0 != 0 {
            at = (at + 1) & mask;
        }
        self.text_table[at] = entry;
    }

    /// Frees what only recording needs — the lookup tables and spare
    /// capacity — keeping every id: a finished run's trace is read, not
    /// appended to. A later event rebuilds the tables first.
    pub(crate) fn release_lookups(&mut self) {
        self.text_table = Vec::new();
        self.text_bits = TEXT_TABLE_BITS;
        self.statics = 0;
        self.text_by_value = FastMap::default();
        self.node_by_name = FastMap::default();
        self.texts.shrink_to_fit();
        self.nodes.shrink_to_fit();
        self.released = !self.texts.is_empty() || !self.nodes.is_empty();
    }

    /// Rebuilds the lookup tables [`Interner::release_lookups`] freed.
    #[cold]
    fn restore_lookups(&mut self) {
        self.released = false;
        for id in 0..self.texts.len() {
            match &self.texts[id] {
                Cow::Borrowed(s) => {
                    // Every static text here fit a slot when it was added.
                    let (addr, len) = (s.as_ptr() as usize, s.len() as u32);
                    self.insert_static(addr, len, id as u32);
                }
                Cow::Owned(s) => {
                    let key: Box<str> = s.as_str().into();
                    self.text_by_value.insert(key, id as u32);
                }
            }
        }
        if self.nodes.len() > SCANNED_NODES {
            for (id, node) in self.nodes.iter().enumerate() {
                self.node_by_name.insert(node.clone(), id as u32);
            }
        }
    }

    fn owned_text(&mut self, text: &str) -> u32 {
        if self.released {
            self.restore_lookups();
        }
        if let Some(&id) = self.text_by_value.get(text) {
            return id;
        }
        let id = self.texts.len() as u32;
        self.texts.push(Cow::Owned(text.to_owned()));
        self.text_by_value.insert(text.into(), id);
        id
    }

    /// The id of a node: a clone of an id seen before is found by its
    /// shared name's address among the first few nodes (inlined); the rest
    /// is [`Interner::node_missed`]. (`nodes` holds a clone of each, so no
    /// address is reused by another name while the interner lives.)
    #[inline]
    pub(crate) fn node(&mut self, node: &NodeId) -> u32 {
        if let Some(i) = self
            .nodes
            .iter()
            .take(SCANNED_NODES)
            .position(|n| n.same(node))
        {
            return i as u32;
        }
        self.node_missed(node)
    }

    /// [`Interner::node`] of a node not found by address: by name, or new.
    #[cold]
    #[inline(never)]
    fn node_missed(&mut self, node: &NodeId) -> u32 {
        if self.released {
            self.restore_lookups();
        }
        if self.nodes.len() <= SCANNED_NODES {
            if let Some(i) = self.nodes.iter().position(|n| n == node) {
                return i as u32;
            }
        } else if let Some(&id) = self.node_by_name.get(node) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(node.clone());
        if self.nodes.len() > SCANNED_NODES {
            if self.node_by_name.is_empty() {
                for (i, n) in self.nodes.iter().enumerate() {
                    self.node_by_name.insert(n.clone(), i as u32);
                }
            } else {
                self.node_by_name.insert(node.clone(), id);
            }
        }
        id
    }

    /// Every id under which `text` is interned: usually one, more when the
    /// same words are static text at two addresses, or also owned.
    pub(crate) fn ids_of(&self, text: &str) -> TextIds {
        let mut ids = TextIds::None;
        for (id, t) in self.texts.iter().enumerate() {
            if t.as_ref() == text {
                ids = match ids {
                    TextIds::None => TextIds::One(id as u32),
                    TextIds::One(first) => TextIds::Many(vec![first, id as u32]),
                    TextIds::Many(mut all) => {
                        all.push(id as u32);
                        TextIds::Many(all)
                    }
                };
            }
        }
        ids
    }

    /// The text with id `id` (ids only come from this interner).
    pub(crate) fn text_of(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("?", |t| t.as_ref())
    }

    fn cow_of(&self, id: u32) -> Cow<'static, str> {
        self.texts
            .get(id as usize)
            .cloned()
            .unwrap_or(Cow::Borrowed("?"))
    }

    fn node_of(&self, id: u32) -> NodeId {
        self.nodes
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| NodeId::new("?"))
    }
}

/// The ids of one text ([`Interner::ids_of`]).
#[derive(Debug, Clone)]
pub(crate) enum TextIds {
    None,
    One(u32),
    Many(Vec<u32>),
}

impl TextIds {
    /// True when `id` is one of them.
    #[inline]
    pub(crate) fn contains(&self, id: u32) -> bool {
        match self {
            TextIds::None => false,
            TextIds::One(one) => *one == id,
            TextIds::Many(all) => all.contains(&id),
        }
    }
}

impl PartialEq for Interner {
    // Two traces are compared by their decoded events, never by how their
    // tables happen to be laid out.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Interner {}

#[inline]
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends an unsigned integer value.
#[inline]
pub(crate) fn put_uint(out: &mut Vec<u8>, v: u64) {
    out.push(UINT);
    put_varint(out, v);
}

/// Appends a signed integer value (non-negative ones as unsigned, as
/// `Value::from(i64)` does).
#[inline]
pub(crate) fn put_int(out: &mut Vec<u8>, v: i64) {
    match u64::try_from(v) {
        Ok(u) => put_uint(out, u),
        Err(_) => {
            out.push(INT);
            put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
        }
    }
}

/// Appends a boolean value.
#[inline]
pub(crate) fn put_bool(out: &mut Vec<u8>, v: bool) {
    out.push(if v { TRUE } else { FALSE });
}

/// Appends an absent value.
#[inline]
pub(crate) fn put_absent(out: &mut Vec<u8>) {
    out.push(ABSENT);
}

/// Appends a `'static` text value (interned).
#[inline]
pub(crate) fn put_static_str(out: &mut Vec<u8>, interner: &mut Interner, s: &'static str) {
    out.push(STR_ID);
    put_varint(out, u64::from(interner.static_text(s)));
}

/// Appends an owned text value (inline).
#[inline]
pub(crate) fn put_owned_str(out: &mut Vec<u8>, s: &str) {
    out.push(STR_INLINE);
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends a node value (interned).
#[inline]
pub(crate) fn put_node(out: &mut Vec<u8>, interner: &mut Interner, n: &NodeId) {
    out.push(NODE);
    put_varint(out, u64::from(interner.node(n)));
}

/// Appends a byte-string value.
#[inline]
pub(crate) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.push(BYTES);
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends a list's header; its `len` items follow.
#[inline]
pub(crate) fn put_list_header(out: &mut Vec<u8>, len: usize) {
    out.push(LIST);
    put_varint(out, len as u64);
}

/// Appends one encoded value.
#[inline]
pub(crate) fn encode_value(out: &mut Vec<u8>, interner: &mut Interner, value: &Value) {
    match value {
        Value::Absent => put_absent(out),
        Value::Bool(v) => put_bool(out, *v),
        Value::UInt(v) => put_uint(out, *v),
        Value::Int(v) => {
            out.push(INT);
            put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
        }
        Value::Str(Cow::Borrowed(s)) => put_static_str(out, interner, s),
        Value::Str(Cow::Owned(s)) => put_owned_str(out, s),
        Value::Node(n) => put_node(out, interner, n),
        Value::Bytes(b) => put_bytes(out, b),
        Value::List(items) => encode_list(out, interner, items),
    }
}

/// Appends an encoded list (kept out of line: [`encode_value`] is inlined).
#[inline(never)]
fn encode_list(out: &mut Vec<u8>, interner: &mut Interner, items: &[Value]) {
    put_list_header(out, items.len());
    for item in items {
        encode_value(out, interner, item);
    }
}

/// Reads encoded values back. Input only ever comes from `encode_value`,
/// so malformed input decodes to `Absent` rather than panicking.
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) interner: &'a Interner,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&first, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(first)
    }

    pub(crate) fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f).checked_shl(shift)?;
            if b < 0x80 {
                return Some(v);
            }
            shift += 7;
        }
    }

    fn slice(&mut self) -> Option<&'a [u8]> {
        let len = self.varint()? as usize;
        let (head, rest) = (self.bytes.get(..len)?, self.bytes.get(len..)?);
        self.bytes = rest;
        Some(head)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Decodes the next value.
    pub(crate) fn value(&mut self) -> Option<Value> {
        Some(match self.byte()? {
            ABSENT => Value::Absent,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            UINT => Value::UInt(self.varint()?),
            INT => {
                let z = self.varint()?;
                Value::Int(((z >> 1) as i64) ^ -((z & 1) as i64))
            }
            STR_ID => Value::Str(self.interner.cow_of(self.varint()? as u32)),
            STR_INLINE => Value::Str(Cow::Owned(
                String::from_utf8_lossy(self.slice()?).into_owned(),
            )),
            NODE => Value::Node(self.interner.node_of(self.varint()? as u32)),
            BYTES => Value::Bytes(Bytes::copy_from_slice(self.slice()?)),
            LIST => {
                let n = self.varint()?;
                let mut items = Vec::with_capacity(n.min(64) as usize);
                for _ in 0..n {
                    items.push(self.value()?);
                }
                Value::List(items)
            }
            _ => return None,
        })
    }

    /// The next value if it is a node, without cloning it.
    pub(crate) fn node_value(&mut self) -> Option<&'a NodeId> {
        if *self.bytes.first()? != NODE {
            self.value()?;
            return None;
        }
        self.byte()?;
        let id = self.varint()? as usize;
        self.interner.nodes.get(id)
    }

    /// The next value if it is text, without allocating.
    pub(crate) fn text_value(&mut self) -> Option<&'a str> {
        match *self.bytes.first()? {
            STR_ID => {
                self.byte()?;
                let id = self.varint()? as u32;
                Some(self.interner.text_of(id))
            }
            STR_INLINE => {
                self.byte()?;
                std::str::from_utf8(self.slice()?).ok()
            }
            _ => {
                self.value()?;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Far more literals than the table's first size: every one keeps its
    /// id through the doublings, and the same text at another address (or
    /// a prefix at the same address) is another text.
    #[test]
    fn the_static_text_table_keeps_every_id_as_it_grows() {
        let texts: Vec<&'static str> = (0..1000)
            .map(|i| &*Box::leak(format!("text-{i}").into_boxed_str()))
            .collect();
        let mut interner = Interner::default();
        let ids: Vec<u32> = texts.iter().map(|t| interner.static_text(t)).collect();
        assert_eq!(ids, (0..1000).collect::<Vec<u32>>());
        for (t, id) in texts.iter().zip(&ids) {
            assert_eq!(interner.static_text(t), *id);
            assert_eq!(interner.text_of(*id), *t);
        }
        let prefix: &'static str = &texts[7][..5];
        let copy: &'static str = Box::leak(texts[7].to_owned().into_boxed_str());
        assert_eq!(interner.static_text(prefix), 1000);
        assert_eq!(interner.static_text(copy), 1001);
        assert_eq!(interner.text_of(1000), "text-");
        assert!(interner.text_table.len() >= 2 * 1002);
    }

    /// A node keeps its id whether it is asked by a clone or by an id
    /// built anew from its name, below and past the scanned few.
    #[test]
    fn a_node_keeps_its_id_by_clone_and_by_name_however_many_there_are() {
        let ids: Vec<NodeId> = (0..40).map(|i| NodeId::new(format!("n{i}"))).collect();
        let mut interner = Interner::default();
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(interner.node(id), i as u32);
        }
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(interner.node(&id.clone()), i as u32);
            assert_eq!(interner.node(&NodeId::new(id.as_str())), i as u32);
        }
        assert_eq!(interner.node(&NodeId::new("new")), 40);
        interner.release_lookups();
        assert_eq!(interner.node(&NodeId::new("n33")), 33);
        assert_eq!(interner.node(&NodeId::new("n3")), 3);
    }

    /// Released tables come back on the next lookup with every id kept:
    /// static and owned texts and nodes seen before keep their ids, new
    /// ones get the next.
    #[test]
    fn released_lookups_are_rebuilt_with_the_same_ids() {
        // Statics, so each text has one address.
        static KIND: &str = "kind";
        static KEY: &str = "key";
        let mut interner = Interner::default();
        let (a, b) = (NodeId::new("a"), NodeId::new("b"));
        let ids = [
            interner.static_text(KIND),
            interner.owned_text("owned"),
            interner.node(&a),
            interner.static_text(KEY),
        ];
        interner.release_lookups();
        assert!(interner.text_table.is_empty() && interner.node_by_name.is_empty());
        assert_eq!(interner.text_of(ids[1]), "owned");
        assert_eq!(interner.node(&NodeId::new("a")), ids[2]);
        assert_eq!(interner.static_text(KIND), ids[0]);
        assert_eq!(interner.owned_text("owned"), ids[1]);
        assert_eq!(interner.static_text(KEY), ids[3]);
        assert_eq!(interner.node(&b), 1);
        assert_eq!(interner.owned_text("new"), 3);
    }
}
