//! Unit tests of `image.rs`: sniffing, header sizes (whole, truncated, hostile), limits, base64.

use super::*;

fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 2, 0, 0, 0, 0, 0, 0, 0]);
    bytes
}

/// SOI, an APP0 segment, then a SOF0 (or `sof`) frame header.
fn jpeg_header(sof: u8, width: u16, height: u16) -> Vec<u8> {
    let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
    bytes.extend_from_slice(b"JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00");
    bytes.extend_from_slice(&[0xFF, sof, 0x00, 0x11, 0x08]);
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&[0x03, 0x01, 0x22, 0x00]);
    bytes
}

fn riff(chunk: &[u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut bytes = b"RIFF\0\0\0\0WEBP".to_vec();
    bytes.extend_from_slice(chunk);
    bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

#[test]
fn sniff_tells_the_four_formats_by_their_magic_not_by_a_name() {
    assert_eq!(sniff(&png_header(1, 1)), Some(Format::Png));
    assert_eq!(sniff(&jpeg_header(0xC0, 1, 1)), Some(Format::Jpeg));
    assert_eq!(sniff(b"GIF87a\x01\x00\x01\x00"), Some(Format::Gif));
    assert_eq!(sniff(b"GIF89a\x01\x00\x01\x00"), Some(Format::Gif));
    assert_eq!(sniff(&riff(b"VP8X", &[0; 10])), Some(Format::WebP));
    assert_eq!(sniff(b"RIFF\0\0\0\0WAVEfmt "), None, "a RIFF that is not WebP");
    assert_eq!(sniff(b"%PDF-1.7"), None);
    assert_eq!(sniff(b""), None);
    assert_eq!(sniff(b"\x89PN"), None);
}

#[test]
fn dimensions_are_read_from_each_formats_header() {
    assert_eq!(dimensions(Format::Png, &png_header(640, 480)), Some((640, 480)));
    assert_eq!(dimensions(Format::Gif, b"GIF89a\x80\x02\xe0\x01"), Some((640, 480)));
    assert_eq!(dimensions(Format::Jpeg, &jpeg_header(0xC0, 1024, 768)), Some((1024, 768)));
    assert_eq!(dimensions(Format::Jpeg, &jpeg_header(0xC2, 33, 17)), Some((33, 17)), "progressive");
    // VP8: frame tag (3), start code, 14-bit width and height.
    let lossy = riff(b"VP8 ", &[0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01]);
    assert_eq!(dimensions(Format::WebP, &lossy), Some((640, 480)));
    // VP8L: signature 0x2F, then (width-1) in 14 bits and (height-1) in the next 14.
    let bits: u32 = 639 | (479 << 14);
    let mut lossless_payload = vec![0x2F];
    lossless_payload.extend_from_slice(&bits.to_le_bytes());
    assert_eq!(dimensions(Format::WebP, &riff(b"VP8L", &lossless_payload)), Some((640, 480)));
    // VP8X: flags (4), then (width-1) and (height-1) in 24 bits each.
    let extended = riff(b"VP8X", &[0, 0, 0, 0, 0x7F, 0x02, 0x00, 0xDF, 0x01, 0x00]);
    assert_eq!(dimensions(Format::WebP, &extended), Some((640, 480)));
}

#[test]
fn the_fixture_images_are_what_their_names_say() {
    let png = include_bytes!("../fixtures/images/red-2x3.png");
    assert_eq!(inspect(png), Some(Facts { format: Format::Png, size_px: Some((2, 3)), bytes: png.len() as u64 }));
    let gif = include_bytes!("../fixtures/images/dot-1x1.gif");
    assert_eq!(inspect(gif).map(|facts| facts.size_px), Some(Some((1, 1))));
}

#[test]
fn a_header_cut_anywhere_gives_no_size_and_never_panics() {
    let lossless = riff(b"VP8L", &[0x2F, 0x7F, 0xC2, 0x77, 0x00]);
    let extended = riff(b"VP8X", &[0, 0, 0, 0, 0x7F, 0x02, 0x00, 0xDF, 0x01, 0x00]);
    for whole in
        [png_header(640, 480), jpeg_header(0xC0, 64, 64), b"GIF89a\x80\x02\xe0\x01".to_vec(), lossless, extended]
    {
        let format = sniff(&whole);
        let full = format.and_then(|format| dimensions(format, &whole));
        assert!(full.is_some(), "{format:?}");
        // Cut before its size ends, a header has none; cut after, the whole one: never a wrong size.
        let mut seen_size = false;
        for cut in 0..whole.len() {
            let part = &whole[..cut];
            if let Some(format) = format {
                let size = dimensions(format, part);
                assert!(size.is_none() || size == full, "{format:?} cut at {cut}: {size:?}");
                assert!(size.is_some() || !seen_size, "{format:?} cut at {cut} lost the size");
                seen_size |= size.is_some();
            }
        }
    }
}

#[test]
fn hostile_jpeg_segments_end_the_scan() {
    // A segment length of 0 or 1 would not move the scan forward.
    assert_eq!(dimensions(Format::Jpeg, &[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00, 0xFF, 0xC0]), None);
    assert_eq!(dimensions(Format::Jpeg, &[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]), None);
    // A length pointing past the end.
    assert_eq!(dimensions(Format::Jpeg, &[0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF, 0x00]), None);
    // Fill bytes to the end, and a stream of restart markers.
    assert_eq!(dimensions(Format::Jpeg, &[0xFF; 4096]), None);
    let mut restarts = vec![0xFF, 0xD8];
    restarts.extend(std::iter::repeat_n([0xFF, 0xD0], 1000).flatten());
    assert_eq!(dimensions(Format::Jpeg, &restarts), None);
    // Not a marker where one must be, and the scan reaching SOS first.
    assert_eq!(dimensions(Format::Jpeg, &[0xFF, 0xD8, 0x00, 0x00]), None);
    assert_eq!(dimensions(Format::Jpeg, &[0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08]), None);
}

#[test]
fn a_zero_side_or_a_foreign_webp_chunk_is_no_size() {
    assert_eq!(dimensions(Format::Png, &png_header(0, 480)), None);
    assert_eq!(dimensions(Format::Png, &b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDX\0\0\0\x01\0\0\0\x01"[..]), None);
    assert_eq!(dimensions(Format::WebP, &riff(b"ALPH", &[0; 10])), None);
    assert_eq!(dimensions(Format::WebP, &riff(b"VP8 ", &[0; 10])), None, "no start code");
    assert_eq!(dimensions(Format::WebP, &riff(b"VP8L", &[0; 5])), None, "no signature byte");
}

#[test]
fn limits_name_the_limit_and_refuse_nothing_smaller() {
    let small = Facts { format: Format::Png, size_px: Some((8000, 10)), bytes: MAX_IMAGE_BYTES };
    assert_eq!(check_limits(&small), None);
    let heavy = Facts { bytes: MAX_IMAGE_BYTES + 1, ..small };
    let refusal = check_limits(&heavy).unwrap_or_default();
    assert!(refusal.contains("is 3932161 bytes, over the limit of 3932160 bytes (3.75 MB) per image"), "{refusal}");
    let wide = Facts { size_px: Some((8001, 10)), ..small };
    let refusal = check_limits(&wide).unwrap_or_default();
    assert!(refusal.contains("8001x10 px, over the limit of 8000 px on a side"), "{refusal}");
    assert_eq!(check_limits(&Facts { size_px: None, ..small }), None, "an unknown size is the server's to judge");
    // The height is held to the same limit, and the limit itself is allowed.
    assert_eq!(check_limits(&Facts { size_px: Some((10, 8000)), ..small }), None);
    let tall = check_limits(&Facts { size_px: Some((10, 8001)), ..small }).unwrap_or_default();
    assert!(tall.contains("10x8001 px, over the limit of 8000 px on a side"), "{tall}");
}

#[test]
fn a_header_with_a_zero_side_has_no_size() {
    assert_eq!(dimensions(Format::Png, &png_header(640, 0)), None);
    assert_eq!(dimensions(Format::Png, &png_header(0, 480)), None);
    assert_eq!(dimensions(Format::Png, &png_header(1, 1)), Some((1, 1)));
}

#[test]
fn an_image_costs_its_area_over_750_tokens_capped_at_1600() {
    assert_eq!(estimate_tokens(Some((200, 200))), 53);
    assert_eq!(estimate_tokens(Some((1, 1))), 1);
    assert_eq!(estimate_tokens(Some((8000, 8000))), 1600);
    assert_eq!(estimate_tokens(None), 1600);
}

#[test]
fn describe_reads_like_a_listing() {
    let facts = Facts { format: Format::Png, size_px: Some((640, 480)), bytes: 12 * 1024 };
    assert_eq!(facts.describe(), "PNG 640x480, 12 KB");
    assert_eq!(Facts { size_px: None, bytes: 68, ..facts }.describe(), "PNG, 68 B");
    assert_eq!(human_bytes(3 * 1024 * 1024 + 400 * 1024), "3.4 MB");
}

#[test]
fn base64_round_trips_every_length_and_matches_the_rfc_vectors() {
    let vectors =
        [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE=")];
    for (plain, encoded) in vectors {
        assert_eq!(base64_encode(plain.as_bytes()), encoded);
        assert_eq!(base64_decode(encoded), Some(plain.as_bytes().to_vec()));
    }
    let bytes: Vec<u8> = (0..=255u8).collect();
    for len in 0..bytes.len() {
        assert_eq!(base64_decode(&base64_encode(&bytes[..len])).as_deref(), Some(&bytes[..len]));
    }
    assert_eq!(base64_decode("Zm9v\nYg"), Some(b"foob".to_vec()), "line breaks and missing padding");
    assert_eq!(base64_decode("Zm9v*"), None);
}

#[test]
fn random_bytes_behind_each_magic_never_panic() {
    let seed = 0x1D_A6E5;
    println!("seed {seed:#x}");
    let mut rng = crate::test_rng::XorShift(seed);
    let magics: [&[u8]; 5] =
        [b"\x89PNG\r\n\x1a\n", &[0xFF, 0xD8, 0xFF], b"GIF89a", b"RIFF\0\0\0\0WEBPVP8L", b"RIFF\0\0\0\0WEBPVP8X"];
    for round in 0..20_000 {
        let mut bytes = magics[round % magics.len()].to_vec();
        let len = rng.below(64);
        // Mostly marker-like bytes, so the JPEG walk meets segments.
        bytes.extend((0..len).map(|_| if rng.below(3) == 0 { 0xFF } else { rng.next() as u8 }));
        if let Some(facts) = inspect(&bytes) {
            let _ = facts.describe();
            let _ = check_limits(&facts);
        }
    }
}

#[test]
fn a_large_extended_webp_and_fill_bytes_before_a_jpeg_marker_are_read() {
    // VP8X widths past 16 bits use the third byte: (width-1) = 0x01_11_6F is 70000.
    let wide = riff(b"VP8X", &[0, 0, 0, 0, 0x6F, 0x11, 0x01, 0x00, 0x00, 0x00]);
    assert_eq!(dimensions(Format::WebP, &wide), Some((70_000, 1)));
    // 0xFF fill bytes may precede any marker.
    let mut filled = vec![0xFF, 0xD8, 0xFF, 0xFF, 0xFF];
    filled.extend_from_slice(&jpeg_header(0xC0, 300, 200)[3..]);
    assert_eq!(dimensions(Format::Jpeg, &filled), Some((300, 200)));
}
