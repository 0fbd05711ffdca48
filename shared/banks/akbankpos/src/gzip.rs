//! gzip (RFC 1952 over DEFLATE, RFC 1951), for the day history's `data`: Akbank's report
//! answer carries its list as base64 of a gzip member (MEWS `AkbankPosSerializer::decode`).
//!
//! [`gunzip`] inflates one member (stored, fixed and dynamic Huffman blocks) and checks its
//! CRC-32 and length: a decoder mistake or a damaged answer is an error, never other bytes.
//! Output is bounded ([`gunzip`]'s `limit`). [`gzip_stored`] writes a member of stored blocks
//! (the simulator's answers). Written here rather than pulled in: the workspace has no
//! inflate crate among its dependencies, and this is all the protocol needs.

/// Why a member could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GzipError(pub &'static str);

impl std::fmt::Display for GzipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

type Result<T> = std::result::Result<T, GzipError>;

fn err<T>(why: &'static str) -> Result<T> {
    Err(GzipError(why))
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
};

/// CRC-32 (ISO-HDLC, as gzip uses it).
pub fn crc32(data: &[u8]) -> u32 {
    !data.iter().fold(!0u32, |c, b| {
        CRC_TABLE[usize::from((c as u8) ^ b)] ^ (c >> 8)
    })
}

/// A gzip member of stored blocks holding `data`.
pub fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let mut chunks: Vec<&[u8]> = data.chunks(u16::MAX as usize).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    let last = chunks.len() - 1;
    for (i, chunk) in chunks.into_iter().enumerate() {
        let len = u16::try_from(chunk.len()).unwrap_or(u16::MAX);
        out.push(u8::from(i == last));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u32,
    count: u32,
}

impl Bits<'_> {
    /// `n` (≤ 16) bits, least significant first.
    fn take(&mut self, n: u32) -> Result<u32> {
        while self.count < n {
            let Some(b) = self.data.get(self.pos) else {
                return err("truncated");
            };
            self.buf |= u32::from(*b) << self.count;
            self.pos += 1;
            self.count += 8;
        }
        let v = self.buf & ((1u32 << n) - 1);
        self.buf >>= n;
        self.count -= n;
        Ok(v)
    }

    fn align(&mut self) {
        self.buf = 0;
        self.count = 0;
    }

    fn bytes(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.data.len());
        let Some(end) = end else {
            return err("truncated");
        };
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
}

/// A canonical Huffman code: how many codes of each length, and the symbols by code.
struct Huffman {
    counts: [u16; 16],
    symbols: Vec<u16>,
}

impl Huffman {
    fn new(lengths: &[u8]) -> Result<Self> {
        let mut counts = [0u16; 16];
        for &l in lengths {
            counts[usize::from(l)] += 1;
        }
        counts[0] = 0;
        let mut left: i32 = 1;
        for c in &counts[1..] {
            left = (left << 1) - i32::from(*c);
            if left < 0 {
                return err("over-subscribed code");
            }
        }
        let mut offsets = [0u16; 16];
        for len in 1..15 {
            offsets[len + 1] = offsets[len] + counts[len];
        }
        let mut symbols = vec![0u16; lengths.len()];
        for (sym, &l) in lengths.iter().enumerate() {
            if l != 0 {
                let at = &mut offsets[usize::from(l)];
                symbols[usize::from(*at)] = sym as u16;
                *at += 1;
            }
        }
        Ok(Self { counts, symbols })
    }

