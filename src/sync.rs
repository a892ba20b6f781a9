//! Shared-state helpers.
//!
//! Invariant: the one place that decides what a poisoned mutex means (STYLE.md): the data is
//! still used. A panic in another thread (a tool, a renderer) was already turned into an error
//! result or a message, and the values we guard (histories, path lists, buffers) stay valid.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks a mutex, recovering the data of a poisoned one.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Read-locks an RwLock, recovering the data of a poisoned one.
pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Write-locks an RwLock, recovering the data of a poisoned one.
pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|poisoned| poisoned.into_inner())
}
