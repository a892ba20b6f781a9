//! Unit tests of `tool.rs`: prefixed names, results as the model reads them, object arguments.

use super::*;
use serde_json::json;

#[test]
fn names_are_prefixed_and_validated() {
    assert_eq!(full_name("github", "search_code"), Ok("mcp__github__search_code".to_string()));
    assert_eq!(full_name("a-b", "x-1"), Ok("mcp__a-b__x-1".to_string()));
    assert!(full_name("fs", "read.file").unwrap_err().contains("characters other than"));
    assert!(full_name("fs", "ünïcode").is_err());
    assert!(full_name("fs", &"x".repeat(60)).unwrap_err().contains("longer than 64"));
    assert_eq!(full_name("s", &"x".repeat(56)).map(|name| name.len()), Ok(64));
    assert!(full_name("s", &"x".repeat(57)).is_err());
}

fn check(result: Value, text: &str, is_error: bool, placeholders: usize) {
    let expected = Rendered { text: text.to_string(), is_error, placeholders, images: Vec::new() };
    assert_eq!(render_result(&result, None), expected, "{result}");
}

fn png_base64() -> String {
    crate::image::base64_encode(include_bytes!("../../fixtures/images/red-2x3.png"))
}

#[test]
fn an_image_block_reaches_a_model_with_vision_beside_its_placeholder() {
    let png = png_base64();
    // The server's mimeType is not trusted: the bytes say PNG.
    let result = json!({"content": [{"type": "text", "text": "shot"}, {"type": "image", "data": png, "mimeType": "image/jpeg"}]});
    let rendered = render_result(&result, Some("mcp__s__shot"));
    assert_eq!(rendered.text, "shot\n[image: image/png, 73 B]");
    assert_eq!(rendered.placeholders, 0, "nothing was dropped, so no warning");
    let image = Image {
        media_type: "image/png".into(),
        data: png.into(),
        size_px: Some((2, 3)),
        source: "mcp__s__shot".into(),
    };
    assert_eq!(rendered.images, [image]);
    // Without vision: the placeholder only, counted as dropped.
    let rendered = render_result(&result, None);
    assert_eq!(
        (rendered.text.as_str(), rendered.placeholders, rendered.images.len()),
        ("shot\n[image: image/jpeg, 73 B]", 1, 0)
    );
}

#[test]
fn an_image_block_that_is_no_image_stays_a_placeholder_even_with_vision() {
    let result = json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}, {"type": "image", "data": "*", "mimeType": "image/png"}]});
    let rendered = render_result(&result, Some("t"));
    assert_eq!((rendered.placeholders, rendered.images.len()), (2, 0));
}

#[test]
fn results_render_as_the_model_reads_them() {
    check(json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}), "a\nb", false, 0);
    check(json!({"content": [{"type": "text", "text": "no"}], "isError": true}), "no", true, 0);
    check(json!({"content": [], "structuredContent": {"matches": 2}}), r#"{"matches":2}"#, false, 0);
    check(
        json!({"content": [{"type": "text", "text": "{\"m\":2}"}], "structuredContent": {"m": 2}}),
        r#"{"m":2}"#,
        false,
        0,
    );
    let png = "A".repeat(16384);
    check(
        json!({"content": [{"type": "image", "data": png, "mimeType": "image/png"}, {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]}),
        "[image: image/png, 12 KB]\n[audio: audio/wav, 3 B]",
        false,
        2,
    );
    check(
        json!({"content": [
            {"type": "resource_link", "uri": "file:///a.rs", "name": "a.rs"},
            {"type": "resource", "resource": {"uri": "file:///b.txt", "text": "hello"}},
            {"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "AAAA", "mimeType": "application/gzip"}},
            {"type": "mystery"}
        ]}),
        "[resource link: file:///a.rs]\n[resource: file:///b.txt]\nhello\n[resource: file:///c.bin, application/gzip, 3 B]\n[mystery content]",
        false,
        1,
    );
    check(json!({}), "", false, 0);
}

#[test]
fn arguments_must_be_an_object() {
    assert_eq!(parse_arguments(""), Ok(json!({})));
    assert_eq!(parse_arguments("null"), Ok(json!({})));
    assert_eq!(parse_arguments(r#"{"a":1}"#), Ok(json!({"a": 1})));
    assert!(parse_arguments("[1]").is_err());
    assert!(parse_arguments("{").unwrap_err().starts_with("the input is not valid JSON"));
}
