//! The banner the REPL opens with: version, provider, model, mode and endpoint; the keys; how commands
//! are confined; the start-up warnings.
//!
//! Invariant: everything that can weaken the session is said before the first prompt, in a
//! colour that stands out: bypass in red, confinement that is off in red and partial or
//! unavailable in yellow, every warning in yellow. Names from config are neutralised.

use super::chat::Chat;
use super::render::{BOLD, DIM, RED, YELLOW};
use super::say_wrapped;
use super::setup::Setup;
use crate::confine::Status;
use crate::mode::Mode;
use crate::text::neutralize;

/// Said when a session starts in bypass or `/mode bypass` turns it on (after the warning mark).
const BYPASS_WARNING: &str =
    "BYPASS: tool calls run without asking (the blacklist, the sandbox and deny rules still apply)";

/// The bypass warning, red and wrapped to `width`.
pub(super) fn say_bypass(setup: &Setup, width: usize) {
    say_wrapped(setup.color, RED, &format!("{} {BYPASS_WARNING}", setup.glyphs.warning), width, 2);
}

/// The `host[:port]` a provider's requests go to (no scheme, path or user info), so a key sent
/// to the wrong endpoint shows before the first prompt; the URL itself when it has no scheme.
fn endpoint(base_url: &str) -> String {
    let Some((_, rest)) = base_url.split_once("://") else { return base_url.to_string() };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit_once('@').map_or(authority, |(_, host)| host).to_string()
}

/// Says the banner, wrapped to the screen.
pub(super) fn print_banner(setup: &Setup, chat: &Chat) {
    let width = chat.screen.width;
    let glyphs = setup.glyphs;
    let title = [
        format!("mewcode {}", setup.version),
        neutralize(&chat.provider.name),
        neutralize(&chat.provider.model),
        format!("mode {}", chat.mode.shown()),
        neutralize(&endpoint(&chat.provider.base_url)),
    ]
    .join(glyphs.separator);
    say_wrapped(setup.color, BOLD, &title, width, 2);
    if chat.mode == Mode::Bypass {
        say_bypass(setup, width);
    }
    let keys = ["/help for commands", "Shift-Tab cycles the mode", "Ctrl-C cancels", "Ctrl-D exits"];
    say_wrapped(setup.color, DIM, &keys.join(glyphs.separator), width, 0);
    let (summary, status) = &setup.sandbox;
    let colour = match status {
        Status::Confined { view: Ok(()), .. } => DIM,
        // Confined by Landlock alone: the summary says which promises do not hold.
        Status::Confined { view: Err(_), .. } | Status::Unavailable { .. } => YELLOW,
        Status::Off { .. } => RED,
    };
    say_wrapped(setup.color, colour, &neutralize(summary), width, 2);
    for warning in &setup.warnings {
        say_wrapped(setup.color, YELLOW, &format!("{} {}", glyphs.warning, neutralize(&warning.to_string())), width, 2);
    }
}
