//! Unit tests of `digest.rs`: the standard SHA-256 and HMAC test vectors.

use super::{Sha256, hmac_sha256, sha256, sha256_hex};

#[test]
fn standard_test_vectors() {
    assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(
        sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(sha256_hex(&[b'a'; 1_000_000]), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

#[test]
fn hmac_test_vectors() {
    let hex = |bytes: [u8; 32]| bytes.iter().map(|byte| format!("{byte:02x}")).collect::<String>();
    // RFC 4231 cases 1, 2 and 6 (a key longer than a block), then keys of exactly one block
    // and one byte more (checked against Python's hmac module).
    let cases: [(&[u8], &[u8], &str); 5] = [
        (&[0x0b; 20], b"Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (b"Jefe", b"what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (
            &[0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
        ),
        (&[0xaa; 64], b"exactly one block of key", "6b86dff4b91fe689c94291f9648c1f7cea871c24c0aaee8b7b0f295528e85fe3"),
        (&[0xaa; 65], b"one byte more", "ffb4909eec9d633762393895c43a8f2d95ee7c86207dc4308aa2f8943f2e5be7"),
    ];
    for (key, message, expected) in cases {
        assert_eq!(hex(hmac_sha256(key, message)), expected, "key of {} bytes", key.len());
    }
}

/// Pieces of every size around the block boundaries give the digest of the whole: the padding
/// lands in one block or two (55, 56, 63, 64 bytes pending), and a piece can fill the pending block
/// exactly, cross it, or stop short of it.
#[test]
fn streamed_pieces_give_the_digest_of_the_whole() {
    let data: Vec<u8> = (0..1000u32).map(|n| (n * 7 % 251) as u8).collect();
    for len in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
        let whole = sha256(&data[..len]);
        for piece in [1, 3, 55, 56, 63, 64, 65, 200] {
            let mut hasher = Sha256::new();
            for chunk in data[..len].chunks(piece) {
                hasher.update(chunk);
            }
            assert_eq!(hasher.finish(), whole, "{len} bytes in pieces of {piece}");
        }
    }
    // Known answers through the streaming path: "abc" in three pieces, and 56 bytes (padding in
    // a second block).
    let mut hasher = Sha256::new();
    for piece in [&b"a"[..], b"", b"bc"] {
        hasher.update(piece);
    }
    let hex = |bytes: [u8; 32]| bytes.iter().map(|byte| format!("{byte:02x}")).collect::<String>();
    assert_eq!(hex(hasher.finish()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(sha256_hex(&[b'a'; 56]), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}
