//! The generic stream producer every provider uses: POST, read the SSE body, feed the
//! protocol's decoder, forward events, retry by the policy, honour cancellation.
//!
//! Threads: `spawn_stream` starts the producer thread (`llm-<name>`), which owns the attempt
//! loop; each attempt starts a body thread (`llm-<name>-body`) that does the blocking POST and
//! reads, handing parsed SSE events over a bounded channel. The producer waits on that channel
//! with a short timeout so it notices cancellation within `CANCEL_POLL`; on cancel it shuts the
//! attempt's connection down (`Canceller`), which makes the body thread's blocked read return.
//! After the terminal event (already forwarded) it waits up to `DRAIN_GRACE` for the body thread
//! to reach the end of the body, and only then keeps the connection for the next call; any other
//! ending shuts it.
//! The producer joins every body thread after it sent the terminal event and dropped its
//! sender, so the consumer never waits for a join (a TCP connect in progress can only be
//! bounded by the 10 s connect timeout).
//!
//! Invariant: the consumer sees exactly one terminal event (`Done` or `Error`), last; a broken
//! attempt that had shown output is announced by `Restart` before its replacement starts, one
//! that failed before output by `Retry` (with the delay) before the wait; a
//! stream that ends without the protocol's terminal marker is accepted only if the decoder's
//! `finish(false)` says so, and an unterminated last event is a truncation unless it is
//! `[DONE]`.

use super::decode::Decoder;
use super::error::parse_stray_error;
use super::http::{Canceller, DRAIN_GRACE, EventStream, Exchange, HttpClient};
use super::retry::{AttemptState, RetryDecision, RetryNotice, RetryPolicy, plan_retry};
use super::{LlmError, StreamEvent};
use crate::cancel::CancelToken;
use crate::sse::SseEvent;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use std::ops::Range;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a waiting producer checks the cancel token: the bound on cancel latency.
const CANCEL_POLL: Duration = Duration::from_millis(25);

/// The bytes of a request body, shared by every attempt of a call (never copied per attempt).
pub(crate) type Body = Arc<Vec<u8>>;

/// The prepared request of one model call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HttpCall {
    /// The full endpoint URL (`{base_url}/messages`, `{base_url}/chat/completions`).
    pub url: String,
    /// Headers besides `content-type: application/json` (keys, versions).
    pub headers: Vec<(String, String)>,
    /// The JSON request body.
    pub body: Body,
    /// A second body to switch to when the server rejects the first one for a known reason.
    pub fallback: Option<Fallback>,
}

/// "If the server answers 400 and its message mentions `trigger`, send the body without the
/// bytes `cut` instead" — used by OpenAI-compatible providers to retry once without
/// `stream_options` (the encoder gives the range of that entry, so the fallback body is built
/// only when needed and a call never holds two encodings of its history). The switch happens at
/// most once per call, at once (no backoff), does not use up an attempt, and sticks for any
/// later retries of the same call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fallback {
    pub cut: Range<usize>,
    /// Matched case-insensitively against the 400 error's message.
    pub trigger: String,
}

impl Fallback {
    /// `body` without the cut bytes (an out-of-range cut leaves it whole).
    pub(crate) fn apply(&self, body: &[u8]) -> Vec<u8> {
        match (body.get(..self.cut.start), body.get(self.cut.end..)) {
            (Some(head), Some(tail)) if self.cut.start <= self.cut.end => [head, tail].concat(),
            _ => body.to_vec(),
        }
    }
}

/// Starts one streamed completion on a new producer thread and returns the consumer's end.
/// `make_decoder` builds a fresh decoder for every attempt.
pub(crate) fn spawn_stream(
    name: &str,
    client: HttpClient,
    call: HttpCall,
    make_decoder: impl Fn() -> Box<dyn Decoder> + Send + 'static,
    policy: RetryPolicy,
    cancel: CancelToken,
) -> Receiver<StreamEvent> {
    // Unbounded: a reply is bounded by max_tokens, and a producer blocked on a slow renderer
    // could neither notice cancellation nor keep reading the socket.
    let (events_tx, events_rx) = crossbeam_channel::unbounded();
    let fallback_tx = events_tx.clone();
    let producer = Producer { name: name.to_string(), client, make_decoder: Box::new(make_decoder), policy, cancel };
    let spawned = std::thread::Builder::new().name(format!("llm-{name}")).spawn(move || producer.run(call, events_tx));
    if let Err(err) = spawned {
        let message = format!("cannot start the stream thread: {err}");
        let _ = fallback_tx.send(StreamEvent::Error(LlmError::Network { message }));
    }
    events_rx
}

