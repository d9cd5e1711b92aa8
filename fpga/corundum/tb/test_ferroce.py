# ferroce in Corundum's full-NIC testbench (cocotb).
#
# `cargo xtask corundum-test --corundum-dir DIR` copies this file into
# DIR/fpga/app/ferroce/tb/mqnic_core_pcie_us/ beside a Makefile derived from
# the checkout's own template bench, builds `mqnic_core_pcie_us` with ferroce
# as its application block, and runs it here.
#
# What runs:
# - The NIC as Corundum's template bench sets it up (its `TB` class, imported
#   from fpga/app/template/tb/mqnic_core_pcie_us of the same checkout: the
#   UltraScale+ PCIe model, the root complex, the `mqnic` driver model), with
#   one change: the MAC models sit on the core's top-level Ethernet ports
#   (`m_axis_eth_tx_*`, `s_axis_eth_rx_*`) rather than on nets inside the
#   hierarchy, which only Icarus lets a bench drive. Every port is looped back.
# - The NIC brought up and its queues enabled, as the template does.
# - ferroce programmed and run by ferroce's own Rust driver: the bench serves
#   BAR0 and BAR2 accesses and host memory (a region of the root complex's
#   memory pool) on a Unix socket (FERROCE_BENCH_SOCKET) to a client that
#   runs the driver's register sequence (`ferroce_driver::cocotb`), so the
#   sequence is the driver's, not a copy of it.
# - While ferroce's traffic runs, the NIC sends and receives ordinary packets
#   through the same port (raw frames up to jumbo size, UDP with checksum
#   offload); each must come back to the NIC whole with the right receive
#   checksum, and none of ferroce's frames may reach the NIC's receive queues.
#
# The protocol on the socket (little-endian), one request then its answer:
#   op 1 read:   u8 bar, u32 offset          -> u8 0, u32 value
#   op 2 write:  u8 bar, u32 offset, u32 v   -> u8 0
#   op 3 mem write: u64 addr, u32 n, n bytes -> u8 0
#   op 4 mem read:  u64 addr, u32 n          -> u8 0, n bytes
#   op 5 idle:   u32 ns                      -> u8 0, u64 time in ps
#   op 6 memory: -                           -> u8 0, u64 base, u64 bytes
#   op 7 done:   u8 failed                   -> u8 0 (the bench ends)
#   op 8 lanes:  -                           -> u8 0, u32 frames sent by the
#                NIC, u32 by ferroce, u32 frames dropped by the loss model
# An error answers u8 1, u32 n, n bytes of message.

import collections
import logging
import os
import random
import socket
import struct
import sys

import cocotb
import scapy.utils
from cocotb.triggers import Event, Timer
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE_TB = os.path.join(HERE, "..", "..", "..", "template", "tb", "mqnic_core_pcie_us")
sys.path.insert(0, TEMPLATE_TB)
import test_mqnic_core_pcie_us as template  # noqa: E402  Corundum's own bench, from this checkout
import mqnic  # noqa: E402

ETH_PERIOD_PS = 6400  # 10 GbE's 64-bit MAC interface, as the template clocks it
FERROCE_UDP_PORT = int(os.environ.get("FERROCE_UDP_PORT", "17989"))


class Frame:
    def __init__(self, data):
        self.data = bytes(data)

    def __bytes__(self):
        return self.data

    def __repr__(self):
        return f"Frame({len(self.data)} bytes)"


class LaneTx:
    """Frames the core sends on one port (a MAC's receive side as the template uses it)."""

    def __init__(self):
        self.queue = collections.deque()
        self.event = Event()
        self.reset = None

    def empty(self):
        return not self.queue

    async def recv(self):
        while not self.queue:
            self.event.clear()
            await self.event.wait()
        return self.queue.popleft()


class LaneRx:
    """Frames the bench hands the core on one port."""

    def __init__(self):
        self.queue = collections.deque()
        self.reset = None

    async def send(self, frame):
        self.queue.append(bytes(frame))

    def send_nowait(self, frame):
        self.queue.append(bytes(frame))


class LaneMac:
    def __init__(self, tx, rx):
        self.tx, self.rx = tx, rx


