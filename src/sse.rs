//! The hand-written Server-Sent Events parser (WHATWG event-stream rules), incremental and bounded.
//!
//! Invariant: bytes in, events out; no IO of its own beyond the reader it is handed.

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, or "message" when none was given.
    pub event: String,
    /// The `data:` lines joined with "\n".
    pub data: String,
    /// The last-event-id buffer at dispatch time (persists across events), if any was set.
    pub id: Option<String>,
    /// The `retry:` value in milliseconds if this event block set one.
    pub retry_ms: Option<u64>,
}
