//! The decision of one connection: the callback, asked once per connection, and the log of its
//! verdicts that a front end reads (`Proxy::decisions`).
//!
//! Invariant: the log's lock is never held while the callback runs, so one connection waiting for
//! its answer never holds up another's; a callback that panics is a denial, never an open door.

use super::{Decide, Decision, Target, Verdict};
use crate::sync::lock;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

/// The callback and the verdicts it gave.
pub(super) struct Decider {
    decide: Decide,
    log: Mutex<Vec<Decision>>,
}

impl Decider {
    pub(super) fn new(decide: Decide) -> Decider {
        Decider { decide, log: Mutex::new(Vec::new()) }
    }

    /// Asks the callback about `target` (blocking this connection only) and logs its verdict.
    pub(super) fn ask(&self, target: &Target) -> Verdict {
        let verdict = catch_unwind(AssertUnwindSafe(|| (self.decide)(target)))
            .unwrap_or_else(|_| Verdict::Deny("the network policy failed while deciding".to_string()));
        let mut log = lock(&self.log);
        let same =
            |entry: &&mut Decision| entry.host == target.host && entry.port == target.port && entry.verdict == verdict;
        match log.iter_mut().find(same) {
            Some(entry) => entry.count += 1,
            None => {
                log.push(Decision { host: target.host.clone(), port: target.port, verdict: verdict.clone(), count: 1 })
            }
        }
        verdict
    }

    /// The log so far.
    pub(super) fn log(&self) -> Vec<Decision> {
        lock(&self.log).clone()
    }
}
