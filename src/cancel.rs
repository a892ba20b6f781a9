//! A cancellation token passed down by value: cheap to clone, checked at every blocking point.
//!
//! Invariant: once cancelled, a token stays cancelled. Waiting on it (`sleep`) wakes immediately
//! on cancel, so backoff sleeps and polls never delay a Ctrl-C. It is never a global.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A shared flag plus a condition variable so sleepers wake at once when it is set.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    flag: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

impl CancelToken {
    /// A fresh, not-cancelled token.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Sets the flag and wakes every sleeper. Idempotent.
    pub fn cancel(&self) {
        self.inner.flag.store(true, Ordering::SeqCst);
        let _guard = self.inner.lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.inner.wake.notify_all();
    }

    /// True once `cancel` has been called on this token or any clone of it.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.inner.flag.load(Ordering::SeqCst)
    }

    /// Sleeps up to `duration`; returns early (and `false`) when cancelled. Returns `true` when
    /// the whole duration passed without a cancel.
    pub fn sleep(&self, duration: Duration) -> bool {
        let deadline = std::time::Instant::now() + duration;
        let mut guard = self.inner.lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        loop {
            if self.is_cancelled() {
                return false;
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return true;
            }
            guard = match self.inner.wake.wait_timeout(guard, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CancelToken({})", self.is_cancelled())
    }
}

#[cfg(test)]
#[path = "cancel_tests.rs"]
mod tests;
