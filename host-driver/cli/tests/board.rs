//! The CLI's UART and Etherbone backends against a simulated board: `ferroce sim-board`
//! serves the board top's system side (UARTBone bridge, board memory, frame
//! stores, the whole engine, its port looped back) on a pseudo-terminal,
//! and `ferroce info`, `regs`, `stats` and `loopback --backend uart` open
//! that as a serial port, as they open a board's USB UART.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};

use ferroce_proto::regs;

fn cli(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce")).args(args).output().expect("ferroce runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `ferroce sim-board` running, and its pseudo-terminal.
struct SimBoard {
    child: Child,
    pty: String,
}

impl SimBoard {
    fn start(args: &[&str]) -> SimBoard {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ferroce"))
            .arg("sim-board")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("ferroce sim-board starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("a line");
        let pty = line.trim().to_string();
        assert!(pty.starts_with("/dev/pts/"), "sim-board names its pseudo-terminal first: {line:?}");
        SimBoard { child, pty }
    }

    /// `ferroce <cmd> --backend uart --device <pty> <args>`, waiting long for
    /// answers: the simulated board is far slower than a 115 200-baud line.
    fn run(&self, cmd: &str, args: &[&str]) -> (bool, String, String) {
        let mut all = vec![cmd, "--backend", "uart", "--device", &self.pty, "--uart-timeout", "300"];
        all.extend_from_slice(args);
        cli(&all)
    }
}

impl Drop for SimBoard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("JSON on stdout ({e}): {out}"))
}

#[test]
fn info_regs_stats_and_a_verified_loopback_through_a_boards_uart() {
    let b = SimBoard::start(&["--engine", "engine"]);
    let (ok, out, err) = b.run("info", &["--json"]);
    assert!(ok, "{err}");
    let v = json(&out);
    assert_eq!(v["blocks"].as_array().expect("blocks").len(), regs::BLOCKS.len());
    // The board carries the ECPIX-5's build.
    let build = ferroce_proto::config::EngineConfig::ECP5_85;
    assert_eq!(v["parameters"]["max_paths"], build.paths() as u64);
    assert_eq!(v["parameters"]["max_conns"], build.conns() as u64);

    let (ok, out, err) = b.run("regs", &["control.ack_every", "9"]);
    assert!(ok && out.contains("control.ack_every = 0x00000009 (9)"), "{out}{err}");
    let (ok, _, err) = b.run("regs", &["control.mtu", "99999"]);
    assert!(!ok && err.contains("out of range"), "{err}");

    let (ok, out, err) = b.run("stats", &["--json", "--paths", "2"]);
    assert!(ok, "{err}");
    let v = json(&out);
    assert_eq!(v["counters"]["tx_data"], 0, "nothing sent yet");
    assert_eq!(v["paths"].as_array().expect("paths").len(), 2);

    // WRITE, WRITE with immediate and SEND in turn, 6 x 3000 bytes, every
    // byte read back through the bridge and compared.
    let args = ["--op", "mixed", "--size", "3000", "--count", "6", "--paths", "4", "--streams", "2", "--json"];
    let (ok, out, err) = b.run("loopback", &args);
    assert!(ok, "{err}");
    let v = json(&out);
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["bytes"], 18_000);
    // Every message completes at the sender; WRITE with immediate and SEND also at the receiver.
    assert_eq!(v["completions"], 6 + 4);

    // The transfer went over the engine's port: its counters say so.
    let (ok, out, err) = b.run("stats", &["--json", "--paths", "4"]);
    assert!(ok, "{err}");
    let v = json(&out);
    let sent = v["counters"]["tx_data"].as_u64().expect("tx_data");
    assert!(sent >= 6 * 3, "{sent} data packets for 6 messages of 3 packets (MTU 1024)");
    assert_eq!(v["counters"]["rx_malformed"], 0, "a clean cable");

    // More than the board memory holds is refused with the sizes.
    let (ok, _, err) = b.run("loopback", &["--size", "64KiB", "--count", "4"]);
    assert!(!ok && err.contains("do not fit the board's 131072 bytes"), "{err}");
}

