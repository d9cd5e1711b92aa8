#!/usr/bin/env python3
"""LiteEth's ECP5 RGMII PHY and MAC core as one Verilog module, `liteeth_core`.

`liteeth_gen` (LiteEth 2024.12) has no raw-frame core: this script builds the
PHY (`LiteEthPHYRGMII`, ECP5 DDR I/O) and `LiteEthMACCore` (preamble, CRC,
padding, inter-frame gap, clock-domain crossing to the system clock, width
conversion) and emits them as one module. The board top (rust-hdl,
`hdl/src/board/`) instantiates it.

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

Parameters: fpga/liteeth/params.json, one entry per board (data width, system
clock, RGMII delays). Usage: liteeth_core.py --board NAME --out FILE.v

LiteEth, LiteX and Migen are BSD-2-Clause (notices: fpga/liteeth/NOTICE); the
generated file is prefixed with them.
"""

import argparse
import json
import os

from migen import ClockDomain, Signal
from litex.gen import LiteXModule
from litex.build.generic_platform import Pins, Subsignal
from litex.build.lattice import LatticePlatform

from liteeth.phy.ecp5rgmii import LiteEthPHYRGMII
from liteeth.mac.core import LiteEthMACCore

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
        self.mac = LiteEthMACCore(phy=self.phy, dw=p["data_width"], with_sys_datapath=False)
        self.ports = {self.cd_sys.clk, self.cd_sys.rst}
        for name, ep in (("rx", self.mac.source), ("tx", self.mac.sink)):
            for field in ("valid", "ready", "first", "last", "data", "last_be", "error"):
                sig = getattr(ep, field)
                sig.name_override = f"{name}_{field}"
                self.ports.add(sig)
        for name in ("crc_errors", "preamble_errors"):
            sig = getattr(self.mac.rx_datapath, name).status
            sig.name_override = name
            self.ports.add(sig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(os.path.join(HERE, "params.json")) as f:
        p = json.load(f)[args.board]
    platform = LatticePlatform(p["device"], _IO, toolchain="trellis")
    core = Core(platform, p)
    ports = core.ports | platform.constraint_manager.get_io_signals()
    verilog = str(platform.get_verilog(core, ios=ports, name="liteeth_core"))
    with open(os.path.join(HERE, "NOTICE")) as f:
        notice = "".join("// " + line if line.strip() else "//\n" for line in f)
    with open(args.out, "w") as f:
        f.write(notice + "\n" + verilog)


if __name__ == "__main__":
    main()
