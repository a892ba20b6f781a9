//! Shared-state helpers.
//!
//! Invariant: the one place that decides what a poisoned mutex means (STYLE.md): the data is
//! still used. A panic in another thread (a tool, a renderer) was already turned into an error
//! result or a message, and the values we guard (histories, path lists, buffers) stay valid.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, recovering the data of a poisoned one.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
