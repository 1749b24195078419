//! The least a process between an MCP client and its server over stdio can do:
//! copy the client's bytes to the server's standard input and the server's standard
//! output back, one thread each way, deciding and recording nothing.
//! `bench/proxy.sh` builds it with `rustc -O` and puts it in the goal's runs beside
//! the proxy, as the floor of what any process in the path adds on this machine.
//!
//!     relay SERVER [ARGS...]

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

/// Copies `from` to `to` until `from` ends or either fails.
fn copy(mut from: impl Read, mut to: impl Write) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
                    return;
                }
            }
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((server, rest)) = args.split_first() else {
        eprintln!("usage: relay SERVER [ARGS...]");
        return ExitCode::from(2);
    };
    let mut child = match Command::new(server)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(err) => {
            eprintln!("relay: cannot start {server}: {err}");
            return ExitCode::from(2);
        }
    };
    let (Some(to_server), Some(from_server)) = (child.stdin.take(), child.stdout.take()) else {
        return ExitCode::from(2);
    };
    // The client's side: when it ends, the server's input is closed with it.
    std::thread::spawn(move || copy(std::io::stdin().lock(), to_server));
    copy(from_server, std::io::stdout().lock());
    match child.wait() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    }
}
