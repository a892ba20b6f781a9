//! The default list of secret stores commands cannot read: credential files and directories under
//! the user's home and a few outside any home, kept as data, grouped by kind, each with a line
//! saying what it holds, plus the other users' homes that commands must not see at all.
//!
//! Invariant: every entry is a real, well-known place where a tool keeps keys, tokens, passwords,
//! cookies or secret-bearing history, and none is a directory (or a parent of one) that toolchains
//! need for ordinary work: `.cargo` stays readable, only `.cargo/credentials.toml` is hidden. A
//! hidden config file that a tool insists on reading fails that tool, so an entry that is also
//! plain configuration is listed only when credentials are its usual content.
//! What it does not do: read the disk or the environment (the caller resolves and filters the
//! paths), list `$MEWCODE_HOME` (handled by `Paths`), or honour `sandbox.readable_secrets`.

use std::path::{Path, PathBuf};

/// What kind of secret an entry holds: for grouping and for `doctor`'s summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Ssh,
    Gpg,
    PackageManager,
    Cloud,
    VcsHost,
    Database,
    Container,
    Kubernetes,
    Browser,
    PasswordManager,
    ShellHistory,
    Mail,
    Chat,
    Editor,
    /// AI assistants and model or dataset hubs.
    Ai,
    /// Hosted developer services: tunnels, payments, error tracking, CI.
    Service,
    /// Remote desktops, file transfer and device debugging.
    RemoteAccess,
    /// Logins, display access and machine-wide keys.
    System,
}

impl Kind {
    /// Every kind, in the order `summary` lists them.
    pub(crate) const ALL: [Kind; 18] = [
        Kind::Ssh,
        Kind::Gpg,
        Kind::PackageManager,
        Kind::Cloud,
        Kind::VcsHost,
        Kind::Database,
        Kind::Container,
        Kind::Kubernetes,
        Kind::Browser,
        Kind::PasswordManager,
        Kind::ShellHistory,
        Kind::Mail,
        Kind::Chat,
        Kind::Editor,
        Kind::Ai,
        Kind::Service,
        Kind::RemoteAccess,
        Kind::System,
    ];

    /// The kind's name as `doctor` shows it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Ssh => "ssh",
            Kind::Gpg => "gpg",
            Kind::PackageManager => "package manager",
            Kind::Cloud => "cloud",
            Kind::VcsHost => "vcs host",
            Kind::Database => "database",
            Kind::Container => "container",
            Kind::Kubernetes => "kubernetes",
            Kind::Browser => "browser",
            Kind::PasswordManager => "password manager",
            Kind::ShellHistory => "shell history",
            Kind::Mail => "mail",
            Kind::Chat => "chat",
            Kind::Editor => "editor",
            Kind::Ai => "ai",
            Kind::Service => "service",
            Kind::RemoteAccess => "remote access",
            Kind::System => "system",
        }
    }
}

/// One secret store: a file or a directory (everything beneath it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Secret {
    pub(crate) path: &'static str,
    pub(crate) kind: Kind,
    /// What is in it, a short plain phrase.
    pub(crate) holds: &'static str,
}

const fn secret(path: &'static str, kind: Kind, holds: &'static str) -> Secret {
    Secret { path, kind, holds }
}

