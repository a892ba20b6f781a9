//! Unit tests of `lost.rs`: one report, late hooks, silence, and which failures are losses.

use super::*;
use std::sync::Arc;

fn exited(detail: &str) -> McpError {
    McpError::Exited { detail: detail.to_string() }
}

/// A hook that records what it heard.
fn recorder() -> (LostHook, Arc<Mutex<Vec<McpError>>>) {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&heard);
    (Box::new(move |error| lock(&sink).push(error)), heard)
}

#[test]
fn a_loss_is_reported_once_with_its_first_reason() {
    let lost = Lost::default();
    let (hook, heard) = recorder();
    lost.watch(hook);
    assert_eq!(lost.reason(), None);
    lost.report(exited("it exited with exit status: 3"));
    lost.report(exited("its stdin is closed"));
    assert_eq!(*lock(&heard), vec![exited("it exited with exit status: 3")]);
    assert_eq!(lost.reason(), Some(exited("it exited with exit status: 3")));
}

#[test]
fn a_hook_set_after_the_loss_hears_of_it_at_once() {
    let lost = Lost::default();
    lost.report(exited("it closed its stdout"));
    let (hook, heard) = recorder();
    lost.watch(hook);
    assert_eq!(*lock(&heard), vec![exited("it closed its stdout")]);
}

#[test]
fn nothing_is_reported_after_mewcode_stops_the_server() {
    let lost = Lost::default();
    let (hook, heard) = recorder();
    lost.watch(hook);
    lost.silence();
    lost.report(exited("mewcode shut it down"));
    assert!(lock(&heard).is_empty());
    assert_eq!(lost.reason(), None);
}

#[test]
fn only_a_broken_server_is_a_loss_not_a_failed_call() {
    assert!(is_loss(&exited("x")));
    assert!(is_loss(&McpError::Network { message: "connection to h refused".into() }));
    assert!(is_loss(&McpError::Io { message: "broken pipe".into() }));
    assert!(!is_loss(&McpError::Rpc { code: -32602, message: "bad params".into() }));
    assert!(!is_loss(&McpError::Timeout { method: "tools/call".into(), seconds: 1.0 }));
    assert!(!is_loss(&McpError::Http { status: 500, message: "oops".into() }));
    assert!(!is_loss(&McpError::Cancelled));
}
