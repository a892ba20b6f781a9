//! A TLS test server: `openssl s_server` with a certificate of its own test CA, for the tests of
//! trust roots (the bundle does not know the CA; a CA file that names it does).

use super::agent_config::AgentConfig;
use super::roots::{PemSource, read_ca_files};
use crate::test_dir::TempDir;

/// A TLS server (`openssl s_server -www`) whose certificate is signed by test CA "a"; CA "b"
/// signs nothing it serves. Killed on drop.
pub(crate) struct TlsServer {
    dir: TempDir,
    child: std::process::Child,
    pub(crate) url: String,
}

impl TlsServer {
    /// None (with a note) where the `openssl` command is missing.
    pub(crate) fn start(tag: &str) -> Option<TlsServer> {
        if std::process::Command::new("openssl").arg("version").output().is_err() {
            eprintln!("tls-{tag}: skipped: needs the openssl command for a TLS test server");
            return None;
        }
        Some(TlsServer::start_openssl(tag))
    }

    fn start_openssl(tag: &str) -> TlsServer {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let dir = TempDir::new(&format!("tls-{tag}"));
        let openssl = |args: &[&str]| {
            let output = Command::new("openssl").args(args).current_dir(dir.path()).output().expect("openssl");
            assert!(output.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        };
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
        for ca in ["a", "b"] {
            let (key, cert, subject) = (format!("{ca}.key"), format!("{ca}.pem"), format!("/CN=mewcode test CA {ca}"));
            let mut args = vec!["req", "-x509"];
            args.extend(ec);
            args.extend(["-keyout", &key, "-out", &cert, "-days", "2", "-subj", &subject]);
            openssl(&args);
        }
        let mut args = vec!["req"];
        args.extend(ec);
        args.extend(["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"]);
        openssl(&args);
        std::fs::write(
            dir.join("ext.cnf"),
            "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "a.pem",
            "-CAkey",
            "a.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ]);
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let accept = format!("127.0.0.1:{port}");
        let mut child = Command::new("openssl")
            .args(["s_server", "-accept", &accept, "-cert", "server.pem", "-key", "server.key", "-www"])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // s_server says ACCEPT once it listens.
        let stdout = child.stdout.take().unwrap();
        let mut lines = std::io::BufReader::new(stdout).lines();
        assert!(lines.any(|line| line.is_ok_and(|line| line.contains("ACCEPT"))), "s_server did not start");
        std::thread::spawn(move || lines.for_each(drop));
        TlsServer { dir, child, url: format!("https://127.0.0.1:{port}/") }
    }

    /// The roots of test CA `ca` ("a" signed the server's certificate, "b" did not).
    pub(crate) fn roots(&self, ca: &str) -> Vec<PemSource> {
        read_ca_files(&[self.dir.join(format!("{ca}.pem")).as_path()]).unwrap()
    }

    /// The status of a GET through an agent of `config`.
    pub(crate) fn get(&self, config: &AgentConfig) -> Result<u16, ureq::Error> {
        config.new_agent().get(&self.url).call().map(|response| response.status().as_u16())
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
