//! The bytes of a schedule's keys (`k<n>`) and values (`v<n>`).
//!
//! Every key and value a run uses is a slice of a `'static` table built at
//! compile time, so each copy of one — into an operation, the history, a
//! replica's log and maps, a message — is a pointer copy: no allocation
//! and no reference count (an atomic update per clone and per drop, which
//! was an eighth of a sweep's time with values in a per-run arena). A
//! number past a table is built on the heap, with the same text.

use replication::Bytes;

/// Values `v0` … `v{VALUES - 1}` come from the table: more than a
/// schedule's steps (at most a few hundred).
const VALUES: usize = 1024;
/// Keys `k0` … `k{KEYS - 1}` come from the table (a profile draws 1–3).
const KEYS: usize = 16;

/// Digits of `n` in decimal.
const fn digits(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// Bytes of `p0p1…p{count-1}` (prefix and digits).
const fn table_len(count: usize) -> usize {
    let mut len = 0;
    let mut n = 0;
    while n < count {
        len += 1 + digits(n);
        n += 1;
    }
    len
}

/// `p0p1…p{count-1}` (prefix `p`), as an array of `LEN` bytes.
const fn table<const LEN: usize>(prefix: u8, count: usize) -> [u8; LEN] {
    let mut out = [0u8; LEN];
    let mut at = 0;
    let mut n = 0;
    while n < count {
        out[at] = prefix;
        let d = digits(n);
        let mut k = 0;
        let mut rest = n;
        while k < d {
            out[at + d - k] = b'0' + (rest % 10) as u8;
            rest /= 10;
            k += 1;
        }
        at += 1 + d;
        n += 1;
    }
    out
}

static VALUE_TABLE: [u8; table_len(VALUES)] = table(b'v', VALUES);
static KEY_TABLE: [u8; table_len(KEYS)] = table(b'k', KEYS);

/// Where each `p<n>` of a table starts, and (the last entry) where the
/// table ends: `N` is the table's count + 1. Looked up, not computed, for
/// every key and value a schedule uses.
const fn starts<const N: usize>() -> [u32; N] {
    let mut out = [0u32; N];
    let mut n = 1;
    while n < N {
        out[n] = out[n - 1] + 1 + digits(n - 1) as u32;
        n += 1;
    }
    out
}

static VALUE_STARTS: [u32; VALUES + 1] = starts::<{ VALUES + 1 }>();
static KEY_STARTS: [u32; KEYS + 1] = starts::<{ KEYS + 1 }>();

/// `p<n>` from `table` (entries starting at `starts`) when `n` is below
/// its count, else built on the heap.
fn literal(table: &'static [u8], starts: &'static [u32], prefix: u8, n: u64) -> Bytes {
    match usize::try_from(n) {
        Ok(i) if i + 1 < starts.len() => {
            Bytes::from_static(&table[starts[i] as usize..starts[i + 1] as usize])
        }
        _ => {
            let mut text = vec![prefix];
            text.extend_from_slice(n.to_string().as_bytes());
            Bytes::from(text)
        }
    }
}

/// `v<n>`: the value a schedule's write step writes.
pub(crate) fn value(n: u32) -> Bytes {
    literal(&VALUE_TABLE, &VALUE_STARTS, b'v', u64::from(n))
}

/// `k<n>`: a schedule's key number `n`.
pub(crate) fn key(n: u8) -> Bytes {
    literal(&KEY_TABLE, &KEY_STARTS, b'k', u64::from(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_and_key_reads_as_its_prefix_and_decimal_digits() {
        for n in (0..1100u32).chain([9_999, 65_535, u32::MAX]) {
            assert_eq!(value(n), Bytes::from(format!("v{n}")), "value {n}");
        }
        for n in 0..=u8::MAX {
            assert_eq!(key(n), Bytes::from(format!("k{n}")), "key {n}");
        }
    }

    #[test]
    fn a_table_entry_is_static_so_a_copy_shares_no_count() {
        // `Bytes::from_static` slices point into the table itself.
        let v = value(345);
        let range = VALUE_TABLE.as_ptr_range();
        assert!(range.contains(&v.as_ptr()));
        assert!(KEY_TABLE.as_ptr_range().contains(&key(3).as_ptr()));
    }
}
