//! Unit tests of the SSE parser: one per WHATWG rule, then every fixture under random chunkings.

use super::*;
use crate::test_rng::XorShift;

/// `(event, data, id, retry_ms)`: the compact expected form of an event.
type Expected<'a> = (&'a str, &'a str, Option<&'a str>, Option<u64>);

fn event(expected: &Expected) -> SseEvent {
    SseEvent {
        event: expected.0.to_string(),
        data: expected.1.to_string(),
        id: expected.2.map(str::to_string),
        retry_ms: expected.3,
    }
}

fn parse_chunks(chunks: &[&[u8]]) -> (Vec<SseEvent>, Option<SseEvent>) {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut events).unwrap();
    }
    let rest = parser.finish();
    (events, rest)
}

/// Parses `input` whole and byte by byte; both must give `expected` and no remainder.
fn check(input: &[u8], expected: &[Expected]) {
    let expected: Vec<SseEvent> = expected.iter().map(event).collect();
    let (whole, rest) = parse_chunks(&[input]);
    assert_eq!(whole, expected, "whole input {:?}", String::from_utf8_lossy(input));
    assert_eq!(rest, None);
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    let (bytewise, rest) = parse_chunks(&bytes);
    assert_eq!(bytewise, expected, "byte by byte {:?}", String::from_utf8_lossy(input));
    assert_eq!(rest, None);
}

#[test]
fn lf_line_endings() {
    check(b"data: a\n\ndata: b\n\n", &[("message", "a", None, None), ("message", "b", None, None)]);
}

#[test]
fn crlf_line_endings() {
    check(b"data: a\r\n\r\ndata: b\r\n\r\n", &[("message", "a", None, None), ("message", "b", None, None)]);
}

#[test]
fn lone_cr_line_endings() {
    check(b"data: a\r\rdata: b\r\r", &[("message", "a", None, None), ("message", "b", None, None)]);
}

#[test]
fn mixed_line_endings() {
    check(
        b"data: a\r\n\ndata: b\n\rdata: c\r\r\n",
        &[("message", "a", None, None), ("message", "b", None, None), ("message", "c", None, None)],
    );
}

#[test]
fn crlf_split_across_reads_is_one_line_end() {
    let (events, rest) = parse_chunks(&[b"data: a\r", b"\n", b"\r", b"\ndata: b\r", b"\r\n"]);
    assert_eq!(events, vec![event(&("message", "a", None, None)), event(&("message", "b", None, None))]);
    assert_eq!(rest, None);
}

#[test]
fn cr_at_end_of_read_followed_by_data_is_a_line_end() {
    let (events, _) = parse_chunks(&[b"data: a\r", b"\r", b"data: b\r", b"\r"]);
    assert_eq!(events.len(), 2);
}

#[test]
fn comments_are_ignored() {
    check(b": keep-alive\n: OPENROUTER PROCESSING\n\ndata: x\n:inline\n\n", &[("message", "x", None, None)]);
}

#[test]
fn multi_line_data_is_joined_with_newline() {
    check(b"data: one\ndata: two\ndata:\ndata: four\n\n", &[("message", "one\ntwo\n\nfour", None, None)]);
}

#[test]
fn event_field_sets_type_for_one_event() {
    check(b"event: ping\ndata: {}\n\ndata: next\n\n", &[("ping", "{}", None, None), ("message", "next", None, None)]);
}

#[test]
fn id_persists_across_events() {
    check(
        b"id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
        &[("message", "a", Some("7"), None), ("message", "b", Some("7"), None), ("message", "c", Some(""), None)],
    );
}

#[test]
fn id_with_nul_is_ignored() {
    check(
        b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
        &[("message", "a", Some("1"), None), ("message", "b", Some("1"), None)],
    );
}

#[test]
fn retry_only_accepts_digits() {
    check(
        b"retry: 1500\ndata: a\n\nretry: 15x\ndata: b\n\nretry: -1\nretry:\ndata: c\n\n",
        &[("message", "a", None, Some(1500)), ("message", "b", None, None), ("message", "c", None, None)],
    );
}

#[test]
fn retry_too_large_for_u64_is_ignored() {
    check(b"retry: 99999999999999999999999\ndata: a\n\n", &[("message", "a", None, None)]);
}