class Reset:
    """A MAC model's reset as the template drives it: here every port's."""

    def __init__(self, signals, ports):
        self.signals, self.ports = signals, ports

    def setimmediatevalue(self, v):
        for s in self.signals:
            s.setimmediatevalue((1 << self.ports) - 1 if v else 0)


def is_ferroce(frame):
    """IPv4 without options, UDP, to ferroce's port."""
    return (
        len(frame) >= 42
        and frame[12:14] == b"\x08\x00"
        and frame[14] == 0x45
        and frame[23] == 17
        and struct.unpack(">H", frame[36:38])[0] == FERROCE_UDP_PORT
    )


class Lanes:
    """MAC models on the core's top-level Ethernet ports, one lane per port,
    every port looped back (what a port sends comes back to it). The
    Ethernet clocks are driven here; a frame's bytes are taken at the rising
    edge, new inputs given at the falling edge. `loss` drops that share of
    ferroce's frames (never the NIC's: it has no retransmission)."""

    def __init__(self, dut, ports, loss=0.0, seed=1):
        self.dut, self.n = dut, ports
        self.width = len(dut.m_axis_eth_tx_tdata) // ports
        self.keep = self.width // 8
        self.tx_user = len(dut.m_axis_eth_tx_tuser) // ports
        self.rx_user = len(dut.s_axis_eth_rx_tuser) // ports
        self.tag_bits = len(dut.s_axis_eth_tx_cpl_tag) // ports
        self.tx = [LaneTx() for _ in range(ports)]
        self.rx = [LaneRx() for _ in range(ports)]
        self.loop = True
        self.loss, self.rng = loss, random.Random(seed)
        self.sent_nic = self.sent_ferroce = self.dropped = 0
        self.nic_frames = []  # what the NIC sent, in order
        rst = Reset([dut.eth_tx_rst, dut.eth_rx_rst], ports)
        for t, r in zip(self.tx, self.rx):
            t.reset = r.reset = rst

    def macs(self):
        return [LaneMac(t, r) for t, r in zip(self.tx, self.rx)]

    async def run(self):
        dut, n, w = self.dut, self.n, self.width
        ones = (1 << n) - 1
        half = Timer(ETH_PERIOD_PS // 2, "ps")
        building = [bytearray() for _ in range(n)]
        rx_cur = [None] * n  # (bytes, offset) of the frame being given
        rx_gap = [0] * n
        cpl = [collections.deque() for _ in range(n)]
        cpl_on = [None] * n
        dut.m_axis_eth_tx_tready.setimmediatevalue(ones)
        dut.s_axis_eth_rx_tvalid.setimmediatevalue(0)
        dut.s_axis_eth_tx_cpl_valid.setimmediatevalue(0)
        for clk in (dut.eth_tx_clk, dut.eth_rx_clk, dut.eth_tx_ptp_clk, dut.eth_rx_ptp_clk):
            clk.setimmediatevalue(0)
        given = 0  # lanes whose beat is on s_axis_eth_rx this cycle
        while True:
            await half
            # The rising edge: what the lanes carry now is taken.
            tv = dut.m_axis_eth_tx_tvalid.value.integer
            if tv:
                data = dut.m_axis_eth_tx_tdata.value.integer
                keep = dut.m_axis_eth_tx_tkeep.value.integer
                last = dut.m_axis_eth_tx_tlast.value.integer
                user = dut.m_axis_eth_tx_tuser.value.integer
            cpl_ready = dut.s_axis_eth_tx_cpl_ready.value.integer
            for clk in (dut.eth_tx_clk, dut.eth_rx_clk, dut.eth_tx_ptp_clk, dut.eth_rx_ptp_clk):
                clk.value = ones
            for p in range(n):
                if cpl_on[p] is not None and (cpl_ready >> p) & 1:
                    cpl_on[p] = None
                if (tv >> p) & 1:
                    d = (data >> (p * w)) & ((1 << w) - 1)
                    k = (keep >> (p * self.keep)) & ((1 << self.keep) - 1)
                    for b in range(self.keep):
                        if (k >> b) & 1:
                            building[p].append((d >> (8 * b)) & 0xFF)
                    if (last >> p) & 1:
                        frame = bytes(building[p])
                        building[p] = bytearray()
                        u = (user >> (p * self.tx_user)) & ((1 << self.tx_user) - 1)
                        cpl[p].append(u >> 1)
                        self.on_frame(p, frame)
                if (given >> p) & 1:
                    f, off = rx_cur[p]
                    off += self.keep
                    if off >= len(f):
                        rx_cur[p] = None
                        rx_gap[p] = 2
                    else:
                        rx_cur[p] = (f, off)
            await half
            # The falling edge: the next cycle's inputs.
            for clk in (dut.eth_tx_clk, dut.eth_rx_clk, dut.eth_tx_ptp_clk, dut.eth_rx_ptp_clk):
                clk.value = 0
            given, rdata, rkeep, rlast = 0, 0, 0, 0
            cv, ctag = 0, 0
            for p in range(n):
                if rx_cur[p] is None:
                    if rx_gap[p]:
                        rx_gap[p] -= 1
                    elif self.rx[p].queue:
                        rx_cur[p] = (self.rx[p].queue.popleft(), 0)
                if rx_cur[p] is not None:
                    f, off = rx_cur[p]
                    beat = f[off:off + self.keep]
                    rdata |= int.from_bytes(beat, "little") << (p * w)
                    rkeep |= ((1 << len(beat)) - 1) << (p * self.keep)
                    if off + self.keep >= len(f):
                        rlast |= 1 << p
                    given |= 1 << p
                if cpl_on[p] is None and cpl[p]:
                    cpl_on[p] = cpl[p].popleft()
                if cpl_on[p] is not None:
                    cv |= 1 << p
                    ctag |= (cpl_on[p] & ((1 << self.tag_bits) - 1)) << (p * self.tag_bits)
            dut.s_axis_eth_rx_tvalid.value = given
            if given:
                dut.s_axis_eth_rx_tdata.value = rdata
                dut.s_axis_eth_rx_tkeep.value = rkeep
                dut.s_axis_eth_rx_tlast.value = rlast
                dut.s_axis_eth_rx_tuser.value = 0
            dut.s_axis_eth_tx_cpl_valid.value = cv
            dut.s_axis_eth_tx_cpl_tag.value = ctag
            dut.s_axis_eth_tx_cpl_ts.value = 0

    def on_frame(self, port, frame):
        ours = is_ferroce(frame)
        if ours:
            self.sent_ferroce += 1
        else:
            self.sent_nic += 1
            self.nic_frames.append(frame)
        if not self.loop:
            self.tx[port].queue.append(Frame(frame))
            self.tx[port].event.set()
        elif ours and self.rng.random() < self.loss:
            self.dropped += 1
        else:
            self.rx[port].queue.append(frame)


class Server:
    """BAR0, BAR2 and host memory for ferroce's Rust driver (see the protocol above)."""

    def __init__(self, tb, path, mem_bytes):
        self.tb, self.path, self.mem_bytes = tb, path, mem_bytes
        self.log = logging.getLogger("cocotb.tb.ferroce")

    def recv_exact(self, conn, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = conn.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("the driver closed the socket")
            buf += chunk
        return bytes(buf)

    async def serve(self, lanes):
        drv = self.tb.driver
        mem = drv.pool.alloc_region(self.mem_bytes)
        base = mem.get_absolute_address(0)
        bars = {0: drv.hw_regs, 2: drv.app_hw_regs}
        if os.path.exists(self.path):
            os.unlink(self.path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path)
        listener.listen(1)
        listener.settimeout(float(os.environ.get("FERROCE_BENCH_WAIT", "900")))
        self.log.info("waiting for ferroce's driver on %s", self.path)
        conn, _ = listener.accept()
        conn.settimeout(float(os.environ.get("FERROCE_BENCH_WAIT", "900")))
        self.log.info("driver connected; host memory %#x, %d bytes", base, self.mem_bytes)
        failed = None
        while True:
            op = self.recv_exact(conn, 1)[0]
            try:
                if op == 1:
                    bar, off = struct.unpack("<BI", self.recv_exact(conn, 5))
                    v = await bars[bar].read_dword(off)
                    conn.sendall(struct.pack("<BI", 0, v))
                elif op == 2:
                    bar, off, v = struct.unpack("<BII", self.recv_exact(conn, 9))
                    await bars[bar].write_dword(off, v)
                    conn.sendall(b"\x00")
                elif op == 3:
                    addr, n = struct.unpack("<QI", self.recv_exact(conn, 12))
                    data = self.recv_exact(conn, n)
                    self.check(addr, n, base)
                    await mem.write(addr - base, data)
                    conn.sendall(b"\x00")
                elif op == 4:
                    addr, n = struct.unpack("<QI", self.recv_exact(conn, 12))
                    self.check(addr, n, base)
                    data = await mem.read(addr - base, n)
                    conn.sendall(b"\x00" + bytes(data))
                elif op == 5:
                    (ns,) = struct.unpack("<I", self.recv_exact(conn, 4))
                    await Timer(ns, "ns")
                    conn.sendall(struct.pack("<BQ", 0, int(cocotb.utils.get_sim_time("ps"))))
                elif op == 6:
                    conn.sendall(struct.pack("<BQQ", 0, base, self.mem_bytes))
                elif op == 7:
                    failed = self.recv_exact(conn, 1)[0]
                    conn.sendall(b"\x00")
                    break
                elif op == 8:
                    conn.sendall(struct.pack("<BIII", 0, lanes.sent_nic, lanes.sent_ferroce, lanes.dropped))
                else:
                    raise ValueError(f"unknown request {op}")
            except (KeyError, ValueError) as e:
                msg = str(e).encode()
                conn.sendall(struct.pack("<BI", 1, len(msg)) + msg)
        conn.close()
        listener.close()
        return failed

    def check(self, addr, n, base):
        if addr < base or addr + n > base + self.mem_bytes:
            raise ValueError(f"{n} bytes at {addr:#x} outside host memory {base:#x}+{self.mem_bytes:#x}")


def mac_factory(lanes):
    """Stands in for cocotbext-eth's EthMac in the template's TB: the k-th
    MAC it builds is lane k."""
    macs = iter(lanes.macs())

    def make(*args, **kwargs):
        return next(macs)

    return make


def clock_factory(real):
    """The template's Clock, except on nets inside the core (port clocks,
    which Lanes drives at the top)."""

    class Idle:
        async def start(self):
            return

    def make(signal, *args, **kwargs):
        if "." in signal._path.split(".", 1)[-1]:
            return Idle()
        return real(signal, *args, **kwargs)

    return make


async def idle_loopback(self):
    return


async def nic_traffic(tb, count):
    """Ordinary packets through the NIC beside ferroce's traffic, as the
    template's packet tests send them (raw frames of 64 to 9 014 bytes, and
    UDP over IPv4 to other ports with the transmit checksum offloaded):
    each comes back to the NIC whole, with the receive checksum the
    template checks; returns how many."""
    iface = tb.driver.interfaces[0]
    done = 0
    rng = random.Random(7)
    while done < count:
        if done % 2:
            size = rng.choice([64, 256, 1024, 1514, 9014])
            data = bytes([0x02, 0, 0, 0, 0, done & 0xFF]) + bytes([0x02, 0, 0, 0, 1, 0]) + b"\x88\xb5"
            data += bytes((done + k) & 0xFF for k in range(size - len(data)))
            await iface.start_xmit(data, 0)
        else:
            payload = bytes((done + k) & 0xFF for k in range(rng.choice([18, 256, 1400])))
            pkt = Ether(src="5A:51:52:53:54:55", dst="DA:D1:D2:D3:D4:D5") / IP(src="192.168.1.100", dst="192.168.1.101")
            pkt = pkt / UDP(sport=1000 + done, dport=FERROCE_UDP_PORT + 1 + done) / payload
            data = pkt.build()
            if iface.if_feature_tx_csum:
                # As the template does: the UDP checksum field holds the
                # pseudo-header sum, the NIC completes it.
                sent = pkt.copy()
                sent[UDP].chksum = scapy.utils.checksum(bytes(sent[UDP]))
                await iface.start_xmit(sent.build(), 0, 34, 6)
            else:
                await iface.start_xmit(data, 0)
        pkt = await iface.recv()
        got = bytes(pkt.data)
        assert not is_ferroce(got), "a ferroce frame reached the NIC"
        if done % 2:
            assert got[: len(data)] == data, f"NIC packet {done}: came back changed"
        else:
            assert Ether(got).build() == data, f"NIC packet {done}: came back changed"
        if iface.if_feature_rx_csum:
            assert pkt.rx_checksum == ~scapy.utils.checksum(got[14:]) & 0xFFFF, f"NIC packet {done}: receive checksum"
        done += 1
    return done


@cocotb.test()
async def run_test_ferroce(dut):
    ports = len(dut.m_axis_eth_tx_tvalid)
    loss = float(os.environ.get("FERROCE_BENCH_LOSS", "0"))
    lanes = Lanes(dut, ports, loss=loss)
    template.EthMac = mac_factory(lanes)
    template.Clock = clock_factory(template.Clock)
    # The template's loopback wakes up on every core clock even when off;
    # Lanes loops the ports instead.
    template.TB._run_loopback = idle_loopback
    tb = template.TB(dut, msix_count=2 ** len(dut.core_pcie_inst.irq_index))
    cocotb.start_soon(lanes.run())
    # The PCIe and AXI models log every frame at INFO; the bench keeps its own lines.
    for name in ("cocotb.mqnic_core_pcie_us", "cocotb.pcie", "cocotb.mqnic"):
        logging.getLogger(name).setLevel(logging.WARNING)
    await tb.init()

    tb.log.info("Init driver")
    await tb.driver.init_pcie_dev(tb.rc.find_device(tb.dev.functions[0].pcie_id))
    for interface in tb.driver.interfaces:
        await interface.open()
    tb.log.info("Enable queues")
    for interface in tb.driver.interfaces:
        await interface.sched_blocks[0].schedulers[0].rb.write_dword(mqnic.MQNIC_RB_SCHED_RR_REG_CTRL, 0x00000001)
        for k in range(len(interface.txq)):
            await interface.sched_blocks[0].schedulers[0].hw_regs.write_dword(4 * k, 0x00000003)
    await tb.driver.hw_regs.read_dword(0)
    tb.log.info("Init complete")

    tb.log.info("NIC alone: one packet out and back")
    assert await nic_traffic(tb, 1) == 1
    assert lanes.sent_nic == 1 and lanes.sent_ferroce == 0

    path = os.environ.get("FERROCE_BENCH_SOCKET")
    want_nic = int(os.environ.get("FERROCE_BENCH_NIC_PACKETS", "16"))
    if path:
        tb.log.info("ferroce: serving the driver on %s, NIC packets beside it", path)
        nic = cocotb.start_soon(nic_traffic(tb, want_nic))
        failed = await Server(tb, path, int(os.environ.get("FERROCE_BENCH_MEM", str(4 << 20)))).serve(lanes)
        assert not failed, "ferroce's driver reported a failure (see its output)"
        nic_done = await nic
        tb.log.info(
            "NIC packets %d, frames from the NIC %d, from ferroce %d, ferroce frames dropped %d",
            nic_done, lanes.sent_nic, lanes.sent_ferroce, lanes.dropped,
        )
        assert nic_done == want_nic, f"{nic_done} of {want_nic} NIC packets came back"
        assert lanes.sent_ferroce > 0, "ferroce sent nothing"
        assert lanes.sent_nic == 1 + want_nic, f"the NIC sent {lanes.sent_nic} frames, want {1 + want_nic}"
    else:
        # Run by `make` alone: no driver to program ferroce, so only its
        # presence is checked (BAR2's application block, docs/corundum.md).
        app = tb.driver.app_hw_regs
        assert await app.read_dword(0x010000) == 0xFE01, "no ferroce application block at BAR2 0x10000"
        assert await app.read_dword(0x01000C) == 0x4645524F, "BAR2's application block has another APP_ID"
        tb.log.warning(
            "ferroce's block is there, but ferroce was not run: FERROCE_BENCH_SOCKET is not set "
            "(run the bench through `cargo xtask corundum-test`, which serves it ferroce's driver)"
        )
    tb.log.info("done")