#[test]
fn the_uart_backend_explains_a_missing_device_and_a_silent_line() {
    let (ok, _, err) = cli(&["info", "--backend", "uart"]);
    assert!(!ok && err.contains("--backend uart needs --device"), "{err}");
    let (ok, _, err) = cli(&["info", "--backend", "uart", "--device", "/dev/ferroce-no-such-tty"]);
    assert!(!ok && err.contains("/dev/ferroce-no-such-tty"), "{err}");
    // A pseudo-terminal with nobody at the far end: no answer in time.
    let pty = ferroce_driver::serial::Pty::open().expect("a pty");
    let path = pty.path().display().to_string();
    let (ok, _, err) = cli(&["info", "--backend", "uart", "--device", &path, "--uart-timeout", "0.3"]);
    assert!(!ok && err.contains("timed out") && err.contains("ferroce bitstream"), "{err}");
    let (ok, _, err) = cli(&["info", "--backend", "uart", "--device", &path, "--baud", "12345"]);
    assert!(!ok && err.contains("12345 baud is not a standard speed"), "{err}");
}

/// A TCP port free on this host when asked.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a local port").local_addr().expect("its address").port()
}

/// A process stopped when dropped.
struct Stopped(Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The folder of the pinned LiteX packages (installed when absent).
fn litex_packages() -> std::path::PathBuf {
    let probe = ferroce_sim::tools::ensure(&ferroce_sim::tools::LITEETH, &mut |l| eprintln!("{l}")).expect("LiteX");
    // The probe is <packages>/liteeth/__init__.py.
    probe.parent().and_then(|p| p.parent()).expect("the packages' folder").to_path_buf()
}

/// Run a Python client `script` with the LiteX packages; its stdout.
fn litex_script(packages: &std::path::Path, script: &str) -> String {
    let out = Command::new("python3")
        .env("PYTHONPATH", packages)
        .args(["-c", script])
        .output()
        .expect("python3 runs the client");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "LiteX's client failed: {}{}", text, String::from_utf8_lossy(&out.stderr));
    text
}

/// LiteX's own host tools, from the pinned litex package (a client nobody
/// here wrote), against the simulated board: `litex_server` opens the
/// board's serial line as it opens a LiteX SoC's UARTBone, and a script
/// using LiteX's `RemoteClient` reads the engine's registers, writes one and
/// reads it back, and writes and reads back board memory, through it.
#[test]
fn litex_server_and_remote_client_reach_the_simulated_board() {
    use ferroce_proto::board::{RAM_BASE, STATUS_RAM_BYTES};
    let packages = litex_packages();
    let b = SimBoard::start(&["--engine", "stand-in"]);
    let port = free_port();
    let _server = Stopped(
        Command::new("python3")
            .env("PYTHONPATH", &packages)
            .args(["-m", "litex.tools.litex_server", "--uart", "--uart-port", &b.pty, "--uart-baudrate", "115200"])
            .args(["--bind-ip", "127.0.0.1", "--bind-port", &port.to_string()])
            .stdout(Stdio::null())
            .spawn()
            .expect("litex_server starts"),
    );
    let t0 = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(t0.elapsed().as_secs() < 60, "litex_server did not listen on {port} within a minute");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let mtu = regs::control::MTU;
    let ack_every = regs::control::ACK_EVERY;
    let script = format!(
        r#"
import time
from litex import RemoteClient
wb = RemoteClient(host="127.0.0.1", port={port})
wb.open()
print("mtu", wb.read({mtu}))
wb.write({ack}, 9)
print("ack_every", wb.read({ack}))
print("ram_bytes", wb.read({ram_bytes}))
words = [0x01234567, 0x89abcdef, 0xdeadbeef, 0x00c0ffee]
for i, w in enumerate(words):
    wb.write({ram} + 0x100 + 4 * i, w)
print("ram", " ".join(str(wb.read({ram} + 0x100 + 4 * i)) for i in range(len(words))))
wb.close()
"#,
        mtu = mtu.offset(),
        ack = ack_every.offset(),
        ram_bytes = STATUS_RAM_BYTES,
        ram = RAM_BASE,
    );
    let text = litex_script(&packages, &script);
    let line = |key: &str| -> Vec<u64> {
        let l = text.lines().find(|l| l.split(' ').next() == Some(key)).unwrap_or_else(|| panic!("no {key} in {text}"));
        l.split(' ').skip(1).map(|v| v.parse().expect("a number")).collect()
    };
    assert_eq!(line("mtu"), [mtu.register().reset as u64], "control.mtu reads its reset value");
    assert_eq!(line("ack_every"), [9], "control.ack_every reads back what was written");
    assert_eq!(line("ram_bytes"), [ferroce_sim::board::RAM_BYTES], "the board's memory size");
    assert_eq!(line("ram"), [0x01234567, 0x89abcdef, 0xdeadbeef, 0x00c0ffee], "board memory reads back");
}

/// A UDP port free on this host when asked.
fn free_udp_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").expect("a local port").local_addr().expect("its address").port()
}

