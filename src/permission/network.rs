//! The network policy at work for one session: the command proxy's decision for each connection
//! (`hosts::decide`), a question to the person for a host the policy asks about, and what was
//! allowed and refused, for the tool result, `-p`'s denials, doctor and `/status`.
//!
//! Invariant: a host is asked about at most once at a time (several connections of one command
//! often want the same new host together: the others wait for that answer, then are decided by
//! it); nobody to ask (`-p`, hooks) or no answer is a refusal; `y` allows the host for the
//! session, `a` also saves it in the project's local settings, and a save that fails still
//! allows it for the session and says why. The callback never panics on bad input: a target that
//! is no host is refused by `hosts::decide`.

use super::hosts::{HostPolicy, HostVerdict, SessionGrants, decide};
use crate::netproxy::{Decide, Target, Verdict};
use crate::sync::lock;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

/// One question to the person: a command wants to reach a host the policy does not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostQuestion {
    pub host: String,
    pub port: u16,
    /// Why it is asked: the policy's reason, which names the setting that would allow it.
    pub reason: String,
    /// Where `a` saves the host.
    pub saves_to: String,
}

/// The person's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostAnswer {
    /// `y`: for the rest of the session.
    Session,
    /// `a`: for the session, and saved in the project's local settings.
    Always,
    /// `n`.
    Deny,
    /// Refused because nobody can answer (`-p`).
    Unasked,
}

/// How a question reaches the person (the agent turns it into an event the front end answers);
/// it blocks until the answer.
#[derive(Clone)]
pub struct HostAsk(Arc<dyn Fn(&HostQuestion) -> HostAnswer + Send + Sync>);

impl HostAsk {
    pub(crate) fn new(ask: impl Fn(&HostQuestion) -> HostAnswer + Send + Sync + 'static) -> HostAsk {
        HostAsk(Arc::new(ask))
    }

    /// Puts `question` and waits for the answer.
    pub(crate) fn ask(&self, question: &HostQuestion) -> HostAnswer {
        (self.0)(question)
    }
}

impl std::fmt::Debug for HostAsk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostAsk")
    }
}

/// Saves a host for good (`a`): the file it went to, or why it could not.
pub(crate) type SaveHost = Box<dyn Fn(&str) -> Result<String, String> + Send + Sync>;

/// A host pinned to another address (`MEWCODE_RESOLVE=host:port:address:port`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pin {
    pub host: String,
    pub port: u16,
    pub at: SocketAddr,
}

/// The session's network policy.
pub(crate) struct NetworkGate {
    policy: HostPolicy,
    grants: Mutex<SessionGrants>,
    /// Held while a question is out: one at a time.
    asking: Mutex<()>,
    /// The hosts asked about this session and the answers, in order.
    asked: Mutex<Vec<(String, HostAnswer)>>,
    pins: Vec<Pin>,
    save: Option<SaveHost>,
    /// Where `a` saves, as the question names it.
    saves_to: String,
}

/// What happened to one command's connections, beyond plain allows: the lines its tool result
/// ends with.
#[derive(Clone, Debug, Default)]
pub(crate) struct CommandNet {
    notes: Arc<Mutex<Vec<String>>>,
}

impl CommandNet {
    /// The lines, each once, in order.
    pub(crate) fn notes(&self) -> Vec<String> {
        lock(&self.notes).clone()
    }

    /// Adds a line (once).
    pub(crate) fn note(&self, line: String) {
        let mut notes = lock(&self.notes);
        if !notes.contains(&line) {
            notes.push(line);
        }
    }
}

impl std::fmt::Debug for NetworkGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkGate").field("policy", &self.policy).field("pins", &self.pins).finish_non_exhaustive()
    }
}

impl NetworkGate {
    pub(crate) fn new(policy: HostPolicy, pins: Vec<Pin>, save: Option<SaveHost>, saves_to: &str) -> NetworkGate {
        NetworkGate {
            policy,
            grants: Mutex::new(SessionGrants::default()),
            asking: Mutex::new(()),
            asked: Mutex::new(Vec::new()),
            pins,
            save,
            saves_to: saves_to.to_string(),
        }
    }

