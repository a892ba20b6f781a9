//! The commands' network proxy (issue 32) on its own, with a callback that allows everything, for
//! `bench/proxy.bench.sh` to measure what going through it costs.
//!
//! Usage: `cargo run --release --example proxy_runner`
//!
//! Prints `listening 127.0.0.1:PORT` once the proxy accepts, serves until its stdin closes, then
//! prints how many targets and connections the decision log holds.
#![expect(clippy::print_stdout, reason = "a benchmark runner prints its address and figures")]

use mewcode::bench::{Decide, Limits, Listen, Proxy, ProxyVerdict, Target};
use std::io::{self, Write};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let decide: Decide = Arc::new(|_: &Target| ProxyVerdict::Allow);
    let listen = Listen { tcp: Some("127.0.0.1:0".parse()?), unix: None };
    let proxy = Proxy::start(listen, Limits::default(), decide)?;
    let address = proxy.listening().tcp.ok_or("the proxy has no TCP address")?;
    println!("listening {address}");
    io::stdout().flush()?;
    io::copy(&mut io::stdin(), &mut io::sink())?;
    let decisions = proxy.decisions();
    let connections: u64 = decisions.iter().map(|decision| decision.count).sum();
    println!("decision log: {} targets, {connections} connections", decisions.len());
    Ok(())
}