#[test]
fn field_without_colon_has_empty_value() {
    check(b"data\n\nevent\ndata: x\n\n", &[("message", "", None, None), ("", "x", None, None)]);
}

#[test]
fn exactly_one_leading_space_is_stripped() {
    check(
        b"data:x\n\ndata: x\n\ndata:  x\n\ndata:x \n\n",
        &[
            ("message", "x", None, None),
            ("message", "x", None, None),
            ("message", " x", None, None),
            ("message", "x ", None, None),
        ],
    );
}

#[test]
fn value_keeps_later_colons() {
    check(b"data: {\"a\":\"b:c\"}\n\n", &[("message", "{\"a\":\"b:c\"}", None, None)]);
}

#[test]
fn unknown_fields_are_ignored() {
    check(b"foo: bar\nerror: {\"x\":1}\ndata: a\n\n", &[("message", "a", None, None)]);
}

#[test]
fn leading_bom_is_dropped_once() {
    check(b"\xEF\xBB\xBFdata: a\n\n", &[("message", "a", None, None)]);
    // Only at the very start: a second BOM is part of the field name, which is then unknown.
    check(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\ndata: b\n\n", &[("message", "b", None, None)]);
}

#[test]
fn partial_bom_prefix_is_content() {
    check(b"\xEF\xBBdata: a\n\ndata: b\n\n", &[("message", "b", None, None)]);
    let (events, _) = parse_chunks(&[b"\xEF", b"\xBB", b"\xBF", b"data: a\n\n"]);
    assert_eq!(events, vec![event(&("message", "a", None, None))]);
}

#[test]
fn empty_data_dispatches_an_empty_event() {
    check(b"data:\n\ndata: \n\n", &[("message", "", None, None), ("message", "", None, None)]);
}

#[test]
fn event_only_block_dispatches_nothing_and_resets_type() {
    check(b"event: ping\n\nid: 3\n\ndata: a\n\n", &[("message", "a", Some("3"), None)]);
}

#[test]
fn blank_lines_without_data_dispatch_nothing() {
    check(b"\n\n\r\n\rdata: a\n\n\n\n", &[("message", "a", None, None)]);
}

#[test]
fn invalid_utf8_is_replaced_not_fatal() {
    check(b"data: a\xFFb\n\n", &[("message", "a\u{FFFD}b", None, None)]);
}

#[test]
fn multibyte_character_split_across_reads() {
    let (events, _) = parse_chunks(&[b"data: caf\xC3", b"\xA9\n\n"]);
    assert_eq!(events, vec![event(&("message", "café", None, None))]);
}

#[test]
fn eof_returns_unterminated_done_line() {
    let (events, rest) = parse_chunks(&[b"data: a\n\ndata: [DONE]"]);
    assert_eq!(events.len(), 1);
    assert_eq!(rest, Some(event(&("message", "[DONE]", None, None))));
}

#[test]
fn eof_returns_event_missing_its_blank_line() {
    let (_, rest) = parse_chunks(&[b"event: x\ndata: {\"a\":1}\n"]);
    assert_eq!(rest, Some(event(&("x", "{\"a\":1}", None, None))));
}

#[test]
fn eof_after_comment_or_field_only_has_no_remainder() {
    assert_eq!(parse_chunks(&[b"data: a\n\n: bye"]).1, None);
    assert_eq!(parse_chunks(&[b"data: a\n\nevent: x\n"]).1, None);
    assert_eq!(parse_chunks(&[b"data: a\r\n\r\n"]).1, None);
}

#[test]
fn oversized_line_is_an_error() {
    let mut parser = SseParser::with_limit(16);
    let mut events = Vec::new();
    assert!(parser.feed(b"data: 0123456789", &mut events).is_ok());
    assert!(matches!(parser.feed(b"abcdef", &mut events), Err(SseError::TooLarge { limit_bytes: 16 })));
    let mut parser = SseParser::with_limit(16);
    assert!(matches!(parser.feed(b"data: 0123456789abcdef\n", &mut events), Err(SseError::TooLarge { .. })));
}

#[test]
fn oversized_data_buffer_is_an_error() {
    let mut parser = SseParser::with_limit(16);
    let mut events = Vec::new();
    let result = parser.feed(b"data: 01234\ndata: 56789\ndata: abcde\n\n", &mut events);
    assert!(matches!(result, Err(SseError::TooLarge { .. })));
    assert!(events.is_empty());
}

#[test]
fn reader_yields_events_then_none_then_remainder() {
    // A reader returning one byte per read exercises every boundary through the Read path.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((&first, rest)) = self.0.split_first() else { return Ok(0) };
            buf[0] = first;
            self.0 = rest;
            Ok(1)
        }
    }
    let mut reader = SseReader::new(Trickle(b"data: a\n\n: ping\nevent: e\ndata: b\r\n\r\ndata: [DONE]"));
    assert_eq!(reader.next_event().unwrap(), Some(event(&("message", "a", None, None))));
    assert_eq!(reader.next_event().unwrap(), Some(event(&("e", "b", None, None))));
    assert_eq!(reader.next_event().unwrap(), None);
    assert_eq!(reader.next_event().unwrap(), None);
    assert_eq!(reader.finish(), Some(event(&("message", "[DONE]", None, None))));
}

