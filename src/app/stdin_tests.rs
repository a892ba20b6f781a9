//! Piped stdin: composed below the prompt, capped by the window, refused when binary.

use super::*;

#[test]
fn compose_puts_the_prompt_first_and_marks_the_piped_text() {
    assert_eq!(compose("explain", "fn main() {}\n"), "explain\n\n--- stdin ---\nfn main() {}\n--- end of stdin ---");
    assert_eq!(compose("explain", "x"), "explain\n\n--- stdin ---\nx\n--- end of stdin ---");
    assert_eq!(compose("explain", " \n"), "explain");
}

#[test]
fn binary_and_non_utf8_input_is_refused_with_the_offset() {
    assert!(matches!(decode(b"ab\0c".to_vec()), Err(StdinError::Binary { offset: 2 })));
    assert!(matches!(decode(b"abc\xff".to_vec()), Err(StdinError::NotUtf8 { offset: 3 })));
    assert_eq!(decode("héllo".as_bytes().to_vec()).unwrap(), "héllo");
}

#[test]
fn read_capped_refuses_one_byte_over_the_cap() {
    assert_eq!(read_capped(&b"12345"[..], 5, 10).unwrap(), b"12345");
    assert!(matches!(read_capped(&b"123456"[..], 5, 10), Err(StdinError::TooLarge { cap: 5, window: 10 })));
}

#[test]
fn cap_follows_the_window_up_to_one_mebibyte() {
    assert_eq!(cap_for_window(8000), 21000);
    assert_eq!(cap_for_window(128_000), 336_000);
    assert_eq!(cap_for_window(10_000_000), MAX_STDIN_BYTES);
}
