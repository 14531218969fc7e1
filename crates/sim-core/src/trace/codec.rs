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

/// Direct-mapped cache sizes (as powers of two): static texts are a few
/// hundred literals, nodes a handful. Small, so a short run's trace stays
/// cheap to create.
const TEXT_CACHE_BITS: u32 = 8;
const NODE_CACHE_BITS: u32 = 5;

/// Fibonacci hashing of an address into a direct-mapped cache.
#[inline]
fn slot(addr: usize, bits: u32) -> usize {
    ((addr as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

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
    text_cache: Vec<(usize, usize, u32)>,
    text_by_addr: FastMap<(usize, usize), u32>,
    text_by_value: FastMap<Box<str>, u32>,
    nodes: Vec<NodeId>,
    /// Holds a clone of each cached id, so its address cannot be reused by
    /// another name while the entry exists.
    node_cache: Vec<Option<(NodeId, u32)>>,
    node_by_name: FastMap<NodeId, u32>,
}

/// Empty and allocation-free: a trace that is switched off, or moved out
/// and replaced, never pays for tables it does not fill. The caches are
/// allocated by the first event that needs them.
impl Default for Interner {
    fn default() -> Self {
        Interner {
            texts: Vec::new(),
            text_cache: Vec::new(),
            text_by_addr: FastMap::default(),
            text_by_value: FastMap::default(),
            nodes: Vec::new(),
            node_cache: Vec::new(),
            node_by_name: FastMap::default(),
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

    /// The id of a `'static` text: a hit in the direct-mapped cache (every
    /// event's kind and keys, after their first use) is inlined; the rest
    /// is [`Interner::static_text_missed`].
    #[inline]
    pub(crate) fn static_text(&mut self, text: &'static str) -> u32 {
        let (addr, len) = (text.as_ptr() as usize, text.len());
        if let Some(&(cached, cached_len, id)) = self.text_cache.get(slot(addr, TEXT_CACHE_BITS))
            && cached == addr
            && cached_len == len
            && addr != 0
        {
            return id;
        }
        self.static_text_missed(text)
    }

    /// [`Interner::static_text`] of a text not in the cache (allocated by
    /// the first one).
    #[cold]
    #[inline(never)]
    fn static_text_missed(&mut self, text: &'static str) -> u32 {
        let (addr, len) = (text.as_ptr() as usize, text.len());
        if self.text_cache.is_empty() {
            self.text_cache = vec![(0, 0, 0); 1 << TEXT_CACHE_BITS];
            self.texts.reserve(128);
            self.text_by_addr.reserve(128);
        }
        let id = match self.text_by_addr.get(&(addr, len)) {
            Some(&id) => id,
            None => {
                let id = self.texts.len() as u32;
                self.texts.push(Cow::Borrowed(text));
                self.text_by_addr.insert((addr, len), id);
                id
            }
        };
        self.text_cache[slot(addr, TEXT_CACHE_BITS)] = (addr, len, id);
        id
    }

    fn owned_text(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.text_by_value.get(text) {
            return id;
        }
        let id = self.texts.len() as u32;
        self.texts.push(Cow::Owned(text.to_owned()));
        self.text_by_value.insert(text.into(), id);
        id
    }

    /// The id of a node: a cache hit (a clone of an id seen before) is
    /// inlined; the rest is [`Interner::node_missed`].
    #[inline]
    fn node(&mut self, node: &NodeId) -> u32 {
        let addr = node.shared_addr();
        if let Some(Some((cached, id))) = self.node_cache.get(slot(addr, NODE_CACHE_BITS))
            && cached.shared_addr() == addr
        {
            return *id;
        }
        self.node_missed(node)
    }

    /// [`Interner::node`] of a node not in the cache (allocated by the
    /// first one).
    #[cold]
    #[inline(never)]
    fn node_missed(&mut self, node: &NodeId) -> u32 {
        let addr = node.shared_addr();
        if self.node_cache.is_empty() {
            self.node_cache = vec![None; 1 << NODE_CACHE_BITS];
        }
        let id = match self.node_by_name.get(node) {
            Some(&id) => id,
            None => {
                let id = self.nodes.len() as u32;
                self.nodes.push(node.clone());
                self.node_by_name.insert(node.clone(), id);
                id
            }
        };
        self.node_cache[slot(addr, NODE_CACHE_BITS)] = Some((node.clone(), id));
        id
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

/// Appends one encoded value.
#[inline]
pub(crate) fn encode_value(out: &mut Vec<u8>, interner: &mut Interner, value: &Value) {
    match value {
        Value::Absent => out.push(ABSENT),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::UInt(v) => {
            out.push(UINT);
            put_varint(out, *v);
        }
        Value::Int(v) => {
            out.push(INT);
            put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
        }
        Value::Str(Cow::Borrowed(s)) => {
            out.push(STR_ID);
            put_varint(out, u64::from(interner.static_text(s)));
        }
        Value::Str(Cow::Owned(s)) => {
            out.push(STR_INLINE);
            put_varint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        Value::Node(n) => {
            out.push(NODE);
            put_varint(out, u64::from(interner.node(n)));
        }
        Value::Bytes(b) => {
            out.push(BYTES);
            put_varint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        Value::List(items) => encode_list(out, interner, items),
    }
}

/// Appends an encoded list (kept out of line: [`encode_value`] is inlined).
#[inline(never)]
fn encode_list(out: &mut Vec<u8>, interner: &mut Interner, items: &[Value]) {
    out.push(LIST);
    put_varint(out, items.len() as u64);
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
