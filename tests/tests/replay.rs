//! Captures that a real network accepts: the RTL loopback's and the fabric
//! model's frames are replayed into a Linux UDP socket inside a network
//! namespace made for the test (`unshare -rn`, a veth pair: frames go in at
//! one end and the kernel routes them at the other), and what the kernel
//! delivers is counted and compared datagram by datagram. A self-addressed
//! copy of the same frames (what the loopback used to send) is replayed as
//! the control: the kernel must drop every one as a martian. Where
//! namespaces are not allowed, the test says so and passes.

use std::path::Path;
use std::process::Command;

use ferroce_proto::types::us;
use ferroce_proto::wire::headers::{ETH, IPV4, UDP};
use ferroce_proto::wire::{self, crc32, internet_checksum, FERROCE_PORT};
use ferroce_sim::pcap::read_frames;
use ferroce_tests::scratch;

/// Injects each frame (hex, one a line) on veth `inject`; counts what a
/// UDP socket bound to `ip:port` on the other end receives and prints one
/// line per datagram: its length and CRC-32.
const REPLAY: &str = r#"
import socket, sys, time, zlib
ip, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
rx.bind((ip, port))
rx.setblocking(False)
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind(("inject", 0))
got = []
def drain():
    while True:
        try:
            d = rx.recv(65536)
        except BlockingIOError:
            return
        got.append(d)
for line in open(path):
    tx.send(bytes.fromhex(line.strip()))
    drain()
deadline = time.time() + 1.0
while time.time() < deadline:
    drain()
    time.sleep(0.01)
for d in got:
    print(len(d), zlib.crc32(d))
"#;

/// What the kernel delivered to `ip:port` when `frames` came in on a veth
/// whose receiving end has `mac` and `ip`/24: (length, CRC-32) per
/// datagram, or `None` (with the reason printed) where no namespace can be
/// made.
fn replay(dir: &Path, name: &str, frames: &[Vec<u8>], mac: [u8; 6], ip: [u8; 4]) -> Option<Vec<(usize, u32)>> {
    let list = dir.join(format!("{name}.hex"));
    let hex: String = frames.iter().map(|f| f.iter().map(|b| format!("{b:02x}")).collect::<String>() + "\n").collect();
    std::fs::write(&list, hex).unwrap();
    let mac = mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":");
    let ip = format!("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3]);
    let setup = format!(
        "set -e; ip link add inject type veth peer name host; ip link set host address {mac}; \
         ip addr add {ip}/24 dev host; ip link set inject up; ip link set host up; ip link set lo up; \
         ip route add default dev host; exec python3 -c \"$REPLAY\" {ip} {FERROCE_PORT} {}",
        list.display()
    );
    let out = match Command::new("unshare").args(["-rn", "sh", "-c", &setup]).env("REPLAY", REPLAY).output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("SKIPPED: the replay needs unshare (util-linux): {e}");
            return None;
        }
    };
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        if err.contains("unshare failed") || err.contains("Operation not permitted") {
            eprintln!("SKIPPED: this machine allows no network namespace here: {err}");
            return None;
        }
        panic!("the replay failed: {err}");
    }
    let delivered = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let (n, c) = l.split_once(' ').expect("length and CRC");
            (n.parse().unwrap(), c.parse().unwrap())
        })
        .collect();
    Some(delivered)
}

/// (length, CRC-32) of each frame's UDP payload: what a socket should get.
fn payloads(frames: &[Vec<u8>]) -> Vec<(usize, u32)> {
    let at = ETH.len + IPV4.len + UDP.len;
    frames.iter().map(|f| (f.len() - at, crc32(&f[at..]))).collect()
}

/// `f` sent from its destination to itself (MAC and IPv4), checksum fixed.
fn self_addressed(f: &[u8]) -> Vec<u8> {
    let mut f = f.to_vec();
    let dst_mac: [u8; 6] = f[0..6].try_into().unwrap();
    f[6..12].copy_from_slice(&dst_mac);
    let ip = &mut f[ETH.len..ETH.len + IPV4.len];
    let dst = ferroce_proto::wire::headers::fields::ipv4::DST.get(ip);
    ferroce_proto::wire::headers::fields::ipv4::SRC.set(ip, dst);
    ferroce_proto::wire::headers::fields::ipv4::CHECKSUM.set(ip, 0);
    let c = internet_checksum(ip);
    ferroce_proto::wire::headers::fields::ipv4::CHECKSUM.set(ip, c as u64);
    f
}

