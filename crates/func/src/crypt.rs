//! Encryption and compression functions: AES_ENCRYPT/AES_DECRYPT (MySQL's default
//! `block_encryption_mode` aes-128-ecb with its key folding and PKCS#7 padding) and
//! COMPRESS/UNCOMPRESS/UNCOMPRESSED_LENGTH (zlib's `compress`/`uncompress`, as MySQL calls
//! them, with MySQL's 4-byte length header: the bytes match MySQL's).

use aes::cipher::{generic_array::GenericArray, BlockDecrypt, BlockEncrypt, KeyInit};
use aes::Aes128;

/// MySQL's `my_aes_create_key`: the key bytes XOR-folded into a 16-byte buffer.
fn fold_key(key: &[u8]) -> [u8; 16] {
    let mut k = [0u8; 16];
    for (i, b) in key.iter().enumerate() {
        k[i % 16] ^= b;
    }
    k
}

/// AES_ENCRYPT(str, key) in aes-128-ecb mode.
pub fn aes_encrypt(data: &[u8], key: &[u8]) -> Vec<u8> {
    let cipher = Aes128::new(GenericArray::from_slice(&fold_key(key)));
    let pad = 16 - data.len() % 16;
    let mut buf = data.to_vec();
    buf.extend(std::iter::repeat_n(pad as u8, pad));
    for chunk in buf.chunks_mut(16) {
        cipher.encrypt_block(GenericArray::from_mut_slice(chunk));
    }
    buf
}

/// AES_DECRYPT(crypt, key) in aes-128-ecb mode; `None` (SQL NULL) for data that does not
/// decrypt to valid padding.
pub fn aes_decrypt(data: &[u8], key: &[u8]) -> Option<Vec<u8>> {
    let partial_block = data.len() % 16;
    if data.is_empty() || partial_block != 0 {
        return None;
    }
    let cipher = Aes128::new(GenericArray::from_slice(&fold_key(key)));
    let mut buf = data.to_vec();
    for chunk in buf.chunks_mut(16) {
        cipher.decrypt_block(GenericArray::from_mut_slice(chunk));
    }
    let pad = *buf.last()? as usize;
    if pad == 0 || pad > 16 || buf[buf.len() - pad..].iter().any(|b| *b as usize != pad) {
        return None;
    }
    buf.truncate(buf.len() - pad);
    Some(buf)
}

/// COMPRESS(str): empty for an empty string, else the length (4 bytes, little endian), the
/// zlib stream, and a '.' when the stream would end in a space.
pub fn compress(data: &[u8]) -> Vec<u8> {
    if data.is_empty() {
        return Vec::new();
    }
    let mut out = (data.len() as u32 & 0x3FFF_FFFF).to_le_bytes().to_vec();
    // SAFETY: compressBound only computes a size.
    let bound = unsafe { libz_sys::compressBound(data.len() as libz_sys::uLong) };
    let mut z = vec![0u8; bound as usize];
    let mut z_len = bound;
    // SAFETY: `z` has `z_len` writable bytes and `data` is a valid slice; zlib writes at most
    // `z_len` bytes and stores the length written.
    let rc = unsafe {
        libz_sys::compress(
            z.as_mut_ptr(),
            &mut z_len,
            data.as_ptr(),
            data.len() as libz_sys::uLong,
        )
    };
    if rc != libz_sys::Z_OK {
        return Vec::new();
    }
    z.truncate(z_len as usize);
    out.extend_from_slice(&z);
    if out.last() == Some(&b' ') {
        out.push(b'.');
    }
    out
}

/// UNCOMPRESSED_LENGTH(str).
pub fn uncompressed_length(data: &[u8]) -> i64 {
    if data.len() < 4 {
        return 0;
    }
    (u32::from_le_bytes([data[0], data[1], data[2], data[3]]) & 0x3FFF_FFFF) as i64
}

/// UNCOMPRESS(str): an error for data that is not COMPRESS output.
pub fn uncompress(data: &[u8], max: u64) -> Result<Vec<u8>, UncompressError> {
    if data.is_empty() {
        return Ok(Vec::new());
    }
    if data.len() <= 4 {
        return Err(UncompressError::Corrupt);
    }
    let len = uncompressed_length(data) as u64;
    if len > max {
        return Err(UncompressError::TooBig);
    }
    let mut out = vec![0u8; len as usize];
    let mut out_len = len as libz_sys::uLong;
    // SAFETY: `out` has `out_len` writable bytes; zlib reads `data[4..]` and writes at most
    // `out_len` bytes, storing the length written.
    let rc = unsafe {
        libz_sys::uncompress(
            out.as_mut_ptr(),
            &mut out_len,
            data[4..].as_ptr(),
            (data.len() - 4) as libz_sys::uLong,
        )
    };
    if rc != libz_sys::Z_OK || out_len != len as libz_sys::uLong {
        return Err(UncompressError::Corrupt);
    }
    Ok(out)
}

/// Why UNCOMPRESS returned NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UncompressError {
    /// Not a zlib stream of the announced length (warning 1259).
    Corrupt,
    /// Announced length above max_allowed_packet (warning 1256).
    TooBig,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aes_round_trip() {
        let c = aes_encrypt(b"text", b"key");
        assert_eq!(c.len(), 16);
        assert_eq!(aes_decrypt(&c, b"key").unwrap(), b"text");
        assert_eq!(aes_decrypt(&c, b"other"), None);
        assert_eq!(aes_encrypt(b"0123456789abcdef", b"k").len(), 32);
        // FIPS-197 vector: key 000102..0f, plaintext 00112233..ff.
        let key: Vec<u8> = (0u8..16).collect();
        let pt: Vec<u8> = (0u8..16).map(|i| i * 0x11).collect();
        let ct = aes_encrypt(&pt, &key);
        assert_eq!(hex::encode(&ct[..16]), "69c4e0d86a7b0430d8cdb78070b4c55a");
    }

    #[test]
    fn compress_round_trip() {
        let c = compress(b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        assert_eq!(uncompressed_length(&c), 40);
        assert_eq!(uncompress(&c, 1 << 20).unwrap(), vec![b'a'; 40]);
        assert_eq!(compress(b""), Vec::<u8>::new());
        // Byte-identical to MySQL's (zlib) COMPRESS output.
        assert_eq!(
            hex::encode_upper(compress(b"aaaaaaaaaa")),
            "0A000000789C4B4C84010014E103CB"
        );
        assert_eq!(compress(&[b'a'; 1000]).len(), 21);
        assert_eq!(
            uncompress(b"xxxxxxx", 1 << 20),
            Err(UncompressError::TooBig)
        );
        assert_eq!(
            uncompress(b"\x05\0\0\0garbage", 1 << 20),
            Err(UncompressError::Corrupt)
        );
    }
}
