//! gzip (RFC 1952), for the day history's `data`: Akbank's report answer carries its list as
//! base64 of a gzip member (MEWS `AkbankPosSerializer::decode`). `flate2` reads it, with the
//! member's CRC-32 and length checked at its end: a damaged answer is an error, never other
//! bytes. Output is bounded ([`gunzip`]'s `limit`).

use std::io::Read;

/// Why a member could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GzipError(pub &'static str);

impl std::fmt::Display for GzipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// The content of the gzip member `data`, at most `limit` bytes.
pub fn gunzip(data: &[u8], limit: usize) -> Result<Vec<u8>, GzipError> {
    if data.get(..2) != Some(&[0x1f, 0x8b]) {
        return Err(GzipError("not a gzip member"));
    }
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data)
        .take(cap)
        .read_to_end(&mut out)
        .map_err(|_| GzipError("damaged or truncated"))?;
    if out.len() > limit {
        return Err(GzipError("too large"));
    }
    Ok(out)
}

/// `data` as one gzip member (the simulator's answers).
pub fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to a Vec cannot fail.
    let _ = z.write_all(data);
    z.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    /// Python's `gzip.compress(..., mtime=0)`: one fixed-Huffman block with back-references.
    #[test]
    fn a_python_member_and_its_damaged_copies() {
        let z = unhex("1f8b0800000000000203cb48cdc9c957c84027751412b39312f3b2150136c2a42d20000000");
        assert_eq!(
            gunzip(&z, 1_000).unwrap(),
            b"hello hello hello hello, akbank!"
        );
        // Damaged, cut, or over the limit: an error, never other bytes.
        let mut bad = z.clone();
        bad[14] ^= 0x10;
        assert!(gunzip(&bad, 1_000).is_err());
        let mut bad_crc = z.clone();
        let n = bad_crc.len();
        bad_crc[n - 8] ^= 1;
        assert!(gunzip(&bad_crc, 1_000).is_err());
        assert!(gunzip(&z[..z.len() - 3], 1_000).is_err());
        assert_eq!(gunzip(&z, 10), Err(GzipError("too large")));
        assert!(gunzip(b"{\"not\":\"gzip\"}", 1_000).is_err());
    }

    #[test]
    fn members_round_trip() {
        for data in [Vec::new(), b"abc".to_vec(), vec![7u8; 70_000]] {
            assert_eq!(gunzip(&gzip(&data), 100_000).unwrap(), data);
        }
    }
}
