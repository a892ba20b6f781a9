//! The two root sets of a connection against a real TLS server: given roots add to the bundle,
//! and only a failed handshake tries the other set.

use super::*;
use crate::http::test_tls_server::TlsServer;

#[test]
fn given_roots_add_to_the_bundle_and_a_failed_handshake_tries_the_other_set() {
    let Some(server) = TlsServer::start("fallback") else { return };
    let net = NetEnv::default();
    let idle = Some(Duration::from_secs(5));
    // The bundle alone does not know test CA a; the right CA file verifies.
    let (bundle_only, _) = agent_config(&server.url, &net, &[], idle).unwrap();
    assert!(bundle_only.bundled.is_none(), "no extra roots");
    let bundle_error = server.get(&bundle_only).unwrap_err();
    assert!(is_handshake_failure(&bundle_error), "{bundle_error:?}");
    let (right, _) = agent_config(&server.url, &net, &server.roots("a"), idle).unwrap();
    assert!(right.bundled.is_some(), "the CA file adds to the bundle");
    assert_eq!(server.get(&right).unwrap(), 200);
    // The second set is tried over a new connection when the first one's handshake fails: in
    // production it is the bundle (a corporate SSL_CERT_FILE must not break public endpoints);
    // here a CA file stands in for it, since no public CA signs a test server.
    let wrong_then_right = AgentConfig {
        config: ureq_config(None, idle, Some(parse_roots(&server.roots("b")).unwrap())),
        bundled: Some(ureq_config(None, idle, Some(parse_roots(&server.roots("a")).unwrap()))),
    };
    assert_eq!(server.get(&wrong_then_right).unwrap(), 200);
    // Both sets failing reports the given roots' error; a wrong file is no silent downgrade.
    let (wrong, _) = agent_config(&server.url, &net, &server.roots("b"), idle).unwrap();
    assert!(server.get(&wrong).is_err_and(|error| is_handshake_failure(&error)));
}

#[test]
fn only_handshake_failures_try_the_other_roots() {
    assert!(is_handshake_failure(&ureq::Error::Tls("bad certificate")));
    assert!(!is_handshake_failure(&ureq::Error::ConnectionFailed));
    assert!(!is_handshake_failure(&ureq::Error::HostNotFound));
    let io = |kind| ureq::Error::Io(std::io::Error::from(kind));
    assert!(is_handshake_failure(&io(std::io::ErrorKind::InvalidData)));
    assert!(!is_handshake_failure(&io(std::io::ErrorKind::ConnectionRefused)));
    assert!(!is_handshake_failure(&io(std::io::ErrorKind::TimedOut)));
}