fn check(dir: &Path, name: &str, frames: Vec<Vec<u8>>) {
    assert!(frames.len() >= 20, "{name}: a capture of some size ({} frames)", frames.len());
    let parsed: Vec<wire::Frame<'_>> = frames.iter().map(|f| wire::parse(f, FERROCE_PORT).unwrap()).collect();
    let (mac, ip) = (parsed[0].addr.dst_mac, parsed[0].addr.dst_ip);
    for p in &parsed {
        assert_eq!((p.addr.dst_mac, p.addr.dst_ip), (mac, ip), "{name}: one receiving host");
        assert_ne!(p.addr.src_ip, p.addr.dst_ip, "{name}: no frame from an address to itself");
        assert_ne!(p.addr.src_mac, p.addr.dst_mac, "{name}: no frame from a MAC to itself");
    }
    let Some(mut got) = replay(dir, name, &frames, mac, ip) else { return };
    let mut want = payloads(&frames);
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got.len(), frames.len(), "{name}: the kernel delivers every frame");
    assert_eq!(got, want, "{name}: each datagram is a frame's UDP payload");
    let control: Vec<Vec<u8>> = frames.iter().map(|f| self_addressed(f)).collect();
    let dropped = replay(dir, &format!("{name}-self"), &control, mac, ip).expect("a namespace, as above");
    assert_eq!(dropped.len(), 0, "{name}: self-addressed frames are martians to Linux");
}

#[test]
fn the_kernel_delivers_every_frame_of_the_rtl_loopback() {
    let dir = scratch("replay-rtl");
    let pcap = dir.join("loopback.pcap");
    let o = ferroce_driver::loopback::Opts {
        size: 8 << 10,
        count: 4,
        paths: 4,
        streams: 2,
        pcap: Some(pcap.clone()),
        ..Default::default()
    };
    let r = ferroce_driver::loopback::run_sim(&o, &mut |_, _| {}).unwrap();
    assert!(r.verified);
    let frames: Vec<Vec<u8>> =
        read_frames(std::fs::File::open(&pcap).unwrap()).unwrap().into_iter().map(|f| f.1).collect();
    assert_eq!(frames.len() as u64, r.frames, "the capture holds every frame sent");
    check(&dir, "rtl", frames);
}

#[test]
fn the_kernel_delivers_every_frame_the_fabric_brings_to_a_host() {
    use ferroce_sim::scenario::{run_messages, verify, Kind, Msg, NetConfig, Op, Pair};
    let dir = scratch("replay-fabric");
    let pcap = dir.join("fabric.pcap");
    let net = NetConfig::new(Kind::Ferroce);
    let msgs: Vec<Msg> = (0..4).map(|i| Msg { op: Op::Write, stream: i % net.streams, len: 8 << 10 }).collect();
    let mut pair = Pair::new(net, 32 << 10).unwrap();
    pair.fabric.capture(&pcap).unwrap();
    pair.fill_source(1);
    let report = run_messages(&mut pair, &msgs, us(1_000_000)).unwrap();
    pair.fabric.finish_capture().unwrap();
    verify(&pair, &msgs, &report).unwrap();
    // The capture has every frame as sent and as received; the receiver's
    // arrivals came through three routers.
    let (mac, _) = pair.fabric.host_addr(1);
    let all = read_frames(std::fs::File::open(&pcap).unwrap()).unwrap();
    let arrivals: Vec<Vec<u8>> = all.into_iter().map(|f| f.1).filter(|f| f[0..6] == mac).collect();
    for f in &arrivals {
        let p = wire::parse(f, FERROCE_PORT).unwrap();
        assert_eq!((p.addr.src_mac, p.addr.ttl), (pair.fabric.gateway_mac(1), 61), "routed by leaf, spine, leaf");
    }
    check(&dir, "fabric", arrivals);
}