/// Relative to HOME (no leading slash, no `~`).
pub(crate) const HOME_SECRETS: &[Secret] = &[
    // SSH and other remote-login keys.
    secret(".ssh", Kind::Ssh, "SSH private keys, agent config and known hosts"),
    secret(".tsh", Kind::Ssh, "Teleport user certificates and keys"),
    // Signing and encryption keys.
    secret(".gnupg", Kind::Gpg, "GnuPG private keys and trust database"),
    secret(".config/sops/age/keys.txt", Kind::Gpg, "age private keys used by SOPS"),
    secret(".minisign/minisign.key", Kind::Gpg, "minisign secret signing key"),
    // Package registries: publish and private-install tokens. The registries' caches stay readable.
    secret(".npmrc", Kind::PackageManager, "npm registry auth tokens"),
    secret(".yarnrc.yml", Kind::PackageManager, "Yarn Berry npm registry auth tokens"),
    secret(".pypirc", Kind::PackageManager, "PyPI upload credentials"),
    secret(".config/pypoetry/auth.toml", Kind::PackageManager, "Poetry repository credentials kept without a keyring"),
    secret(".cargo/credentials", Kind::PackageManager, "crates.io API token (old name)"),
    secret(".cargo/credentials.toml", Kind::PackageManager, "crates.io and registry API tokens"),
    secret(".gem/credentials", Kind::PackageManager, "RubyGems API keys"),
    secret(".local/share/gem/credentials", Kind::PackageManager, "RubyGems API keys (XDG location)"),
    secret(".m2/settings.xml", Kind::PackageManager, "Maven server usernames and passwords"),
    secret(".m2/settings-security.xml", Kind::PackageManager, "Maven master password"),
    secret(".gradle/gradle.properties", Kind::PackageManager, "Gradle publishing and signing credentials"),
    secret(".sbt/.credentials", Kind::PackageManager, "sbt repository credentials"),
    secret(".ivy2/.credentials", Kind::PackageManager, "sbt and Ivy repository credentials"),
    secret(".nuget/NuGet/NuGet.Config", Kind::PackageManager, "NuGet package source credentials"),
    secret(".composer/auth.json", Kind::PackageManager, "Composer repository and GitHub tokens"),
    secret(".config/composer/auth.json", Kind::PackageManager, "Composer repository and GitHub tokens (XDG location)"),
    secret(".pub-cache/credentials.json", Kind::PackageManager, "pub.dev OAuth credentials (Dart before 2.15)"),
    secret(".config/dart/pub-credentials.json", Kind::PackageManager, "pub.dev OAuth credentials"),
    secret(".config/dart/pub-tokens.json", Kind::PackageManager, "tokens for third-party pub repositories"),
    // Cloud and infrastructure CLIs.
    secret(".aws", Kind::Cloud, "AWS access keys and SSO token cache"),
    secret(".azure", Kind::Cloud, "Azure CLI access and refresh tokens"),
    secret(".config/gcloud", Kind::Cloud, "Google Cloud credentials and access tokens"),
    secret(".oci", Kind::Cloud, "Oracle Cloud API signing keys"),
    secret(".config/doctl", Kind::Cloud, "DigitalOcean API tokens"),
    secret(".config/hcloud", Kind::Cloud, "Hetzner Cloud API tokens"),
    secret(".config/linode-cli", Kind::Cloud, "Linode API tokens"),
    secret(".linode-cli", Kind::Cloud, "Linode API tokens (old location)"),
    secret(".config/scw", Kind::Cloud, "Scaleway access and secret keys"),
    secret(".aliyun", Kind::Cloud, "Alibaba Cloud access keys"),
    secret(".bluemix", Kind::Cloud, "IBM Cloud IAM tokens"),
    secret(".config/openstack", Kind::Cloud, "OpenStack clouds.yaml and secure.yaml passwords"),
    secret(".fly", Kind::Cloud, "Fly.io access token"),
    secret(".s3cfg", Kind::Cloud, "s3cmd access and secret keys"),
    secret(".boto", Kind::Cloud, "boto and gsutil credentials"),
    secret(".config/rclone/rclone.conf", Kind::Cloud, "rclone remotes' passwords and tokens"),
    secret(".databrickscfg", Kind::Cloud, "Databricks access tokens"),
    secret(".pulumi/credentials.json", Kind::Cloud, "Pulumi Cloud access tokens"),
    secret(".terraformrc", Kind::Cloud, "Terraform CLI config with registry tokens"),
    secret(".terraform.d/credentials.tfrc.json", Kind::Cloud, "Terraform Cloud API tokens"),
    secret(".vault-token", Kind::Cloud, "HashiCorp Vault token"),
    secret(".config/configstore/firebase-tools.json", Kind::Cloud, "Firebase CLI refresh tokens"),
    secret(".cloudflared", Kind::Cloud, "Cloudflare Tunnel certificate and tunnel credentials"),
    secret(".wrangler/config/default.toml", Kind::Cloud, "Cloudflare Wrangler OAuth tokens (old location)"),
    secret(".config/.wrangler/config/default.toml", Kind::Cloud, "Cloudflare Wrangler OAuth tokens"),
    secret(".local/share/com.vercel.cli/auth.json", Kind::Cloud, "Vercel CLI token"),
    secret(".netlify/config.json", Kind::Cloud, "Netlify CLI access token"),
    secret(".config/netlify", Kind::Cloud, "Netlify CLI access token (XDG location)"),
    // Code hosts.
    secret(".config/gh", Kind::VcsHost, "GitHub CLI OAuth tokens"),
    secret(".config/hub", Kind::VcsHost, "hub GitHub OAuth token"),
    secret(".config/glab-cli", Kind::VcsHost, "GitLab CLI tokens"),
    secret(".config/tea", Kind::VcsHost, "Gitea tea CLI tokens"),
    secret(".git-credentials", Kind::VcsHost, "git credential store passwords and tokens"),
    secret(".config/git/credentials", Kind::VcsHost, "git credential store passwords and tokens (XDG location)"),
    secret(".netrc", Kind::VcsHost, "machine logins for git, curl, ftp and Heroku"),
    // Databases: passwords and the query histories that quote them.
    secret(".pgpass", Kind::Database, "PostgreSQL passwords"),
    secret(".pg_service.conf", Kind::Database, "PostgreSQL service definitions with passwords"),
    secret(".psql_history", Kind::Database, "psql query history"),
    secret(".config/pgcli/history", Kind::Database, "pgcli query history"),
    secret(".my.cnf", Kind::Database, "MySQL client passwords"),
    secret(".mylogin.cnf", Kind::Database, "MySQL login paths with obfuscated passwords"),
    secret(".mysql_history", Kind::Database, "MySQL client query history"),
    secret(".sqlite_history", Kind::Database, "sqlite3 shell history"),
    secret(".rediscli_history", Kind::Database, "redis-cli history, AUTH commands included"),
    secret(".dbshell", Kind::Database, "legacy mongo shell history"),
    secret(".mongosh", Kind::Database, "mongosh history and config"),
    secret(".cassandra", Kind::Database, "cqlsh credentials and history"),
    secret(".dbt/profiles.yml", Kind::Database, "dbt warehouse connection passwords"),
    secret(".snowflake", Kind::Database, "Snowflake CLI and connector connections with passwords"),
    secret(".snowsql/config", Kind::Database, "SnowSQL connection passwords"),
    secret(".influxdbv2/configs", Kind::Database, "InfluxDB CLI API tokens"),
    // Container registries.
    secret(".docker/config.json", Kind::Container, "Docker registry auths"),
    secret(".dockercfg", Kind::Container, "Docker registry auths (legacy file)"),
    secret(".config/containers/auth.json", Kind::Container, "Podman, Buildah and Skopeo registry auths"),
    // Kubernetes.
    secret(".kube", Kind::Kubernetes, "kubeconfig cluster credentials and token cache"),
    secret(".config/helm/registry/config.json", Kind::Kubernetes, "Helm OCI registry logins"),
    secret(".talos/config", Kind::Kubernetes, "Talos client certificates and keys"),
    secret(".config/argocd", Kind::Kubernetes, "Argo CD CLI auth tokens"),
    secret(".argocd", Kind::Kubernetes, "Argo CD CLI auth tokens (old location)"),
    // Browsers: cookies, saved passwords, session tokens.
    secret(".mozilla/firefox", Kind::Browser, "Firefox cookies and saved logins"),
    secret("snap/firefox/common/.mozilla/firefox", Kind::Browser, "snap Firefox cookies and saved logins"),
    secret(".librewolf", Kind::Browser, "LibreWolf cookies and saved logins"),
    secret(".config/google-chrome", Kind::Browser, "Chrome cookies and saved passwords"),
    secret(".config/chromium", Kind::Browser, "Chromium cookies and saved passwords"),
    secret("snap/chromium/common/chromium", Kind::Browser, "snap Chromium cookies and saved passwords"),
    secret(".config/BraveSoftware", Kind::Browser, "Brave cookies and saved passwords"),
    secret(".config/microsoft-edge", Kind::Browser, "Edge cookies and saved passwords"),
    secret(".config/vivaldi", Kind::Browser, "Vivaldi cookies and saved passwords"),
    secret(".config/opera", Kind::Browser, "Opera cookies and saved passwords"),
    secret(".pki/nssdb", Kind::Browser, "NSS client certificates and private keys used by Chromium"),
    // Password managers and keyrings.
    secret(".password-store", Kind::PasswordManager, "pass encrypted passwords"),
    secret(".local/share/gopass/stores", Kind::PasswordManager, "gopass encrypted password stores"),
    secret(".local/share/keyrings", Kind::PasswordManager, "GNOME Keyring secrets"),
    secret(".local/share/kwalletd", Kind::PasswordManager, "KWallet secrets"),
    secret(".config/Bitwarden", Kind::PasswordManager, "Bitwarden desktop vault and session keys"),
    secret(".config/Bitwarden CLI", Kind::PasswordManager, "Bitwarden CLI vault and session keys"),
    secret(".config/1Password", Kind::PasswordManager, "1Password desktop vault data"),
    secret(".config/op", Kind::PasswordManager, "1Password CLI accounts and device identity"),
    secret(".lpass", Kind::PasswordManager, "LastPass CLI vault blob and session"),
    secret(".local/share/lpass", Kind::PasswordManager, "LastPass CLI vault blob and session (XDG location)"),
    // Shell and REPL histories: commands typed with passwords and tokens in them.
    secret(".bash_history", Kind::ShellHistory, "bash command history"),
    secret(".zsh_history", Kind::ShellHistory, "zsh command history"),
    secret(".zhistory", Kind::ShellHistory, "zsh command history (other common name)"),
    secret(".histfile", Kind::ShellHistory, "zsh command history (zsh-newuser-install name)"),
    secret(".sh_history", Kind::ShellHistory, "ksh and mksh command history"),
    secret(".local/share/fish/fish_history", Kind::ShellHistory, "fish command history"),
    secret(".config/nushell/history.txt", Kind::ShellHistory, "Nushell command history"),
    secret(".config/nushell/history.sqlite3", Kind::ShellHistory, "Nushell command history (SQLite format)"),
    secret(".local/share/atuin", Kind::ShellHistory, "Atuin history database and sync key"),
    secret(".python_history", Kind::ShellHistory, "Python REPL history"),
    secret(".node_repl_history", Kind::ShellHistory, "Node.js REPL history"),
    secret(".irb_history", Kind::ShellHistory, "Ruby irb history"),
    secret(".ipython/profile_default/history.sqlite", Kind::ShellHistory, "IPython history"),
    // Mail clients and mail transfer agents.
    secret(".thunderbird", Kind::Mail, "Thunderbird mail, saved passwords and OAuth tokens"),
    secret("snap/thunderbird/common/.thunderbird", Kind::Mail, "snap Thunderbird mail and saved passwords"),
    secret(".msmtprc", Kind::Mail, "msmtp SMTP passwords"),
    secret(".config/msmtp/config", Kind::Mail, "msmtp SMTP passwords (XDG location)"),
    secret(".fetchmailrc", Kind::Mail, "fetchmail server passwords"),
    secret(".mbsyncrc", Kind::Mail, "isync IMAP passwords"),
    secret(".offlineimaprc", Kind::Mail, "OfflineIMAP passwords"),
    secret(".config/aerc/accounts.conf", Kind::Mail, "aerc account credentials"),
    // Chat clients: session tokens and message databases.
    secret(".config/Slack", Kind::Chat, "Slack desktop cookies and session tokens"),
    secret(".config/discord", Kind::Chat, "Discord desktop session token"),
    secret(".config/Signal", Kind::Chat, "Signal Desktop message database and its key"),
    secret(".config/Element", Kind::Chat, "Element desktop Matrix sessions"),
    secret(".local/share/TelegramDesktop", Kind::Chat, "Telegram Desktop session"),
    secret(".purple", Kind::Chat, "Pidgin account passwords"),
    secret(".weechat/sec.conf", Kind::Chat, "WeeChat secured data"),
    secret(".config/weechat/sec.conf", Kind::Chat, "WeeChat secured data (XDG location)"),
    // Editor plugins.
    secret(".config/github-copilot", Kind::Editor, "GitHub Copilot OAuth tokens"),
    secret(".wakatime.cfg", Kind::Editor, "WakaTime API key"),
    // AI assistants and model hubs.
    secret(".codex/auth.json", Kind::Ai, "Codex CLI API key and ChatGPT tokens"),
    secret(".claude/.credentials.json", Kind::Ai, "Claude Code OAuth tokens"),
    secret(".gemini/oauth_creds.json", Kind::Ai, "Gemini CLI OAuth tokens"),
    secret(".cache/huggingface/token", Kind::Ai, "Hugging Face access token"),
    secret(".huggingface/token", Kind::Ai, "Hugging Face access token (old location)"),
    secret(".kaggle/kaggle.json", Kind::Ai, "Kaggle API key"),
    // Hosted developer services.
    secret(".config/stripe/config.toml", Kind::Service, "Stripe CLI API keys"),
    secret(".config/ngrok/ngrok.yml", Kind::Service, "ngrok authtoken and API key"),
    secret(".ngrok2/ngrok.yml", Kind::Service, "ngrok authtoken (v2 location)"),
    secret(".sentryclirc", Kind::Service, "Sentry CLI auth token"),
    secret(".config/configstore/snyk.json", Kind::Service, "Snyk API token"),
    secret(".circleci/cli.yml", Kind::Service, "CircleCI CLI API token"),
    secret(".travis/config.yml", Kind::Service, "Travis CI CLI access tokens"),
    // Remote desktops, file transfer, device debugging.
    secret(".config/filezilla/sitemanager.xml", Kind::RemoteAccess, "FileZilla saved site passwords"),
    secret(".config/filezilla/recentservers.xml", Kind::RemoteAccess, "FileZilla recent server passwords"),
    secret(".vnc/passwd", Kind::RemoteAccess, "VNC server password"),
    secret(".android/adbkey", Kind::RemoteAccess, "adb private key authorised on debugged devices"),
    // Login and display.
    secret(".Xauthority", Kind::System, "X11 display auth cookies"),
    secret(".google_authenticator", Kind::System, "TOTP secret and scratch codes for PAM login"),
];

