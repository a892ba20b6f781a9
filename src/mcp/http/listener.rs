//! The listener of a server's standalone GET stream: a server that declares `tools.listChanged`
//! gets a thread (`mcp-http-listen`) on that stream for the list_changed notifications and
//! server requests it sends outside any request.
//!
//! Invariant: the stream is resumed like a response stream (after the server's `retry:`, with
//! `Last-Event-ID`); a 405 or any refusal ends the listener quietly, and so do
//! `MAX_LISTEN_FAILURES` failures in a row; a stream that cannot be opened because the server is
//! gone (refused, reset) ends it and reports the loss; `shutdown` stops it (and waits a moment) before the
//! DELETE, and dropping the transport stops it without waiting.

use super::{Body, DEFAULT_RETRY, Endpoint, HttpTransport, MAX_RETRY, MIN_RETRY, McpError};
use crate::cancel::CancelToken;
use crate::mcp::jsonrpc::{Incoming, TOOLS_LIST_CHANGED, parse_incoming};
use crate::mcp::lost::is_loss;
use crate::sse::SseReader;
use crate::sync::lock;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How many times in a row the standalone stream may fail to open or end empty before the
/// listener gives up on it.
const MAX_LISTEN_FAILURES: usize = 5;

/// The listener of the standalone stream: its thread, and what stops it.
pub(super) struct Listener {
    stop: CancelToken,
    agent: ureq::Agent,
    thread: std::thread::JoinHandle<()>,
}

impl HttpTransport {
    /// Starts the listener thread unless one is running.
    pub(super) fn spawn_listener(&self) {
        let mut listener = lock(&self.listener);
        if listener.as_ref().is_some_and(|running| !running.thread.is_finished()) {
            return;
        }
        let stop = CancelToken::new();
        let agent = self.endpoint.config.new_agent();
        let (endpoint, thread_stop, thread_agent) = (Arc::clone(&self.endpoint), stop.clone(), agent.clone());
        let spawned = std::thread::Builder::new()
            .name("mcp-http-listen".to_string())
            .spawn(move || endpoint.listen(&thread_agent, &thread_stop));
        // Without the thread the server's own messages are missed, as before; calls still work.
        if let Ok(thread) = spawned {
            *listener = Some(Listener { stop, agent, thread });
        }
    }

    /// Stops the listener thread, waiting for it at most until `deadline`.
    pub(super) fn stop_listening(&self, deadline: Instant) {
        let Some(listener) = lock(&self.listener).take() else { return };
        listener.stop.cancel();
        // Breaks the blocked read of the open stream.
        listener.agent.shutdown();
        while !listener.thread.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if listener.thread.is_finished() {
            let _ = listener.thread.join();
        }
    }
}

impl Endpoint {
    /// The listener thread's body: keeps the standalone GET stream open (resuming it after the
    /// server's `retry:` when it ends) and routes what the server sends on it, until `stop`, or
    /// until the server says it offers no such stream, or it fails `MAX_LISTEN_FAILURES` times in
    /// a row.
    fn listen(&self, agent: &ureq::Agent, stop: &CancelToken) {
        let mut last_event_id: Option<String> = None;
        let mut retry = DEFAULT_RETRY;
        let mut failures = 0;
        while !stop.is_cancelled() {
            let mut got_event = false;
            match self.open_standalone(agent, last_event_id.as_deref()) {
                Ok(Some(mut events)) => {
                    while let Ok(Some(event)) = events.next_event() {
                        got_event = true;
                        last_event_id = event.id.clone().or(last_event_id);
                        if let Some(retry_ms) = event.retry_ms {
                            retry = Duration::from_millis(retry_ms).clamp(MIN_RETRY, MAX_RETRY);
                        }
                        if !event.data.trim().is_empty() {
                            self.route_unsolicited(&event.data);
                        }
                    }
                }
                // 405 (the spec's "no stream here") or any other refusal: nothing to listen to.
                Ok(None) => return,
                // The server went away (refused, reset): it is lost, the moment it is seen.
                Err(error) if is_loss(&error) => {
                    if !stop.is_cancelled() {
                        self.lost.report(error);
                    }
                    return;
                }
                Err(_) => {}
            }
            failures = if got_event { 0 } else { failures + 1 };
            if failures >= MAX_LISTEN_FAILURES || !stop.sleep(retry) {
                return;
            }
        }
    }

    /// GET for the standalone stream; None when the server offers none.
    fn open_standalone(
        &self,
        agent: &ureq::Agent,
        last_event_id: Option<&str>,
    ) -> Result<Option<SseReader<Body>>, McpError> {
        // Open as long as the session lives: no overall timeout.
        let mut request =
            agent.get(&self.url).config().timeout_global(None).build().header("accept", "text/event-stream");
        if let Some(last) = last_event_id {
            request = request.header("last-event-id", last);
        }
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        for (name, value) in self.session_headers().0 {
            request = request.header(name, value);
        }
        let response = request.call().map_err(|err| self.map_error(err, "the event stream", Duration::ZERO))?;
        let status = response.status().as_u16();
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.to_ascii_lowercase().starts_with("text/event-stream"));
        if !(200..300).contains(&status) || !is_stream {
            return Ok(None);
        }
        Ok(Some(SseReader::new(Box::new(response.into_body().into_reader()))))
    }

    /// Routes a message of the standalone stream: a changed tool list is flagged, server
    /// requests are answered; responses and other notifications are not for us here.
    fn route_unsolicited(&self, text: &str) {
        let Ok(messages) = parse_incoming(text) else { return };
        for message in messages {
            match message {
                Incoming::Notification { method } if method == TOOLS_LIST_CHANGED => {
                    self.tools_changed.store(true, Ordering::SeqCst);
                }
                Incoming::ServerRequest { reply, .. } => {
                    let _ = self.notify(&reply);
                }
                Incoming::Response { .. }
                | Incoming::Progress { .. }
                | Incoming::Notification { .. }
                | Incoming::Ignored { .. } => {}
            }
        }
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        // Not joined: the thread ends as soon as its agent is shut down.
        if let Some(listener) = lock(&self.listener).take() {
            listener.stop.cancel();
            listener.agent.shutdown();
        }
    }
}
