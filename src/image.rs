//! Images as the models take them: the format told by its magic bytes (PNG, JPEG, GIF, WebP,
//! never by the file's extension), the pixel size read by hand from the header, the limits the
//! providers document, and base64 both ways.
//!
//! Invariant: pure and total over any bytes: a truncated or hostile header gives "size unknown",
//! never a panic, and every scan moves forward and stops at the end of its input (no loop can
//! spin). Nothing here resizes or re-encodes an image (no image library): an image over a limit
//! is refused with the limit named, and the person decides what to send instead. No IO.
//!
//! The limits and their sources:
//! - `MAX_IMAGE_BYTES` 3.75 MB of file: Anthropic refuses an image whose base64 exceeds 5 MB
//!   (platform.claude.com/docs/en/build-with-claude/vision, "General limits"; base64 is 4/3 of
//!   the bytes, so 3.75 MB of file is 5 MB encoded). OpenAI allows more (50 MB a request), so the
//!   stricter one is kept for every provider: a conversation may change provider with `/model`.
//! - `MAX_SIDE_PX` 8000 px on a side (the same page: "The maximal dimensions per image are
//!   8000x8000 px").
//! - `MAX_IMAGES_PER_REQUEST` 100 (the same page: "100 per request on the API, for models with a
//!   200k-token context window"); the smaller of Anthropic's counts, kept for every provider.
//! - `estimate_tokens`: about `width * height / 750` tokens, at most 1600 (the same page,
//!   "Calculate image costs": larger images are scaled down by the API to about 1.15
//!   megapixels, which is ~1600 tokens).

/// The largest image file sent: its base64 stays within Anthropic's 5 MB per image.
pub(crate) const MAX_IMAGE_BYTES: u64 = 3_932_160;
/// The largest width or height sent, in pixels.
const MAX_SIDE_PX: u32 = 8000;
/// The most images one request may carry.
pub(crate) const MAX_IMAGES_PER_REQUEST: usize = 100;
/// What an image costs at most, in tokens, after the API scaled it down.
const MAX_IMAGE_TOKENS: u64 = 1600;
/// What an image of unknown size is counted as: the most any image costs.
const UNKNOWN_SIZE_TOKENS: u64 = MAX_IMAGE_TOKENS;

/// An image format the providers accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Png,
    Jpeg,
    Gif,
    WebP,
}

impl Format {
    /// The MIME type the wire formats name it by.
    pub(crate) fn media_type(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
            Format::Gif => "image/gif",
            Format::WebP => "image/webp",
        }
    }

    /// The short name people read (`PNG`).
    pub(crate) fn label(self) -> &'static str {
        match self {
            Format::Png => "PNG",
            Format::Jpeg => "JPEG",
            Format::Gif => "GIF",
            Format::WebP => "WebP",
        }
    }
}

/// The format of `bytes` by its magic number, or None when it is none of the four.
pub(crate) fn sniff(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(Format::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(Format::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(Format::Gif)
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some(Format::WebP)
    } else {
        None
    }
}

/// The width and height in pixels as the header states them, or None when the header is cut
/// short or makes no sense (a zero side).
pub(crate) fn dimensions(format: Format, bytes: &[u8]) -> Option<(u32, u32)> {
    let size = match format {
        Format::Png => png_size(bytes),
        Format::Jpeg => jpeg_size(bytes),
        Format::Gif => gif_size(bytes),
        Format::WebP => webp_size(bytes),
    }?;
    (size.0 > 0 && size.1 > 0).then_some(size)
}

/// What an image looked at is: its format, its size when known, its length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    pub format: Format,
    pub size_px: Option<(u32, u32)>,
    pub bytes: u64,
}

impl Facts {
    /// `PNG 640x480, 12 KB` (the size left out when unknown).
    pub(crate) fn describe(&self) -> String {
        match self.size_px {
            Some((width, height)) => format!("{} {width}x{height}, {}", self.format.label(), human_bytes(self.bytes)),
            None => format!("{}, {}", self.format.label(), human_bytes(self.bytes)),
        }
    }
}

/// Looks at `bytes`: None when they are not an image of the four formats.
pub(crate) fn inspect(bytes: &[u8]) -> Option<Facts> {
    let format = sniff(bytes)?;
    Some(Facts { format, size_px: dimensions(format, bytes), bytes: bytes.len() as u64 })
}

/// Why an image cannot be sent, naming the limit; None when it can.
pub(crate) fn check_limits(facts: &Facts) -> Option<String> {
    if let Some(refusal) = check_file_size(facts.bytes) {
        return Some(refusal);
    }
    match facts.size_px {
        Some((width, height)) if width > MAX_SIDE_PX || height > MAX_SIDE_PX => Some(format!(
            "the image is {width}x{height} px, over the limit of {MAX_SIDE_PX} px on a side (mewcode does not \
             downscale: send a smaller image)"
        )),
        _ => None,
    }
}

