#!/usr/bin/env python3
"""LiteEth's ECP5 RGMII PHY and MAC core as one Verilog module, `liteeth_core`.

`liteeth_gen` (LiteEth 2024.12) has no raw-frame core: this script builds the
PHY (`LiteEthPHYRGMII`, ECP5 DDR I/O) and a MAC core from LiteEth's own stages
(preamble, CRC, padding, inter-frame gap, clock-domain crossing to the system
clock, width conversion) and emits them as one module. The board top (rust-hdl,
`hdl/src/board/`) instantiates it.

The MAC core is composed as `LiteEthMACCore` composes it (liteeth/mac/core.py,
LiteEth 2024.12, with the datapath in the PHY's clock domain), with two
differences. On the receive side the last-byte stage (`LiteEthMACRXLastBE`,
which sets `last_be` from the 8-bit PHY's `last`) comes before the preamble
and CRC checkers instead of after them: the CRC checker flags a bad FCS only
on a beat whose `last_be` is set, so in `LiteEthMACCore`'s order with an
8-bit PHY frames with a bad FCS pass unflagged and uncounted (found by the
board's pin-level simulation, `xtask/src/board_pins.rs`). On the send side
there are registers on the ready path (LiteX's `stream.Buffer` with
`pipe_ready`) between the last-byte handling, the padding inserter and the CRC
inserter. In `LiteEthMACCore` the ready signal runs
combinationally from the CRC inserter back through padding, last-byte
handling and width conversion into the clock-domain crossing's FIFO read; on
the Colorlight 5A-75B's LFE5U-25F (speed grade 6) that path limited the
125 MHz RGMII domain to 97-104 MHz (nextpnr, seeds 1 and 2, also with
`tx_cdc_buffered`). See docs/boards.md.

Ports of `liteeth_core` (system side, `sys_clk`/`sys_rst` domain):
  rx_valid, rx_ready, rx_first, rx_last, rx_data[W-1:0], rx_last_be[W/8-1:0],
  rx_error[W/8-1:0]: received frames without preamble and FCS; the MAC has no
  receive back-pressure (`rx_ready` must stay high or bytes are lost).
  tx_*: the same for frames to send (padded and given an FCS by the core).
  `last_be` is one-hot: the byte lane holding the frame's last byte.
  crc_errors[31:0], preamble_errors[31:0]: counts of frames dropped for a bad
  FCS or preamble.
RGMII side: rgmii_rx_clk, rgmii_rx_ctl, rgmii_rx_data[3:0], rgmii_tx_clk,
  rgmii_tx_ctl, rgmii_tx_data[3:0], rgmii_rst_n. MDIO is not driven (the PHYs of
  both boards come up advertising gigabit from their straps).

Parameters: the "liteeth" entry of fpga/boards/BOARD/board.json (data width,
RGMII delays, send-side buffering, the receive side's registered FCS compare
and ready register) and its "device".
Usage: liteeth_core.py --board BOARD --out FILE.v

LiteEth, LiteX and Migen are BSD-2-Clause (notices: fpga/liteeth/NOTICE); the
generated file is prefixed with them.
"""

import argparse
import json
import os

from migen import ClockDomain, ClockDomainsRenamer, If, Replicate, Signal
from migen.genlib.cdc import PulseSynchronizer
from litex.gen import LiteXModule
from litex.build.generic_platform import Pins, Subsignal
from litex.build.lattice import LatticePlatform
from litex.soc.interconnect import stream
from litex.soc.interconnect.stream import BufferizeEndpoints, DIR_SINK

from liteeth.common import eth_fcs_length, eth_min_frame_length, eth_phy_description
from liteeth.mac import crc, gap, last_be, padding, preamble
from liteeth.phy.ecp5rgmii import LiteEthPHYRGMII

HERE = os.path.dirname(os.path.abspath(__file__))

# Pads only name the ports here; pins come from constraints/<board>.lpf.
_IO = [
    ("rgmii_clocks", 0, Subsignal("rx", Pins(1)), Subsignal("tx", Pins(1))),
    ("rgmii", 0,
        Subsignal("rst_n", Pins(1)),
        Subsignal("rx_ctl", Pins(1)),
        Subsignal("rx_data", Pins(4)),
        Subsignal("tx_ctl", Pins(1)),
        Subsignal("tx_data", Pins(4)),
    ),
]


