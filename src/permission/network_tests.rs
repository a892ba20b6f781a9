//! Unit tests of `network.rs`: the proxy's callback over the policy, the questions it asks (once
//! at a time, once per refused host), what `y`, `a` and `n` do, the notes, and the pins.

use super::*;
use crate::config::{NetworkMode, SandboxConfig};
use crate::netproxy::Kind;
use std::sync::atomic::{AtomicUsize, Ordering};

fn gate(mode: NetworkMode, save: Option<SaveHost>) -> Arc<NetworkGate> {
    let sandbox = SandboxConfig { network_mode: mode, ..SandboxConfig::default() };
    let policy = HostPolicy::new(&sandbox, Vec::new(), Vec::new(), "~/.mewcode/config.yaml");
    let pins = parse_pins("pinned.example:80:127.0.0.1:8080").unwrap();
    Arc::new(NetworkGate::new(policy, pins, save, ".mewcode/settings.local.yaml"))
}

fn target(host: &str, port: u16) -> Target {
    Target { host: host.to_string(), port, kind: Kind::Connect }
}

/// An asker that answers `answer` and counts the questions.
fn answering(answer: HostAnswer, count: &Arc<AtomicUsize>) -> HostAsk {
    let count = Arc::clone(count);
    HostAsk::new(move |question: &HostQuestion| {
        assert!(question.reason.contains("sandbox.allow_hosts"), "{}", question.reason);
        assert_eq!(question.saves_to, ".mewcode/settings.local.yaml");
        count.fetch_add(1, Ordering::SeqCst);
        answer
    })
}

#[test]
fn a_registry_passes_unasked_and_an_unlisted_host_is_refused_with_nobody_to_ask() {
    let gate = gate(NetworkMode::Allowlist, None);
    let log = CommandNet::default();
    let decide = gate.decider(None, log.clone());
    assert_eq!(decide(&target("registry.npmjs.org", 443)), Verdict::Allow);
    let Verdict::Deny(reason) = decide(&target("evil.example", 443)) else { panic!("allowed") };
    assert!(reason.contains("evil.example:443") && reason.contains("sandbox.allow_hosts"), "{reason}");
    let notes = log.notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with("network: evil.example:443") && notes[0].contains("nobody to ask"), "{notes:?}");
}

#[test]
fn yes_allows_the_host_for_the_session_and_it_is_not_asked_again() {
    let gate = gate(NetworkMode::Allowlist, None);
    let count = Arc::new(AtomicUsize::new(0));
    let first = gate.decider(Some(answering(HostAnswer::Session, &count)), CommandNet::default());
    assert_eq!(first(&target("new.example", 443)), Verdict::Allow);
    // Another command later in the session: allowed by the grant, no question.
    let later = gate.decider(Some(answering(HostAnswer::Deny, &count)), CommandNet::default());
    assert_eq!(later(&target("new.example", 80)), Verdict::Allow);
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert!(gate.describe().iter().any(|line| line == "asked this session: new.example (allowed for the session)"));
}

#[test]
fn no_refuses_and_the_command_is_not_asked_again_about_that_host() {
    let gate = gate(NetworkMode::Allowlist, None);
    let count = Arc::new(AtomicUsize::new(0));
    let log = CommandNet::default();
    let decide = gate.decider(Some(answering(HostAnswer::Deny, &count)), log.clone());
    for _ in 0..3 {
        assert!(matches!(decide(&target("new.example", 443)), Verdict::Deny(_)));
    }
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert_eq!(log.notes().len(), 1, "{:?}", log.notes());
    assert!(log.notes()[0].contains("refused by the person"));
    // A later command asks again: the refusal was for that command.
    let again = gate.decider(Some(answering(HostAnswer::Deny, &count)), CommandNet::default());
    assert!(matches!(again(&target("new.example", 443)), Verdict::Deny(_)));
    assert_eq!(count.load(Ordering::SeqCst), 2);
}