struct Producer {
    name: String,
    client: HttpClient,
    make_decoder: Box<dyn Fn() -> Box<dyn Decoder> + Send>,
    policy: RetryPolicy,
    cancel: CancelToken,
}

/// What the body thread hands the producer.
enum BodyMessage {
    /// Events, with the body's lines so far that were not event-stream fields, if any (an old
    /// llama.cpp's `error:` line before its `data: [DONE]`).
    Events(Vec<SseEvent>, Option<String>),
    /// Clean end of the body, with the unterminated last event if there was one and the body's
    /// lines that were not event-stream fields (a server's non-standard error), if any.
    End(Option<SseEvent>, Option<String>),
    Failed(LlmError),
}

/// How one attempt ended.
enum AttemptEnd {
    /// `Done` was forwarded; `body_ended` when the body's end was what completed it.
    Completed {
        body_ended: bool,
    },
    Failed {
        error: LlmError,
        had_output: bool,
    },
    /// Cancelled, or the consumer hung up: stop without retrying.
    Stopped(LlmError),
}

impl Producer {
    fn run(self, call: HttpCall, events_tx: Sender<StreamEvent>) {
        let mut body_threads = Vec::new();
        let terminal = self.attempts(call, &events_tx, &mut body_threads);
        if let Some(error) = terminal {
            let _ = events_tx.send(StreamEvent::Error(error));
        }
        drop(events_tx);
        for body_thread in body_threads {
            let _ = body_thread.join();
        }
    }

    /// Runs attempts until one completes or the policy gives up; returns the terminal error,
    /// or None when `Done` was already forwarded.
    fn attempts(
        &self,
        call: HttpCall,
        events_tx: &Sender<StreamEvent>,
        threads: &mut Vec<JoinHandle<()>>,
    ) -> Option<LlmError> {
        let mut body = call.body;
        let mut fallback = call.fallback;
        let mut attempt = 0;
        let mut restarts = 0;
        loop {
            if self.cancel.is_cancelled() {
                return Some(LlmError::Cancelled);
            }
            attempt += 1;
            let (error, had_output) = match self.attempt(&call.url, &call.headers, &body, events_tx, threads) {
                AttemptEnd::Completed { .. } => return None,
                AttemptEnd::Stopped(error) => return Some(error),
                AttemptEnd::Failed { error, had_output } => (error, had_output),
            };
            if let Some(switch) = fallback.take_if(|switch| triggers(switch, &error) && !had_output) {
                body = Arc::new(switch.apply(&body));
                attempt -= 1;
                continue;
            }
            let state = AttemptState { attempt, restarts, had_output };
            let delay = match plan_retry(&self.policy, &error, state, jitter()) {
                RetryDecision::GiveUp => return Some(error),
                RetryDecision::Retry(delay) => delay,
            };
            let announcement = if had_output {
                restarts += 1;
                // Counted as the policy counts restarts: their own budget.
                let max = self.policy.max_restarts_after_output;
                StreamEvent::Restart { restart: restarts, max, reason: error.to_string() }
            } else {
                // Counted as the policy counts: restarted attempts do not use up this budget.
                let next = attempt - restarts + 1;
                let max = self.policy.max_attempts_before_output;
                StreamEvent::Retry(RetryNotice::new(&error, next, max, delay))
            };
            if events_tx.send(announcement).is_err() {
                return Some(LlmError::Cancelled);
            }
            if !self.cancel.sleep(delay) {
                return Some(LlmError::Cancelled);
            }
        }
    }

