//! Unit tests of `cancel.rs`: a sleep cut short by a cancel from another thread.

use super::*;

#[test]
fn sleep_returns_early_when_cancelled_from_another_thread() {
    let token = CancelToken::new();
    let other = token.clone();
    let started = std::time::Instant::now();
    let sleeper = std::thread::spawn(move || other.sleep(Duration::from_secs(30)));
    token.cancel();
    assert_eq!(sleeper.join().ok(), Some(false));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(token.is_cancelled());
}

#[test]
fn sleep_runs_to_the_end_without_cancel() {
    assert!(CancelToken::new().sleep(Duration::from_millis(1)));
}