/// Absolute paths outside any home that hold credentials readable by root. Literal paths only:
/// the usual names, not globs. `/root` and other homes are handled by `other_homes`.
pub(crate) const SYSTEM_SECRETS: &[Secret] = &[
    secret("/etc/shadow", Kind::System, "password hashes"),
    secret("/etc/shadow-", Kind::System, "password hashes (backup)"),
    secret("/etc/gshadow", Kind::System, "group password hashes"),
    secret("/etc/gshadow-", Kind::System, "group password hashes (backup)"),
    secret("/etc/security/opasswd", Kind::System, "previous password hashes"),
    secret("/etc/krb5.keytab", Kind::System, "Kerberos host keys"),
    secret("/etc/sssd/sssd.conf", Kind::System, "SSSD config with LDAP bind passwords"),
    secret("/etc/ssl/private", Kind::System, "TLS private keys (Debian layout)"),
    secret("/etc/pki/tls/private", Kind::System, "TLS private keys (Red Hat layout)"),
    secret("/etc/letsencrypt", Kind::System, "certbot account keys and certificate private keys"),
    secret("/etc/NetworkManager/system-connections", Kind::System, "Wi-Fi passwords and VPN secrets"),
    secret("/etc/wpa_supplicant/wpa_supplicant.conf", Kind::System, "Wi-Fi passphrases"),
    secret("/var/lib/iwd", Kind::System, "iwd Wi-Fi passphrases"),
    secret("/etc/wireguard", Kind::System, "WireGuard private keys"),
    secret("/etc/ipsec.secrets", Kind::System, "IPsec pre-shared and private keys"),
    secret("/etc/ppp/chap-secrets", Kind::System, "PPP CHAP passwords"),
    secret("/etc/ppp/pap-secrets", Kind::System, "PPP PAP passwords"),
    secret("/etc/libvirt/secrets", Kind::System, "libvirt secret values"),
    secret("/var/lib/samba/private", Kind::System, "Samba password and machine secret databases"),
    secret("/etc/ssh/ssh_host_rsa_key", Kind::Ssh, "SSH host RSA private key"),
    secret("/etc/ssh/ssh_host_ecdsa_key", Kind::Ssh, "SSH host ECDSA private key"),
    secret("/etc/ssh/ssh_host_ed25519_key", Kind::Ssh, "SSH host Ed25519 private key"),
    secret("/etc/ssh/ssh_host_dsa_key", Kind::Ssh, "SSH host DSA private key"),
    secret("/etc/mysql/debian.cnf", Kind::Database, "Debian MySQL maintenance user password"),
    secret("/etc/kubernetes/admin.conf", Kind::Kubernetes, "kubeadm cluster-admin kubeconfig"),
    secret("/etc/kubernetes/super-admin.conf", Kind::Kubernetes, "kubeadm super-admin kubeconfig"),
    secret("/etc/kubernetes/pki", Kind::Kubernetes, "Kubernetes CA and component private keys"),
    secret("/etc/rancher/k3s/k3s.yaml", Kind::Kubernetes, "k3s admin kubeconfig"),
    secret("/etc/rancher/rke2/rke2.yaml", Kind::Kubernetes, "RKE2 admin kubeconfig"),
    secret("/var/lib/rancher/k3s/server/token", Kind::Kubernetes, "k3s cluster join token"),
    secret("/etc/gitlab/gitlab-secrets.json", Kind::VcsHost, "GitLab Omnibus database and signing secrets"),
];