/// The CLI's Etherbone backend: `ferroce sim-board --udp` serves the board's
/// Ethernet bridge on a local UDP port, and `info`, `regs` and a verified
/// `loopback` reach the whole engine through it; then packets encoded and
/// answers decoded by LiteX's own Etherbone classes (the pinned litex
/// package) against the same board.
#[test]
fn info_regs_and_a_verified_loopback_through_a_boards_etherbone() {
    let port = free_udp_port();
    let addr = format!("127.0.0.1:{port}");
    let b = SimBoard::start(&["--engine", "engine", "--udp", &addr]);
    let run = |cmd: &str, args: &[&str]| {
        let mut all = vec![cmd, "--backend", "etherbone", "--device", &addr, "--timeout", "300"];
        all.extend_from_slice(args);
        cli(&all)
    };
    let (ok, out, err) = run("info", &["--json"]);
    assert!(ok, "{err}");
    let v = json(&out);
    assert_eq!(v["parameters"]["max_conns"], ferroce_proto::config::EngineConfig::ECP5_85.conns() as u64);
    let (ok, out, err) = run("regs", &["control.ack_every", "7"]);
    assert!(ok && out.contains("control.ack_every = 0x00000007 (7)"), "{out}{err}");

    let args = ["--op", "mixed", "--size", "5000", "--count", "6", "--paths", "4", "--streams", "2", "--json"];
    let (ok, out, err) = run("loopback", &args);
    assert!(ok, "{err}");
    let v = json(&out);
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["bytes"], 30_000);
    assert_eq!(v["completions"], 6 + 4);
    let (ok, out, err) = run("stats", &["--json", "--paths", "4"]);
    assert!(ok, "{err}");
    assert!(json(&out)["counters"]["tx_data"].as_u64().expect("tx_data") >= 6 * 5, "{out}");

    // LiteX's encoder and decoder (litex/tools/remote/etherbone.py) on a
    // socket of their own: a probe, a write, and a read of it and of the
    // board's memory size.
    let script = format!(
        r#"
import socket
from litex.tools.remote.etherbone import EtherbonePacket, EtherboneRecord, EtherboneReads, EtherboneWrites
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(60)
board = ("127.0.0.1", {port})
p = EtherbonePacket(32); p.pf = 1; p.encode(); p.bytes += bytes(4)
s.sendto(p.bytes, board)
a = EtherbonePacket(32, s.recv(4096)); a.decode()
print("probe", a.pr)
r = EtherboneRecord(4); r.writes = EtherboneWrites(4, base_addr={ram} + 0x40, datas=[0x01234567, 0x89abcdef])
p = EtherbonePacket(32); p.records = [r]; p.encode()
s.sendto(p.bytes, board)
r = EtherboneRecord(4); r.reads = EtherboneReads(4, base_ret_addr=77, addrs=[{ram} + 0x40, {ram} + 0x44, {ram_bytes}])
p = EtherbonePacket(32); p.records = [r]; p.encode()
s.sendto(p.bytes, board)
a = EtherbonePacket(32, s.recv(4096)); a.decode()
w = a.records[0].writes
print("read", w.base_addr, " ".join(str(d) for d in w.get_datas()))
"#,
        ram = ferroce_proto::board::RAM_BASE,
        ram_bytes = ferroce_proto::board::STATUS_RAM_BYTES,
    );
    let text = litex_script(&litex_packages(), &script);
    assert!(text.contains("probe 1\n"), "{text}");
    let want = format!("read 77 {} {} {}\n", 0x01234567u32, 0x89abcdefu32, ferroce_sim::board::RAM_BYTES);
    assert!(text.contains(&want), "{text}");
    drop(b);
}

#[test]
fn the_etherbone_backend_explains_a_missing_or_bad_device_and_a_silent_address() {
    let (ok, _, err) = cli(&["info", "--backend", "etherbone"]);
    assert!(!ok && err.contains("--backend etherbone needs --device") && err.contains("192.168.1.50"), "{err}");
    let (ok, _, err) = cli(&["info", "--backend", "etherbone", "--device", "board.local"]);
    assert!(!ok && err.contains("not an IP address or IP:port"), "{err}");
    // Nobody at that address: every try unanswered.
    let port = free_udp_port();
    let dev = format!("127.0.0.1:{port}");
    let (ok, _, err) = cli(&["info", "--backend", "etherbone", "--device", &dev, "--timeout", "0.5"]);
    assert!(!ok && err.contains("no Etherbone answer") && err.contains("5 tries"), "{err}");
}