/// Why a file of `bytes` is too big to send as an image, naming the limit; None when it is not
/// (known before a byte of it is read).
pub(crate) fn check_file_size(bytes: u64) -> Option<String> {
    (bytes > MAX_IMAGE_BYTES).then(|| {
        format!(
            "the image is {bytes} bytes, over the limit of {MAX_IMAGE_BYTES} bytes (3.75 MB) per image (the \
             providers refuse larger; mewcode does not downscale: send a smaller or more compressed image)"
        )
    })
}

/// About what an image costs in a request: `width * height / 750` tokens, at most 1600; an
/// image of unknown size counts as the most.
pub(crate) fn estimate_tokens(size_px: Option<(u32, u32)>) -> u64 {
    match size_px {
        Some((width, height)) => (u64::from(width) * u64::from(height) / 750).clamp(1, MAX_IMAGE_TOKENS),
        None => UNKNOWN_SIZE_TOKENS,
    }
}

/// A byte count as people read it: `68 B`, `12 KB`, `3.4 MB`.
pub(crate) fn human_bytes(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{} KB", bytes.div_ceil(1024))
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

fn be16(bytes: &[u8], at: usize) -> Option<u32> {
    let pair = bytes.get(at..at.checked_add(2)?)?;
    Some(u32::from(pair[0]) << 8 | u32::from(pair[1]))
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    let quad = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([quad[0], quad[1], quad[2], quad[3]]))
}

fn le16(bytes: &[u8], at: usize) -> Option<u32> {
    let pair = bytes.get(at..at.checked_add(2)?)?;
    Some(u32::from(pair[0]) | u32::from(pair[1]) << 8)
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    let triple = bytes.get(at..at.checked_add(3)?)?;
    Some(u32::from(triple[0]) | u32::from(triple[1]) << 8 | u32::from(triple[2]) << 16)
}

/// PNG: the IHDR chunk comes first, right after the signature: width and height, big-endian.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    Some((be32(bytes, 16)?, be32(bytes, 20)?))
}

/// GIF: the logical screen's width and height, little-endian, after the 6-byte signature.
fn gif_size(bytes: &[u8]) -> Option<(u32, u32)> {
    Some((le16(bytes, 6)?, le16(bytes, 8)?))
}

/// JPEG: walks the segments from SOI to the first start-of-frame marker (SOF0-SOF15 but DHT,
/// JPG and DAC), whose payload holds height then width. Every step moves past a segment's
/// declared length (at least its own two bytes), so the walk ends.
fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    loop {
        // Fill bytes (0xFF runs) may precede a marker.
        while *bytes.get(at)? == 0xFF && *bytes.get(at + 1)? == 0xFF {
            at += 1;
        }
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        at += 2;
        match marker {
            // Markers without a payload: TEM, RSTn, SOI.
            0x01 | 0xD0..=0xD8 => continue,
            // EOI or SOS before any frame header: no size to find.
            0xD9 | 0xDA => return None,
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                // Length (2), precision (1), height (2), width (2).
                return Some((be16(bytes, at + 5)?, be16(bytes, at + 3)?));
            }
            _ => {
                let length = be16(bytes, at)? as usize;
                if length < 2 {
                    return None;
                }
                at = at.checked_add(length)?;
            }
        }
    }
}

/// WebP: the first chunk after `RIFF....WEBP` says which kind: `VP8 ` (lossy: 14-bit sizes
/// after a start code), `VP8L` (lossless: 14-bit sizes minus one, packed after a signature
/// byte) or `VP8X` (extended: 24-bit sizes minus one).
fn webp_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let chunk = bytes.get(12..16)?;
    let data = 20;
    match chunk {
        b"VP8 " => {
            if bytes.get(data + 3..data + 6)? != [0x9D, 0x01, 0x2A] {
                return None;
            }
            Some((le16(bytes, data + 6)? & 0x3FFF, le16(bytes, data + 8)? & 0x3FFF))
        }
        b"VP8L" => {
            if *bytes.get(data)? != 0x2F {
                return None;
            }
            let bits = u32::from_le_bytes(bytes.get(data + 1..data + 5)?.try_into().ok()?);
            Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        b"VP8X" => Some((le24(bytes, data + 4)? + 1, le24(bytes, data + 7)? + 1)),
        _ => None,
    }
}

const BASE64_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (RFC 4648 section 4), as both APIs take it.
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let triple = u32::from(chunk[0]) << 16
            | u32::from(chunk.get(1).copied().unwrap_or(0)) << 8
            | u32::from(chunk.get(2).copied().unwrap_or(0));
        let sextet = |shift: u32| char::from(BASE64_ALPHABET[((triple >> shift) & 0x3F) as usize]);
        out.push(sextet(18));
        out.push(sextet(12));
        out.push(if chunk.len() > 1 { sextet(6) } else { '=' });
        out.push(if chunk.len() > 2 { sextet(0) } else { '=' });
    }
    out
}

/// Decodes standard base64 (padding optional, ASCII whitespace skipped); None on any other
/// character. For an MCP server's image, whose bytes are sniffed before they are sent on.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut buffer: u32 = 0;
    let mut bits = 0u32;
    for byte in text.bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        buffer = (buffer << 6 | u32::from(value)) & 0xFF_FFFF;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
#[path = "image_tests.rs"]
mod tests;