/// The home secrets of `home` as absolute paths (existing or not; the caller filters).
pub(crate) fn home_secrets(home: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    HOME_SECRETS.iter().map(move |secret| home.join(secret.path))
}

/// Home directories other than the user's own that commands must not see: every directory in
/// `homes` (the entries of /home and `/root` that belong to another user, found by the caller,
/// which alone knows the owners), except the user's own `home`
/// (and any directory containing it, as when homes live in /home/users) and any directory that
/// contains one of `keep` (the project root, writable paths). Lexical: the caller passes canonical
/// paths. Sorted, without duplicates. Pure.
pub(crate) fn other_homes(home: Option<&Path>, homes: &[PathBuf], keep: &[PathBuf]) -> Vec<PathBuf> {
    let mut others: Vec<PathBuf> = homes
        .iter()
        .filter(|dir| home.is_none_or(|home| !home.starts_with(dir)))
        .filter(|dir| !keep.iter().any(|kept| kept.starts_with(dir)))
        .cloned()
        .collect();
    others.sort();
    others.dedup();
    others
}

/// A one-line description for `doctor`: counts per kind over both lists, e.g. "ssh 6, gpg 3, ...".
pub(crate) fn summary() -> String {
    Kind::ALL
        .iter()
        .map(|kind| {
            let count = HOME_SECRETS.iter().chain(SYSTEM_SECRETS).filter(|secret| secret.kind == *kind).count();
            format!("{} {count}", kind.name())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
#[path = "secrets_tests.rs"]
mod tests;
