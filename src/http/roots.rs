//! Trust roots beyond the bundle: CA files (PEM) read and parsed, and how doctor describes the
//! roots a connection uses.
//!
//! Invariant: a CA file that cannot be read, is not PEM or holds no certificate is an error
//! naming the file, never an empty root set that would silently trust nothing extra.

/// PEM text of extra trust roots and where it came from (for error messages).
pub(crate) struct PemSource {
    pub origin: String,
    pub pem: Vec<u8>,
}

/// Which trust roots a connection made with `SSL_CERT_FILE` and a `ca_file` uses, for doctor:
/// the bundled Mozilla roots, plus the files given (see `AgentConfig`).
pub(crate) fn roots_in_use(ssl_cert_file: Option<&std::path::Path>, ca_file: Option<&std::path::Path>) -> String {
    let files: Vec<String> = [(ssl_cert_file, "SSL_CERT_FILE"), (ca_file, "ca_file")]
        .into_iter()
        .filter_map(|(path, origin)| path.map(|path| format!("{} ({origin})", path.display())))
        .collect();
    if files.is_empty() {
        "the bundled Mozilla roots".to_string()
    } else {
        format!("{} + the bundled Mozilla roots", files.join(" + "))
    }
}

/// Reads CA files (PEM) for `agent_config`.
pub(crate) fn read_ca_files(paths: &[&std::path::Path]) -> Result<Vec<PemSource>, String> {
    paths
        .iter()
        .map(|path| {
            std::fs::read(path)
                .map(|pem| PemSource { origin: path.display().to_string(), pem })
                .map_err(|err| format!("cannot read CA file {}: {err}", path.display()))
        })
        .collect()
}

pub(super) fn parse_roots(sources: &[PemSource]) -> Result<ureq::tls::RootCerts, String> {
    let mut certificates = Vec::new();
    for source in sources {
        let before = certificates.len();
        for item in ureq::tls::parse_pem(&source.pem) {
            match item {
                Ok(ureq::tls::PemItem::Certificate(certificate)) => certificates.push(certificate),
                Ok(_) => {} // keys and other items in a bundle are not roots
                Err(err) => return Err(format!("CA file {} is not valid PEM: {err}", source.origin)),
            }
        }
        if certificates.len() == before {
            return Err(format!("CA file {} contains no PEM certificates", source.origin));
        }
    }
    Ok(ureq::tls::RootCerts::new_with_certs(&certificates))
}