class RegisteredCRC32Checker(LiteXModule):
    """LiteEth's CRC checker (`crc.LiteEthMACCRC32Checker`, for an 8-bit
    datapath) with its FCS compare moved a beat later: the checker's own
    compare takes the CRC of the frame's last byte and compares it in the
    same cycle (about nine LUTs deep), which the LFE5U-25F (speed grade 6) does
    not close at 125 MHz. Here a second CRC register follows the same beats;
    at a frame's last beat it keeps the CRC after that byte, and the
    checker's output, one register stage later, takes its `error` from
    comparing that register with the residue. The checker's own compare then
    drives nothing and synthesis drops it (with the checker's CRC register,
    which fed only that compare). Same endpoints as the checker, the beats a
    cycle later; the `error` pulse is registered, a cycle after the last
    beat leaves."""

    def __init__(self, description):
        self.sink = sink = stream.Endpoint(description)
        self.source = source = stream.Endpoint(description)
        self.error = Signal()
        assert len(sink.data) == 8
        self.checker = checker = crc.LiteEthMACCRC32Checker(description)
        self.buf = buf = stream.Buffer(description, pipe_valid=True)
        self.engine = engine = crc.LiteEthMACCRCEngine(8, 32, crc.LiteEthMACCRC32.polynom)
        running = Signal(32, reset=crc.LiteEthMACCRC32.init)
        final = Signal(32)
        bad = Signal()
        self.comb += [
            sink.connect(checker.sink),
            checker.source.connect(buf.sink, omit={"error"}),
            engine.data.eq(sink.data),
            engine.crc_prev.eq(running),
            buf.source.connect(source, omit={"error"}),
            bad.eq(final != crc.LiteEthMACCRC32.check),
            # As the checker's output: the error bits of the beat entering it
            # (not of the beat leaving it), and on the last beat the FCS
            # verdict, here from `final`, a cycle later with the beat.
            buf.sink.error.eq(sink.error),
            source.error.eq(buf.source.error | Replicate(buf.source.last & bad, len(sink.error))),
        ]
        self.sync += [
            If(sink.valid & sink.ready,
                If(sink.last,
                    running.eq(crc.LiteEthMACCRC32.init),
                    final.eq(engine.crc_next),
                ).Else(
                    running.eq(engine.crc_next),
                ),
            ),
            self.error.eq(buf.source.valid & buf.source.ready & buf.source.last & bad),
        ]