    /// The policy's lines for doctor and `/status`, then the hosts asked about this session.
    pub(crate) fn describe(&self) -> Vec<String> {
        let mut lines = super::hosts::describe(&self.policy);
        let asked = lock(&self.asked);
        if !asked.is_empty() {
            let answers: Vec<String> = asked
                .iter()
                .map(|(host, answer)| {
                    let said = match answer {
                        HostAnswer::Session => "allowed for the session",
                        HostAnswer::Always => "allowed and saved",
                        HostAnswer::Deny => "refused",
                        HostAnswer::Unasked => "refused, nobody to ask",
                    };
                    format!("{host} ({said})")
                })
                .collect();
            lines.push(format!("asked this session: {}", answers.join(", ")));
        }
        lines
    }

    /// The proxy's callback for one command: `ask` puts questions to the person (None refuses
    /// what the policy would ask about), and `log` collects the refusals for its tool result.
    pub(crate) fn decider(self: &Arc<Self>, ask: Option<HostAsk>, log: CommandNet) -> Decide {
        let gate = Arc::clone(self);
        // A host the person refused for this command is not asked about again by its next
        // connection (a package manager opens many).
        let refused: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
        Arc::new(move |target: &Target| gate.decide(target, ask.as_ref(), &log, &refused))
    }

    fn decide(
        &self,
        target: &Target,
        ask: Option<&HostAsk>,
        log: &CommandNet,
        refused: &Mutex<Vec<(String, String)>>,
    ) -> Verdict {
        let reason = match self.verdict(target) {
            HostVerdict::Allow(_) => return self.allow(target),
            HostVerdict::Deny(reason) => {
                log.note(format!("network: {reason}"));
                return Verdict::Deny(reason);
            }
            HostVerdict::Ask(reason) => reason,
        };
        let unasked = |reason: String| {
            let line = format!("{reason} (nobody to ask here, so it was refused)");
            log.note(format!("network: {line}"));
            Verdict::Deny(line)
        };
        let Some(ask) = ask else { return unasked(reason) };
        // One question at a time; whoever waited re-decides with the answer in place.
        let _asking = lock(&self.asking);
        if let Some((_, line)) = lock(refused).iter().find(|(host, _)| *host == target.host) {
            return Verdict::Deny(line.clone());
        }
        if let HostVerdict::Allow(_) = self.verdict(target) {
            return self.allow(target);
        }
        let question =
            HostQuestion { host: target.host.clone(), port: target.port, reason, saves_to: self.saves_to.clone() };
        let answer = ask.ask(&question);
        lock(&self.asked).push((target.host.clone(), answer));
        let refuse = |verdict: Verdict| {
            if let Verdict::Deny(line) = &verdict {
                lock(refused).push((target.host.clone(), line.clone()));
            }
            verdict
        };
        match answer {
            HostAnswer::Unasked => refuse(unasked(question.reason)),
            HostAnswer::Deny => {
                let line = format!("{} was refused by the person; {}", target.host, question.reason);
                log.note(format!("network: {line}"));
                refuse(Verdict::Deny(line))
            }
            HostAnswer::Session | HostAnswer::Always => {
                lock(&self.grants).grant(&target.host);
                if answer == HostAnswer::Always
                    && let Some(save) = &self.save
                    && let Err(why) = save(&target.host)
                {
                    log.note(format!("network: {} allowed for this session only: {why}", target.host));
                }
                self.allow(target)
            }
        }
    }

    fn verdict(&self, target: &Target) -> HostVerdict {
        decide(&target.host, target.port, &self.policy, &lock(&self.grants))
    }

    /// Allowed: at the pinned address when the host has one.
    fn allow(&self, target: &Target) -> Verdict {
        match self.pins.iter().find(|pin| pin.host == target.host && pin.port == target.port) {
            Some(pin) => Verdict::AllowAt(pin.at),
            None => Verdict::Allow,
        }
    }
}

/// The pins of `MEWCODE_RESOLVE`: comma-separated `host:port:address:port` (an IPv6 address in
/// brackets), as curl's `--resolve`; an entry that does not parse is an error naming it.
pub(crate) fn parse_pins(text: &str) -> Result<Vec<Pin>, String> {
    let mut pins = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|entry| !entry.is_empty()) {
        let bad = || format!("MEWCODE_RESOLVE: {entry:?} is not host:port:address:port");
        let (host, rest) = entry.split_once(':').ok_or_else(bad)?;
        let (port, at) = rest.split_once(':').ok_or_else(bad)?;
        let port: u16 = port.parse().map_err(|_| bad())?;
        let at: SocketAddr = at.parse().map_err(|_| bad())?;
        let host = crate::config::hosts::Host::parse(host).ok_or_else(bad)?.to_string();
        pins.push(Pin { host, port, at });
    }
    Ok(pins)
}

#[cfg(test)]
#[path = "network_tests.rs"]
mod tests;