#[test]
fn always_saves_the_host_and_a_failed_save_is_said() {
    let saved: Arc<Mutex<Vec<String>>> = Arc::default();
    let into = Arc::clone(&saved);
    let save: SaveHost = Box::new(move |host: &str| {
        lock(&into).push(host.to_string());
        Err("the disk is full".to_string())
    });
    let gate = gate(NetworkMode::Allowlist, Some(save));
    let count = Arc::new(AtomicUsize::new(0));
    let log = CommandNet::default();
    let decide = gate.decider(Some(answering(HostAnswer::Always, &count)), log.clone());
    assert_eq!(decide(&target("new.example", 443)), Verdict::Allow);
    assert_eq!(*lock(&saved), vec!["new.example".to_string()]);
    assert_eq!(log.notes(), vec!["network: new.example allowed for this session only: the disk is full".to_string()]);
}

#[test]
fn questions_for_one_host_from_many_connections_come_one_at_a_time_and_once() {
    let gate = gate(NetworkMode::Allowlist, None);
    let count = Arc::new(AtomicUsize::new(0));
    let decide = gate.decider(Some(answering(HostAnswer::Session, &count)), CommandNet::default());
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let decide = Arc::clone(&decide);
            std::thread::spawn(move || decide(&target("busy.example", 443)))
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap(), Verdict::Allow);
    }
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[test]
fn off_refuses_without_asking_and_open_allows_everything() {
    let count = Arc::new(AtomicUsize::new(0));
    let off = gate(NetworkMode::Off, None).decider(Some(answering(HostAnswer::Session, &count)), CommandNet::default());
    assert!(matches!(off(&target("registry.npmjs.org", 443)), Verdict::Deny(reason) if reason.contains("off")));
    let open = gate(NetworkMode::Open, None).decider(Some(answering(HostAnswer::Deny, &count)), CommandNet::default());
    assert_eq!(open(&target("anything.example", 22)), Verdict::Allow);
    assert_eq!(count.load(Ordering::SeqCst), 0);
}

#[test]
fn a_pinned_host_is_allowed_at_its_address_once_the_policy_allows_it() {
    let gate = gate(NetworkMode::Allowlist, None);
    let count = Arc::new(AtomicUsize::new(0));
    let decide = gate.decider(Some(answering(HostAnswer::Session, &count)), CommandNet::default());
    assert_eq!(decide(&target("pinned.example", 80)), Verdict::AllowAt("127.0.0.1:8080".parse().unwrap()));
    // The pin is for port 80 only, and a pin never skips the question.
    assert_eq!(decide(&target("pinned.example", 443)), Verdict::Allow);
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[test]
fn pins_parse_as_curls_resolve_and_bad_entries_are_named() {
    let pins = parse_pins(" Registry.NPMjs.org:443:127.0.0.1:4443 , a.example:80:[::1]:8080,").unwrap();
    assert_eq!(pins[0], Pin { host: "registry.npmjs.org".into(), port: 443, at: "127.0.0.1:4443".parse().unwrap() });
    assert_eq!(pins[1].at, "[::1]:8080".parse().unwrap());
    for bad in ["a.example", "a.example:80", "a.example:x:127.0.0.1:1", "a.example:80:nowhere", ":80:127.0.0.1:1"] {
        let error = parse_pins(bad).unwrap_err();
        assert!(error.contains(&format!("{bad:?}")), "{error}");
    }
    assert!(parse_pins("").unwrap().is_empty());
}

#[test]
fn a_front_end_that_cannot_ask_refuses_once_per_command_and_says_nobody_was_asked() {
    let gate = gate(NetworkMode::Allowlist, None);
    let count = Arc::new(AtomicUsize::new(0));
    let log = CommandNet::default();
    let decide = gate.decider(Some(answering(HostAnswer::Unasked, &count)), log.clone());
    for _ in 0..2 {
        let Verdict::Deny(reason) = decide(&target("new.example", 443)) else { panic!("allowed") };
        assert!(reason.ends_with("(nobody to ask here, so it was refused)") && !reason.contains("person"), "{reason}");
    }
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert_eq!(log.notes().len(), 1);
    assert!(gate.describe().iter().any(|line| line.ends_with("new.example (refused, nobody to ask)")));
}