    fn decode(&self, bits: &mut Bits<'_>) -> Result<u16> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..16 {
            code |= bits.take(1)? as i32;
            let count = i32::from(self.counts[len]);
            if code - first < count {
                let at = usize::try_from(index + code - first).unwrap_or(usize::MAX);
                return self.symbols.get(at).copied().ok_or(GzipError("bad code"));
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        err("bad code")
    }
}

const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order code-length code lengths come in.
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

fn fixed() -> Result<(Huffman, Huffman)> {
    let mut l = [0u8; 288];
    l[..144].fill(8);
    l[144..256].fill(9);
    l[256..280].fill(7);
    l[280..].fill(8);
    Ok((Huffman::new(&l)?, Huffman::new(&[5u8; 30])?))
}

fn dynamic(bits: &mut Bits<'_>) -> Result<(Huffman, Huffman)> {
    let nlen = bits.take(5)? as usize + 257;
    let ndist = bits.take(5)? as usize + 1;
    let ncode = bits.take(4)? as usize + 4;
    if nlen > 286 || ndist > 30 {
        return err("bad counts");
    }
    let mut cl = [0u8; 19];
    for &i in &CL_ORDER[..ncode] {
        cl[i] = bits.take(3)? as u8;
    }
    let cl = Huffman::new(&cl)?;
    let mut lengths = Vec::with_capacity(nlen + ndist);
    while lengths.len() < nlen + ndist {
        let sym = cl.decode(bits)?;
        let (value, repeat) = match sym {
            0..=15 => (sym as u8, 1),
            16 => {
                let Some(&prev) = lengths.last() else {
                    return err("repeat without a length");
                };
                (prev, 3 + bits.take(2)? as usize)
            }
            17 => (0, 3 + bits.take(3)? as usize),
            _ => (0, 11 + bits.take(7)? as usize),
        };
        if lengths.len() + repeat > nlen + ndist {
            return err("too many lengths");
        }
        lengths.extend(std::iter::repeat_n(value, repeat));
    }
    if lengths[256] == 0 {
        return err("no end-of-block code");
    }
    Ok((
        Huffman::new(&lengths[..nlen])?,
        Huffman::new(&lengths[nlen..])?,
    ))
}

fn codes(
    bits: &mut Bits<'_>,
    out: &mut Vec<u8>,
    limit: usize,
    h: &(Huffman, Huffman),
) -> Result<()> {
    loop {
        let sym = usize::from(h.0.decode(bits)?);
        match sym {
            0..=255 => out.push(sym as u8),
            256 => return Ok(()),
            _ => {
                let i = sym - 257;
                let (Some(base), Some(extra)) = (LEN_BASE.get(i), LEN_EXTRA.get(i)) else {
                    return err("bad length code");
                };
                let len = usize::from(*base) + bits.take(u32::from(*extra))? as usize;
                let d = usize::from(h.1.decode(bits)?);
                let (Some(base), Some(extra)) = (DIST_BASE.get(d), DIST_EXTRA.get(d)) else {
                    return err("bad distance code");
                };
                let dist = usize::from(*base) + bits.take(u32::from(*extra))? as usize;
                if dist > out.len() {
                    return err("distance too far back");
                }
                let from = out.len() - dist;
                for k in 0..len {
                    out.push(out[from + k]);
                }
            }
        }
        if out.len() > limit {
            return err("too large");
        }
    }
}

/// The DEFLATE stream at the start of `data`; the bytes it used.
fn inflate(data: &[u8], limit: usize) -> Result<(Vec<u8>, usize)> {
    let mut bits = Bits {
        data,
        pos: 0,
        buf: 0,
        count: 0,
    };
    let mut out = Vec::new();
    loop {
        let last = bits.take(1)? == 1;
        match bits.take(2)? {
            0 => {
                bits.align();
                let head = bits.bytes(4)?;
                let len = u16::from_le_bytes([head[0], head[1]]);
                let nlen = u16::from_le_bytes([head[2], head[3]]);
                if len != !nlen {
                    return err("bad stored block length");
                }
                out.extend_from_slice(bits.bytes(usize::from(len))?);
                if out.len() > limit {
                    return err("too large");
                }
            }
            1 => codes(&mut bits, &mut out, limit, &fixed()?)?,
            2 => {
                let h = dynamic(&mut bits)?;
                codes(&mut bits, &mut out, limit, &h)?;
            }
            _ => return err("bad block type"),
        }
        if last {
            return Ok((out, bits.pos));
        }
    }
}

/// The content of the gzip member `data` (nothing but zero bytes may follow it), at most
/// `limit` bytes.
pub fn gunzip(data: &[u8], limit: usize) -> Result<Vec<u8>> {
    if data.len() < 18 || data[..3] != [0x1f, 0x8b, 8] {
        return err("not a gzip member");
    }
    let flags = data[3];
    if flags & 0xe0 != 0 {
        return err("reserved flags");
    }
    let mut pos = 10;
    let skip = |n: usize, pos: &mut usize| -> Result<()> {
        *pos = pos
            .checked_add(n)
            .filter(|p| *p <= data.len())
            .ok_or(GzipError("truncated"))?;
        Ok(())
    };
    if flags & 4 != 0 {
        let xlen = data.get(pos..pos + 2).ok_or(GzipError("truncated"))?;
        let xlen = usize::from(u16::from_le_bytes([xlen[0], xlen[1]]));
        skip(2 + xlen, &mut pos)?;
    }
    for flag in [8, 16] {
        if flags & flag != 0 {
            let end = data[pos..]
                .iter()
                .position(|b| *b == 0)
                .ok_or(GzipError("truncated"))?;
            skip(end + 1, &mut pos)?;
        }
    }
    if flags & 2 != 0 {
        skip(2, &mut pos)?;
    }
    let (out, used) = inflate(&data[pos..], limit)?;
    let tail = &data[pos + used..];
    if tail.len() < 8 || tail[8..].iter().any(|b| *b != 0) {
        return err("bad trailer");
    }
    let crc = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let size = u32::from_le_bytes([tail[4], tail[5], tail[6], tail[7]]);
    if crc != crc32(&out) || size != out.len() as u32 {
        return err("checksum mismatch");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    /// Python's `gzip.compress(..., mtime=0)`: one fixed-Huffman block with back-references.
    #[test]
    fn a_fixed_huffman_member() {
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
        assert_eq!(gunzip(&bad_crc, 1_000), err("checksum mismatch"));
        assert!(gunzip(&z[..z.len() - 3], 1_000).is_err());
        assert_eq!(gunzip(&z, 10), err("too large"));
        assert!(gunzip(b"{\"not\":\"gzip\"}", 1_000).is_err());
    }

    #[test]
    fn stored_members_round_trip() {
        for data in [Vec::new(), b"abc".to_vec(), vec![7u8; 70_000]] {
            assert_eq!(gunzip(&gzip_stored(&data), 100_000).unwrap(), data);
        }
    }
}
