//! SOCKS5 (RFC 1928), for raw TCP through the same decision (git over ssh with
//! `ALL_PROXY=socks5h://...`): no authentication, `CONNECT` to a domain name, an IPv4 or an IPv6
//! address; then a tunnel.
//!
//! Invariant: the whole request is read (under the header phase's deadline) before the callback
//! is asked, and the upstream connected only after `Allow`. Replies: 0x02 when denied (the reason
//! does not fit in SOCKS5: the decision log keeps it), 0x04 when the host has no address or cannot
//! be reached, 0x05 when it refused, 0x07 for a command other than `CONNECT`, 0x08 for an unknown
//! address type. `BIND` and `UDP ASSOCIATE` are not offered.

use super::conn::{ClientReader, Conn};
use super::head::normalize_host;
use super::relay::{self, Unreachable};
use super::{Kind, Shared, Target, Verdict};
use std::io::{BufReader, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};

const VERSION: u8 = 0x05;
/// The one method offered: no authentication.
const NO_AUTH: u8 = 0x00;
const NO_ACCEPTABLE_METHOD: u8 = 0xFF;
const CMD_CONNECT: u8 = 0x01;

/// Reply codes (RFC 1928 section 6).
const SUCCEEDED: u8 = 0x00;
const NOT_ALLOWED: u8 = 0x02;
const HOST_UNREACHABLE: u8 = 0x04;
const CONNECTION_REFUSED: u8 = 0x05;
const COMMAND_NOT_SUPPORTED: u8 = 0x07;
const ADDRESS_TYPE_NOT_SUPPORTED: u8 = 0x08;

/// Serves one SOCKS5 connection whose version byte is waiting in `reader`.
pub(super) fn serve(reader: &mut BufReader<ClientReader>, client: &Conn, shared: &Shared) {
    let mut client_out = client;
    let Some(request) = read_request(reader, &mut client_out) else { return };
    let target = match request {
        Ok(target) => target,
        Err(code) => return refuse(client, code),
    };
    if reader.get_mut().set_deadline(None).is_err() {
        return;
    }
    let at = match shared.decider.ask(&target) {
        Verdict::Deny(_) => return refuse(client, NOT_ALLOWED),
        Verdict::Allow => None,
        Verdict::AllowAt(address) => Some(address),
    };
    let upstream = match relay::connect(&target.host, target.port, at, &shared.limits) {
        Ok(upstream) => upstream,
        Err(Unreachable::Refused(_)) => return refuse(client, CONNECTION_REFUSED),
        Err(Unreachable::NoAddress(_) | Unreachable::Failed(_)) => return refuse(client, HOST_UNREACHABLE),
    };
    let bound = upstream.local_addr().ok();
    if reply(client, SUCCEEDED, bound) {
        relay::tunnel(reader, client, &Conn::Tcp(upstream));
    }
}

/// The method negotiation and the request: the target, or the reply code refusing it; `None`
/// when the client went away, was too slow, or is not speaking SOCKS5 (answered already).
fn read_request(reader: &mut impl Read, client: &mut impl Write) -> Option<Result<Target, u8>> {
    let [version, method_count] = read_array(reader)?;
    let mut methods = vec![0; usize::from(method_count)];
    reader.read_exact(&mut methods).ok()?;
    if version != VERSION || !methods.contains(&NO_AUTH) {
        let _ = client.write_all(&[VERSION, NO_ACCEPTABLE_METHOD]);
        return None;
    }
    client.write_all(&[VERSION, NO_AUTH]).ok()?;
    let [version, command, _reserved, address_type] = read_array(reader)?;
    if version != VERSION {
        return None;
    }
    let host = match address_type {
        0x01 => Ok(Ipv4Addr::from(read_array::<4>(reader)?).to_string()),
        0x03 => {
            let [length] = read_array(reader)?;
            let mut name = vec![0; usize::from(length)];
            reader.read_exact(&mut name).ok()?;
            std::str::from_utf8(&name).ok().and_then(|name| normalize_host(name).ok()).ok_or(HOST_UNREACHABLE)
        }
        0x04 => Ok(Ipv6Addr::from(read_array::<16>(reader)?).to_string()),
        _ => return Some(Err(ADDRESS_TYPE_NOT_SUPPORTED)),
    };
    let port = u16::from_be_bytes(read_array(reader)?);
    if command != CMD_CONNECT {
        return Some(Err(COMMAND_NOT_SUPPORTED));
    }
    Some(host.map(|host| Target { host, port, kind: Kind::Socks }))
}

/// A failure reply; the connection closes after it.
fn refuse(client: &Conn, code: u8) {
    let _ = reply(client, code, None);
}

fn read_array<const N: usize>(reader: &mut impl Read) -> Option<[u8; N]> {
    let mut bytes = [0; N];
    reader.read_exact(&mut bytes).ok()?;
    Some(bytes)
}

/// Writes a reply with `code` and the bound address (zeros when there is none); whether it was
/// written.
fn reply(client: &Conn, code: u8, bound: Option<SocketAddr>) -> bool {
    let mut bytes = vec![VERSION, code, 0x00];
    match bound {
        Some(SocketAddr::V6(address)) => {
            bytes.push(0x04);
            bytes.extend_from_slice(&address.ip().octets());
        }
        Some(SocketAddr::V4(address)) => {
            bytes.push(0x01);
            bytes.extend_from_slice(&address.ip().octets());
        }
        None => bytes.extend_from_slice(&[0x01, 0, 0, 0, 0]),
    }
    bytes.extend_from_slice(&bound.map_or(0, |address| address.port()).to_be_bytes());
    (&mut { client }).write_all(&bytes).is_ok()
}

#[cfg(test)]
#[path = "socks_tests.rs"]
mod tests;