    /// One POST and its body, decoded and forwarded.
    fn attempt(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &Body,
        events_tx: &Sender<StreamEvent>,
        threads: &mut Vec<JoinHandle<()>>,
    ) -> AttemptEnd {
        let exchange = self.client.exchange();
        let mut canceller = exchange.canceller();
        // bounded(64): the socket may run a little ahead of decoding, but a stalled producer
        // stops the reads (backpressure) instead of buffering the whole body.
        let (body_tx, body_rx) = crossbeam_channel::bounded(64);
        let (url, headers, body) = (url.to_string(), headers.to_vec(), Arc::clone(body));
        let spawned = std::thread::Builder::new()
            .name(format!("llm-{}-body", self.name))
            .spawn(move || read_body(&exchange, &url, &headers, &body, &body_tx));
        match spawned {
            Ok(handle) => threads.push(handle),
            Err(err) => {
                let error = LlmError::Network { message: format!("cannot start the body reader thread: {err}") };
                return AttemptEnd::Failed { error, had_output: false };
            }
        }
        let mut decoder = (self.make_decoder)();
        let outcome = self.pump(&body_rx, decoder.as_mut(), events_tx, &mut canceller);
        // A completed response whose body then ends cleanly leaves its connection for the next
        // call. Anything else: shutting the connection down releases a body thread still
        // blocked on it, and dropping the channel one blocked on sending.
        match outcome {
            AttemptEnd::Completed { body_ended } if body_ended || self.body_ended(&body_rx) => canceller.keep(),
            _ => canceller.cancel(),
        }
        drop(body_rx);
        outcome
    }

    /// After the terminal event: whether the body thread reaches the end of the body within
    /// `DRAIN_GRACE` (events after the terminal one are ignored, as they always were).
    fn body_ended(&self, body_rx: &Receiver<BodyMessage>) -> bool {
        let deadline = Instant::now() + DRAIN_GRACE;
        loop {
            match body_rx.recv_timeout(CANCEL_POLL.min(deadline.saturating_duration_since(Instant::now()))) {
                Ok(BodyMessage::End(..)) => return true,
                Ok(BodyMessage::Events(..)) => {}
                Ok(BodyMessage::Failed(_)) | Err(RecvTimeoutError::Disconnected) => return false,
                Err(RecvTimeoutError::Timeout) => {
                    if self.cancel.is_cancelled() || Instant::now() >= deadline {
                        return false;
                    }
                }
            }
        }
    }