#[test]
fn reader_reports_io_errors() {
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset"))
        }
    }
    assert!(matches!(SseReader::new(Broken).next_event(), Err(SseError::Io(_))));
}

#[test]
fn find_line_end_agrees_with_a_plain_scan() {
    let mut bytes = [b'x'; 40];
    for position in 0..40 {
        for terminator in [b'\n', b'\r'] {
            bytes.fill(b'x');
            bytes[position] = terminator;
            for start in 0..=position {
                assert_eq!(find_line_end(&bytes[start..]), Some(position - start));
            }
        }
    }
    assert_eq!(find_line_end(&[0x8A, 0x8D, 0x0B, 0x0C, 0xFF, 0x00, 0x09, 0x0E, 0x20]), None);
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sse"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "fixtures missing in {}", dir.display());
    files.into_iter().map(|path| (path.display().to_string(), std::fs::read(&path).unwrap())).collect()
}

#[test]
fn fixtures_parse_into_events() {
    for (name, bytes) in fixtures() {
        let (events, _) = parse_chunks(&[&bytes]);
        assert!(!events.is_empty(), "{name}: no events");
    }
}

#[test]
fn fixtures_split_at_every_single_boundary_match_the_whole_parse() {
    for (name, bytes) in fixtures() {
        let whole = parse_chunks(&[&bytes]);
        for split in 0..=bytes.len() {
            let (head, tail) = bytes.split_at(split);
            assert_eq!(parse_chunks(&[head, tail]), whole, "{name} split at {split}");
        }
    }
}

#[test]
fn fixtures_under_random_chunkings_match_the_whole_parse() {
    // Fixed so a failure replays exactly; the assertion message carries it.
    let seed: u64 = 0x5EED_0FCA_FEF0_0D17;
    let mut rng = XorShift(seed);
    for (name, bytes) in fixtures() {
        let whole = parse_chunks(&[&bytes]);
        for round in 0..50 {
            let mut chunks = Vec::new();
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                // Mostly tiny chunks (where boundaries bite), sometimes large ones.
                let max = if rng.below(4) == 0 { 4096 } else { 8 };
                let take = (1 + rng.below(max)).min(rest.len());
                let (chunk, tail) = rest.split_at(take);
                chunks.push(chunk);
                rest = tail;
            }
            assert_eq!(parse_chunks(&chunks), whole, "{name} round {round}, seed {seed}");
        }
    }
}

#[test]
fn lines_that_are_not_fields_are_ignored_but_kept_as_stray_text() {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    let input = b"error: {\"message\":\"boom\"}\n\nInternal Server Error\ndata: x\n\n: comment\nevent: e\n";
    for byte in input.chunks(1) {
        parser.feed(byte, &mut events).unwrap();
    }
    assert_eq!(events, vec![event(&("message", "x", None, None))]);
    assert_eq!(parser.stray_text(), Some("{\"message\":\"boom\"}\nInternal Server Error"));
    assert_eq!(SseParser::new().stray_text(), None);
}

#[test]
fn stray_text_is_capped() {
    let mut parser = SseParser::new();
    parser.feed(&b"x".repeat(10_000), &mut Vec::new()).unwrap();
    parser.feed(b"\n", &mut Vec::new()).unwrap();
    assert_eq!(parser.stray_text().map(str::len), Some(MAX_STRAY_BYTES));
}

#[test]
fn an_event_stays_small() {
    assert!(std::mem::size_of::<SseEvent>() <= 88);
}
