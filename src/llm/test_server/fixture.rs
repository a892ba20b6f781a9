//! Test-only helpers that replay a recorded transcript through a decoder.
//!
//! Invariant: the splitter here is NOT the production SSE parser (that is `sse.rs`); it only
//! handles the well-formed fixtures (LF or CRLF lines, blank-line separated blocks, `event:` /
//! `data:` fields, `:` comments), which is all the decoder tests need.

use crate::llm::StreamEvent;
use crate::llm::decode::Decoder;
use crate::sse::SseEvent;

/// Reads `fixtures/transcripts/<name>` and splits it into SSE events.
pub(crate) fn load(name: &str) -> Vec<SseEvent> {
    load_from("transcripts", name)
}

/// Reads `fixtures/<dir>/<name>` (e.g. `local-models`) and splits it into SSE events.
pub(crate) fn load_from(dir: &str, name: &str) -> Vec<SseEvent> {
    let path = format!("{}/fixtures/{dir}/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
    split(&text)
}

/// Splits well-formed event-stream text into events; blocks without data are not dispatched.
pub(crate) fn split(text: &str) -> Vec<SseEvent> {
    let normalised = text.replace("\r\n", "\n");
    let mut events = Vec::new();
    for block in normalised.split("\n\n") {
        let mut event = String::from("message");
        let mut data: Vec<&str> = Vec::new();
        for line in block.lines() {
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => event = value.to_string(),
                "data" => data.push(value),
                _ => {}
            }
        }
        if !data.is_empty() {
            events.push(SseEvent { event, data: data.join("\n"), id: None, retry_ms: None });
        }
    }
    events
}

/// Feeds every event the way the provider does and returns what a consumer would see: the
/// decoded events followed by the closing events, or by one `Error` when decoding failed.
/// Consecutive `Text` (and `Thinking`) fragments are coalesced so expectations stay readable;
/// the order of event kinds is kept exactly.
pub(crate) fn replay(decoder: &mut dyn Decoder, events: &[SseEvent]) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    let mut saw_terminal = false;
    for event in events {
        match decoder.feed(event, &mut out) {
            Ok(true) => {
                saw_terminal = true;
                break;
            }
            Ok(false) => {}
            Err(err) => {
                out.push(StreamEvent::Error(err));
                return coalesce(out);
            }
        }
    }
    if let Err(err) = decoder.finish(saw_terminal, &mut out) {
        out.push(StreamEvent::Error(err));
    }
    coalesce(out)
}

/// Joins runs of `Text` and runs of `Thinking` into one event each.
pub(crate) fn coalesce(events: Vec<StreamEvent>) -> Vec<StreamEvent> {
    let mut joined: Vec<StreamEvent> = Vec::new();
    for event in events {
        match (joined.last_mut(), event) {
            (Some(StreamEvent::Text(previous)), StreamEvent::Text(next)) => previous.push_str(&next),
            (Some(StreamEvent::Thinking(previous)), StreamEvent::Thinking(next)) => previous.push_str(&next),
            (_, event) => joined.push(event),
        }
    }
    joined
}

/// `StreamEvent::Text` of `text`, for expected event lists.
pub(crate) fn text(text: &str) -> StreamEvent {
    StreamEvent::Text(text.to_string())
}

/// `StreamEvent::Thinking` of `text`.
pub(crate) fn thinking(text: &str) -> StreamEvent {
    StreamEvent::Thinking(text.to_string())
}

/// `StreamEvent::ToolCalls` of `(id, name, input)` triples.
pub(crate) fn calls(calls: &[(&str, &str, &str)]) -> StreamEvent {
    StreamEvent::ToolCalls(
        calls
            .iter()
            .map(|(id, name, input)| crate::msg::ToolCall {
                id: id.to_string(),
                name: name.to_string(),
                input: input.to_string(),
            })
            .collect(),
    )
}