    fn pump(
        &self,
        body_rx: &Receiver<BodyMessage>,
        decoder: &mut dyn Decoder,
        events_tx: &Sender<StreamEvent>,
        canceller: &mut Canceller,
    ) -> AttemptEnd {
        let mut out = Vec::new();
        loop {
            let message = match body_rx.recv_timeout(CANCEL_POLL) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => {
                    if self.cancel.is_cancelled() {
                        return AttemptEnd::Stopped(LlmError::Cancelled);
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => BodyMessage::Failed(LlmError::Network {
                    message: format!("the reader of {} stopped unexpectedly", self.client.host()),
                }),
            };
            if self.cancel.is_cancelled() {
                return AttemptEnd::Stopped(LlmError::Cancelled);
            }
            let at_end = matches!(message, BodyMessage::End(..));
            let step = match message {
                BodyMessage::Events(events, stray) => or_stray(feed_all(decoder, &events, &mut out), stray),
                BodyMessage::End(remainder, stray) => end_of_body(decoder, remainder, stray, &mut out),
                BodyMessage::Failed(error) => Err(error),
            };
            if matches!(step, Ok(true)) {
                // Before `Done` goes out: the consumer's next call must find this connection
                // on its way back, not open a second one.
                canceller.begin_drain();
            }
            // Forward what was decoded even when the step then failed: the consumer drops it
            // on the Restart or Error that follows, and sees the partial output meanwhile.
            for event in out.drain(..) {
                if events_tx.send(event).is_err() {
                    return AttemptEnd::Stopped(LlmError::Cancelled);
                }
            }
            match step {
                Ok(true) => return AttemptEnd::Completed { body_ended: at_end },
                Ok(false) => {}
                Err(error) => return AttemptEnd::Failed { error, had_output: decoder.has_output() },
            }
        }
    }
}

/// Feeds events until the terminal marker; returns whether the attempt completed.
fn feed_all(decoder: &mut dyn Decoder, events: &[SseEvent], out: &mut Vec<StreamEvent>) -> Result<bool, LlmError> {
    for event in events {
        if decoder.feed(event, out)? {
            decoder.finish(true, out)?;
            return Ok(true);
        }
    }
    Ok(false)
}

/// The body ended without the terminal marker having been fed. The lenient rule: an
/// unterminated `[DONE]` counts; any other unterminated event is a truncation. Otherwise the
/// decoder decides whether what it saw is complete. When it was not, and the body carried text
/// outside the event-stream fields (old llama.cpp's `error:` line, a plain-text or bare-JSON
/// error sent with status 200), that text is the error, classified, rather than "malformed".
fn end_of_body(
    decoder: &mut dyn Decoder,
    remainder: Option<SseEvent>,
    stray: Option<String>,
    out: &mut Vec<StreamEvent>,
) -> Result<bool, LlmError> {
    or_stray(complete_at_end(decoder, remainder, out), stray)
}

/// A stream found incomplete or malformed whose body carried a server's non-standard error text
/// fails with that error, classified (and retried or not as it says), not as "malformed": also
/// when the body went on to `[DONE]`, as old llama.cpp's does after its `error:` line.
fn or_stray(step: Result<bool, LlmError>, stray: Option<String>) -> Result<bool, LlmError> {
    match step {
        Err(LlmError::Protocol { .. }) if let Some(stray) = stray => Err(parse_stray_error(&stray)),
        other => other,
    }
}

fn complete_at_end(
    decoder: &mut dyn Decoder,
    remainder: Option<SseEvent>,
    out: &mut Vec<StreamEvent>,
) -> Result<bool, LlmError> {
    if let Some(event) = remainder {
        if event.data.trim() != "[DONE]" {
            let shown: String = event.data.chars().take(80).collect();
            return Err(LlmError::Protocol { message: format!("stream ended in the middle of an event: {shown}") });
        }
        if feed_all(decoder, std::slice::from_ref(&event), out)? {
            return Ok(true);
        }
    }
    decoder.finish(false, out)?;
    Ok(true)
}

/// The body thread: POST, then read until EOF or error, handing events over.
fn read_body(exchange: &Exchange, url: &str, headers: &[(String, String)], body: &[u8], body_tx: &Sender<BodyMessage>) {
    let mut stream: EventStream = match exchange.post(url, headers, body) {
        Ok(stream) => stream,
        Err(error) => {
            let _ = body_tx.send(BodyMessage::Failed(error));
            return;
        }
    };
    let mut events = Vec::new();
    loop {
        let message = match stream.read_some(&mut events) {
            Ok(0) => BodyMessage::End(stream.finish(), stream.stray_text().map(str::to_string)),
            Ok(_) if events.is_empty() => continue, // a keep-alive or part of an event
            Ok(_) => BodyMessage::Events(std::mem::take(&mut events), stream.stray_text().map(str::to_string)),
            Err(error) => BodyMessage::Failed(exchange.read_error(error)),
        };
        let last = !matches!(message, BodyMessage::Events(..));
        if body_tx.send(message).is_err() || last {
            return;
        }
    }
}

fn triggers(fallback: &Fallback, error: &LlmError) -> bool {
    match error {
        LlmError::Request { status: 400, message } => {
            message.to_ascii_lowercase().contains(&fallback.trigger.to_ascii_lowercase())
        }
        _ => false,
    }
}

/// Jitter for backoff from the clock's nanoseconds: spread, not secrecy, is all it needs.
fn jitter() -> f64 {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|elapsed| elapsed.subsec_nanos());
    f64::from(nanos.unwrap_or(0) % 1000) / 1000.0
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
