//! Tests of `splice.rs`: bytes moved between sockets through a pipe, end of file, and a bound.

use super::*;
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;

#[test]
fn bytes_move_from_one_socket_to_another_up_to_the_end_of_file() {
    let (mut source, from) = UnixStream::pair().unwrap();
    let (to, mut sink) = UnixStream::pair().unwrap();
    let pipe = Pipe::new().unwrap();
    source.write_all(b"through the kernel").unwrap();
    source.shutdown(std::net::Shutdown::Write).unwrap();
    assert_eq!(pipe.transfer(from.as_fd(), to.as_fd(), 7).unwrap(), 7);
    let mut total = 7;
    loop {
        match pipe.transfer(from.as_fd(), to.as_fd(), 1 << 16).unwrap() {
            0 => break,
            moved => total += moved,
        }
    }
    assert_eq!(total, 18);
    drop(to);
    let mut received = String::new();
    sink.read_to_string(&mut received).unwrap();
    assert_eq!(received, "through the kernel");
}
