//! The logical WAL record and its byte encoding.

use bytes::{BufMut, Bytes, BytesMut};

/// The one-byte tag of a logical SET record.
const SET_TAG: u8 = b'S';
/// Bytes before the key: tag, timeline, LSN, key length.
const HEADER_LEN: usize = 1 + 8 + 8 + 4;

/// One logical `SET key = value` record of the write-ahead log.
///
/// On the wire and in every node's WAL it is encoded as
///
/// ```text
/// 'S' | timeline: u64 BE | lsn: u64 BE | key_len: u32 BE | key | value_len: u32 BE | value
/// ```
///
/// ```
/// use proto_wal::{Bytes, WalRecord};
/// let rec = WalRecord::new(2, 7, Bytes::from_static(b"k"), Bytes::from_static(b"v"));
/// let frame = rec.encode();
/// assert_eq!(frame.len(), rec.encoded_len());
/// assert_eq!(WalRecord::decode(&frame), Ok(rec));
/// assert!(WalRecord::decode(&frame[..5]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalRecord {
    /// The timeline of the primary that wrote the record.
    pub timeline: u64,
    /// Log sequence number (1 for the first record of a history).
    pub lsn: u64,
    /// The key set.
    pub key: Bytes,
    /// The value it is set to.
    pub value: Bytes,
}

/// Why bytes did not decode as a [`WalRecord`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The input ended before the record did.
    #[error("truncated record: needed {needed} bytes for the {field}, {available} available")]
    Truncated {
        /// The field being read (`header`, `key`, `value length`, `value`).
        field: &'static str,
        /// Bytes the field needed.
        needed: usize,
        /// Bytes left in the input.
        available: usize,
    },
    /// The first byte is not the SET tag `'S'`.
    #[error("unknown record tag 0x{0:02x} (expected 0x53 'S')")]
    UnknownTag(u8),
    /// Bytes were left over after one whole record.
    #[error("{0} trailing bytes after the record")]
    TrailingBytes(usize),
    /// LSN 0 is not a record position.
    #[error("LSN 0 is not a valid record position")]
    ZeroLsn,
}

impl WalRecord {
    /// A record of `key = value` at `lsn` on `timeline`.
    #[must_use]
    pub fn new(timeline: u64, lsn: u64, key: Bytes, value: Bytes) -> Self {
        WalRecord {
            timeline,
            lsn,
            key,
            value,
        }
    }

    /// Length of [`WalRecord::encode`]'s output.
    #[must_use]
    pub fn encoded_len(&self) -> usize {
        HEADER_LEN + self.key.len() + 4 + self.value.len()
    }

    /// Encodes the record (big-endian lengths and numbers).
    ///
    /// Keys and values longer than `u32::MAX` bytes cannot be framed; the
    /// group refuses such writes before encoding.
    #[must_use]
    pub fn encode(&self) -> Bytes {
        debug_assert!(
            u32::try_from(self.key.len()).is_ok() && u32::try_from(self.value.len()).is_ok(),
            "key and value lengths fit in u32 (checked before encoding)"
        );
        let mut buf = BytesMut::with_capacity(self.encoded_len());
        buf.put_u8(SET_TAG);
        buf.put_u64(self.timeline);
        buf.put_u64(self.lsn);
        buf.put_u32(self.key.len() as u32);
        buf.put_slice(&self.key);
        buf.put_u32(self.value.len() as u32);
        buf.put_slice(&self.value);
        buf.freeze()
    }

    /// Decodes exactly one record from `bytes` (copying key and value).
    pub fn decode(bytes: &[u8]) -> Result<WalRecord, RecordError> {
        let (layout, used) = Layout::parse(bytes)?;
        if used != bytes.len() {
            return Err(RecordError::TrailingBytes(bytes.len() - used));
        }
        Ok(WalRecord {
            timeline: layout.timeline,
            lsn: layout.lsn,
            key: Bytes::copy_from_slice(&bytes[layout.key.clone()]),
            value: Bytes::copy_from_slice(&bytes[layout.value.clone()]),
        })
    }

    /// Decodes exactly one record from a shared frame without copying: key
    /// and value are slices of `frame`.
    pub fn decode_shared(frame: &Bytes) -> Result<WalRecord, RecordError> {
        let (layout, used) = Layout::parse(frame)?;
        if used != frame.len() {
            return Err(RecordError::TrailingBytes(frame.len() - used));
        }
        Ok(WalRecord {
            timeline: layout.timeline,
            lsn: layout.lsn,
            key: frame.slice(layout.key),
            value: frame.slice(layout.value),
        })
    }