class MACCore(LiteXModule):
    """LiteEthMACCore's stages (datapath in the PHY's domains), `dw` bits on the
    system side, with `ready_buffers` (bool) registers on the send side's ready
    path. Endpoints `sink` (to send) and `source` (received); `crc_errors` and
    `preamble_errors` count dropped frames (system domain)."""

    def __init__(self, phy, dw, ready_buffers, tx_cdc_depth=32, rx_cdc_depth=32, registered_crc=False,
                 rx_ready_buffer=False):
        self.sink = stream.Endpoint(eth_phy_description(dw))
        self.source = stream.Endpoint(eth_phy_description(dw))
        pdw = phy.dw

        def tx(m):
            return ClockDomainsRenamer("eth_tx")(m)

        def rx(m):
            return ClockDomainsRenamer("eth_rx")(m)

        def ready_buffer(width):
            return tx(stream.Buffer(eth_phy_description(width), pipe_valid=True, pipe_ready=True))

        # Send: CDC, width conversion, last byte, padding, CRC, preamble, gap.
        n = 1 if ready_buffers else 0
        tx_stages = [
            stream.ClockDomainCrossing(eth_phy_description(dw), cd_from="sys", cd_to="eth_tx", depth=tx_cdc_depth),
            *[ready_buffer(dw) for _ in range(n)],
            tx(stream.StrideConverter(eth_phy_description(dw), eth_phy_description(pdw))),
            tx(last_be.LiteEthMACTXLastBE(pdw)),
            *[ready_buffer(pdw) for _ in range(n)],
            tx(padding.LiteEthMACPaddingInserter(pdw, eth_min_frame_length - eth_fcs_length)),
            *[ready_buffer(pdw) for _ in range(n)],
            tx(BufferizeEndpoints({"sink": DIR_SINK})(crc.LiteEthMACCRC32Inserter(eth_phy_description(pdw)))),
            tx(preamble.LiteEthMACPreambleInserter(pdw)),
            tx(gap.LiteEthMACGap(pdw)),
        ]
        self.submodules += tx_stages
        self.submodules += stream.Pipeline(self.sink, *tx_stages, phy)

        # Receive: last byte, preamble and CRC checks, padding, width, CDC.
        # The last-byte stage comes first: the 8-bit PHY drives only `last`,
        # and the CRC checker raises its error only on a beat with `last_be`
        # set (LiteEthMACCRC32: `If(self.be[n], ... self.error.eq(...))`),
        # so behind it, as in LiteEthMACCore, no bad FCS is ever flagged.
        rx_preamble = rx(preamble.LiteEthMACPreambleChecker(pdw))
        checker = RegisteredCRC32Checker if registered_crc else crc.LiteEthMACCRC32Checker
        rx_crc = rx(BufferizeEndpoints({"sink": DIR_SINK})(checker(eth_phy_description(pdw))))
        # With `registered_crc`, the CRC checker's FCS compare is made a beat
        # later (`RegisteredCRC32Checker`): in LiteEth's checker the CRC of a
        # frame's last byte and its compare with the residue are one path of
        # about nine LUTs in the 125 MHz domain (8.6 ns on the LFE5U-25F,
        # speed grade 6). With `rx_ready_buffer`, a register on the ready
        # path after the checker (`stream.Buffer` with `pipe_ready`): the
        # ready signal otherwise runs from the clock-domain crossing's FIFO
        # back through the width converter and the padding checker into the
        # CRC checker's FIFO (8.1 ns). The receive side has no
        # back-pressure, so neither changes more than the latency.
        ready_buffer_rx = [rx(stream.Buffer(eth_phy_description(pdw), pipe_ready=True))] if rx_ready_buffer else []

        rx_stages = [
            rx(last_be.LiteEthMACRXLastBE(pdw)),
            rx_preamble,
            rx_crc,
            *ready_buffer_rx,
            rx(padding.LiteEthMACPaddingChecker(pdw, eth_min_frame_length - eth_fcs_length)),
            rx(stream.StrideConverter(eth_phy_description(pdw), eth_phy_description(dw))),
            stream.ClockDomainCrossing(eth_phy_description(dw), cd_from="eth_rx", cd_to="sys", depth=rx_cdc_depth),
        ]
        self.submodules += rx_stages
        self.submodules += stream.Pipeline(phy, *rx_stages, self.source)

        self.crc_errors = Signal(32)
        self.preamble_errors = Signal(32)
        # The checkers' error pulses are registered in their domain before
        # they cross (LiteEth's FCS compare is a long path of its own; the
        # registered checker's pulse is already a register's, so this one
        # only delays it).
        for count, error in ((self.preamble_errors, rx_preamble.error), (self.crc_errors, rx_crc.error)):
            ps = PulseSynchronizer("eth_rx", "sys")
            self.submodules += ps
            pulse = Signal()
            self.sync.eth_rx += pulse.eq(error)
            self.comb += ps.i.eq(pulse)
            self.sync += If(ps.o, count.eq(count + 1))


class Core(LiteXModule):
    def __init__(self, platform, p):
        self.cd_sys = ClockDomain()
        self.phy = LiteEthPHYRGMII(
            clock_pads=platform.request("rgmii_clocks"),
            pads=platform.request("rgmii"),
            tx_delay=p["tx_delay_ns"] * 1e-9,
            rx_delay=p["rx_delay_ns"] * 1e-9,
            with_hw_init_reset=True,
        )
        self.mac = MACCore(
            self.phy,
            p["data_width"],
            p["tx_ready_buffers"],
            tx_cdc_depth=p["tx_cdc_depth"],
            registered_crc=p.get("registered_crc", False),
            rx_ready_buffer=p.get("rx_ready_buffer", False),
        )
        self.ports = {self.cd_sys.clk, self.cd_sys.rst}
        for name, ep in (("rx", self.mac.source), ("tx", self.mac.sink)):
            for field in ("valid", "ready", "first", "last", "data", "last_be", "error"):
                sig = getattr(ep, field)
                sig.name_override = f"{name}_{field}"
                self.ports.add(sig)
        for name in ("crc_errors", "preamble_errors"):
            sig = getattr(self.mac, name)
            sig.name_override = name
            self.ports.add(sig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(os.path.join(HERE, "..", "boards", args.board, "board.json")) as f:
        board = json.load(f)
    p = board["liteeth"]
    platform = LatticePlatform(board["device"], _IO, toolchain="trellis")
    core = Core(platform, p)
    ports = core.ports | platform.constraint_manager.get_io_signals()
    verilog = str(platform.get_verilog(core, ios=ports, name="liteeth_core"))
    with open(os.path.join(HERE, "NOTICE")) as f:
        notice = "".join("// " + line if line.strip() else "//\n" for line in f)
    with open(args.out, "w") as f:
        f.write(notice + "\n" + verilog)


if __name__ == "__main__":
    main()
