//! The network policy of a run, built from what only the wiring knows: the merged config, the
//! hosts of the local settings file (when it carries this installation's mark), the project's
//! remembered git remotes, `MEWCODE_RESOLVE`, and where an "always" answer is saved.

use super::Launch;
use crate::config::hosts::HostPattern;
use crate::config::{self, Config};
use crate::permission::hosts::HostPolicy;
use crate::permission::network::{NetworkGate, SaveHost, parse_pins};
use crate::permission::store::{self, LOCAL_SETTINGS, Mark};
use crate::session::Owner;
use crate::warning::Warning;
use std::sync::Arc;

/// How the project's git remotes are read: a run remembers them the first time it sees the
/// project (`config::trust`); doctor only looks at what was remembered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Remotes {
    RememberFirstSight,
    LookOnly,
}

/// The session's network policy. A problem (a bad local file, a bad `MEWCODE_RESOLVE`, a trust
/// store that cannot be written) is a warning and loses nothing: the policy is then only tighter.
pub(super) fn network_gate(
    launch: &Launch,
    config: &Config,
    owner: &Owner,
    remotes: Remotes,
    warnings: &mut Vec<Warning>,
) -> Arc<NetworkGate> {
    let (root, home) = (&launch.workspace.root, &launch.workspace.home);
    let local_path = root.join(LOCAL_SETTINGS);
    let local_hosts = match store::load_local_hosts(&local_path, owner) {
        Ok((hosts, Mark::Ours)) => hosts,
        Ok((hosts, mark)) => {
            if !hosts.is_empty() {
                let message = format!("its sandbox.allow_hosts are ignored: {}", mark.why());
                warnings.push(Warning::new(local_path.display().to_string(), message));
            }
            Vec::new()
        }
        Err(message) => {
            warnings.push(Warning::new("sandbox", format!("{message}; its hosts are ignored")));
            Vec::new()
        }
    };
    let git_remotes = match remotes {
        Remotes::LookOnly => config::trust::remembered_remote_hosts(home, root),
        Remotes::RememberFirstSight => {
            config::trust::remember_remote_hosts_once(home, root).unwrap_or_else(|message| {
                warnings.push(Warning::new("sandbox", format!("cannot remember the project's git remotes: {message}")));
                Vec::new()
            })
        }
    };
    let user_config = config::edit::user_config_path(home).display().to_string();
    let policy = HostPolicy::new(&config.sandbox, local_hosts, git_remotes, &user_config);
    let pins = match launch.env.get("MEWCODE_RESOLVE").map(|text| parse_pins(&text)).transpose() {
        Ok(pins) => pins.unwrap_or_default(),
        Err(message) => {
            warnings.push(Warning::new("sandbox", format!("{message}; no host is pinned")));
            Vec::new()
        }
    };
    let (save_root, save_owner) = (root.clone(), owner.clone());
    let save: SaveHost = Box::new(move |host: &str| {
        let pattern = HostPattern::parse(host)?;
        store::save_local_host(&save_root, &save_owner, &pattern)
            .map(|_| save_root.join(LOCAL_SETTINGS).display().to_string())
    });
    Arc::new(NetworkGate::new(policy, pins, Some(save), LOCAL_SETTINGS))
}