    /// Splits a concatenation of encoded records (a WAL) into its records,
    /// zero-copy. Fails on the first record that does not decode.
    pub fn decode_all(wal: &Bytes) -> Result<Vec<WalRecord>, RecordError> {
        let mut records = Vec::new();
        let mut at = 0;
        while at < wal.len() {
            let rest = &wal[at..];
            let (layout, used) = Layout::parse(rest)?;
            records.push(WalRecord {
                timeline: layout.timeline,
                lsn: layout.lsn,
                key: wal.slice(at + layout.key.start..at + layout.key.end),
                value: wal.slice(at + layout.value.start..at + layout.value.end),
            });
            at += used;
        }
        Ok(records)
    }
}

/// Where the fields of one record lie in its input.
struct Layout {
    timeline: u64,
    lsn: u64,
    key: std::ops::Range<usize>,
    value: std::ops::Range<usize>,
}

fn take<const N: usize>(
    bytes: &[u8],
    at: usize,
    field: &'static str,
) -> Result<[u8; N], RecordError> {
    bytes
        .get(at..at + N)
        .and_then(|s| <[u8; N]>::try_from(s).ok())
        .ok_or(RecordError::Truncated {
            field,
            needed: N,
            available: bytes.len().saturating_sub(at),
        })
}

impl Layout {
    /// Parses one record at the start of `bytes`; returns it and its length.
    fn parse(bytes: &[u8]) -> Result<(Layout, usize), RecordError> {
        let tag = take::<1>(bytes, 0, "header")?[0];
        if tag != SET_TAG {
            return Err(RecordError::UnknownTag(tag));
        }
        if bytes.len() < HEADER_LEN {
            return Err(RecordError::Truncated {
                field: "header",
                needed: HEADER_LEN,
                available: bytes.len(),
            });
        }
        let timeline = u64::from_be_bytes(take::<8>(bytes, 1, "header")?);
        let lsn = u64::from_be_bytes(take::<8>(bytes, 9, "header")?);
        if lsn == 0 {
            return Err(RecordError::ZeroLsn);
        }
        let key_len = u32::from_be_bytes(take::<4>(bytes, 17, "header")?) as usize;
        let key_start = HEADER_LEN;
        let key_end = key_start.saturating_add(key_len);
        if bytes.len() < key_end {
            return Err(RecordError::Truncated {
                field: "key",
                needed: key_len,
                available: bytes.len() - key_start,
            });
        }
        let value_len = u32::from_be_bytes(take::<4>(bytes, key_end, "value length")?) as usize;
        let value_start = key_end + 4;
        let value_end = value_start.saturating_add(value_len);
        if bytes.len() < value_end {
            return Err(RecordError::Truncated {
                field: "value",
                needed: value_len,
                available: bytes.len() - value_start,
            });
        }
        Ok((
            Layout {
                timeline,
                lsn,
                key: key_start..key_end,
                value: value_start..value_end,
            },
            value_end,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec() -> WalRecord {
        WalRecord::new(
            3,
            9,
            Bytes::from_static(b"key"),
            Bytes::from_static(b"value"),
        )
    }

    #[test]
    fn encoding_is_big_endian_length_prefixed() {
        let frame = rec().encode();
        let mut want = vec![b'S'];
        want.extend_from_slice(&3u64.to_be_bytes());
        want.extend_from_slice(&9u64.to_be_bytes());
        want.extend_from_slice(&3u32.to_be_bytes());
        want.extend_from_slice(b"key");
        want.extend_from_slice(&5u32.to_be_bytes());
        want.extend_from_slice(b"value");
        assert_eq!(&frame[..], &want[..]);
    }

    #[test]
    fn every_strict_prefix_of_a_record_is_rejected() {
        let frame = rec().encode();
        for cut in 0..frame.len() {
            assert!(WalRecord::decode(&frame[..cut]).is_err(), "prefix {cut}");
        }
    }

    #[test]
    fn bad_tag_trailing_bytes_and_zero_lsn_are_rejected() {
        let mut frame = rec().encode().to_vec();
        frame[0] = b'X';
        assert_eq!(
            WalRecord::decode(&frame),
            Err(RecordError::UnknownTag(b'X'))
        );
        let mut frame = rec().encode().to_vec();
        frame.push(0);
        assert_eq!(
            WalRecord::decode(&frame),
            Err(RecordError::TrailingBytes(1))
        );
        let zero = WalRecord::new(1, 0, Bytes::new(), Bytes::new()).encode();
        assert_eq!(WalRecord::decode(&zero), Err(RecordError::ZeroLsn));
    }

    #[test]
    fn decode_all_splits_a_concatenated_wal() {
        let a = rec();
        let b = WalRecord::new(3, 10, Bytes::from_static(b""), Bytes::from_static(b"x"));
        let mut wal = a.encode().to_vec();
        wal.extend_from_slice(&b.encode());
        let wal = Bytes::from(wal);
        assert_eq!(WalRecord::decode_all(&wal), Ok(vec![a, b]));
        assert_eq!(
            WalRecord::decode_shared(&wal.slice(..rec().encoded_len())),
            Ok(rec())
        );
    }
}
