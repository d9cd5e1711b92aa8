//! `mac_tap`: ferroce's frames out of one port's receive stream into the
//! engine, the engine's frames into the port's send stream; everything
//! else passes through, so the NIC keeps working as a NIC.
//!
//! Corundum's synchronous per-port taps (`s_axis_sync_rx_*` ->
//! `m_axis_sync_rx_*`, `s_axis_sync_tx_*` -> `m_axis_sync_tx_*`) run on the
//! core clock, 64 bits wide at 10G and 25G, byte 0 in bits 7:0. Receive
//! sits behind the port's receive FIFO, which drops whole frames when it is
//! full, so this block may hold `tready` low.
//!
//! Receive: the first [`HEAD_BEATS`] beats of each frame are held; the frame
//! goes to the engine when it is IPv4 without options (EtherType 0x0800,
//! byte 14 = 0x45), UDP (protocol 17) and its UDP destination port is
//! `cfg_port` (bytes 36-37, as the engine's `control.udp_port`); otherwise,
//! or when it is shorter than the held beats, to the NIC, with its `tuser`
//! (bit 0: bad frame; above it Corundum's timestamp) unchanged. The engine
//! gets `tuser` bit 0 on the last beat. Frames leave in the order they came
//! on each side. Cost: one cycle to decide per frame.
//!
//! Send: whole frames from the NIC (`s_tx_*`) and the engine (`s_eng_*`)
//! alternate when both wait; the choice is made when a frame's first beat is
//! offered and held until its last beat has gone. The engine's frames carry `tuser` 0: tag 0
//! has the top bit clear, and Corundum's `tx_engine` only takes transmit
//! completions whose tag has the top bit set (`tx_engine.v`, "if
//! (s_axis_tx_cpl_valid && s_axis_tx_cpl_tag[TX_TAG_WIDTH-1])", Corundum
//! commit 1ca0151b), so the completions the MAC returns for them are
//! passed on and ignored.
//!
//! Ports: `clock`, `reset` (synchronous, active high); `eng_rx_frames`,
//! `eng_tx_frames` count the frames that went to and came from the engine.

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

/// Beats held before deciding (the UDP destination port is in beat 4).
pub const HEAD_BEATS: usize = 5;
/// Receive `tuser` width: Corundum's 96-bit timestamp and the bad-frame bit
/// (narrower `tuser`s are zero-extended by the shim).
pub const RX_USER_BITS: usize = 97;
/// Send `tuser` width: a 16-bit tag and the bad-frame bit.
pub const TX_USER_BITS: usize = 17;

const STATE_BITS: usize = 2;
const S_COLLECT: usize = 0;
const S_DECIDE: usize = 1;
const S_DRAIN: usize = 2;
const S_PASS: usize = 3;

/// Two bytes in wire order as a 16-bit field.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Swapped {
    pub lo: Bits<8>,
    pub hi: Bits<8>,
}

/// The tap.
#[allow(non_snake_case)] // state constants named as the `match` labels
#[derive(LogicBlock, HdlDefault)]
pub struct MacTap {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg_port: Signal<In, Bits<16>>,
    pub s_rx_tdata: Signal<In, Bits<64>>,
    pub s_rx_tkeep: Signal<In, Bits<8>>,
    pub s_rx_tvalid: Signal<In, bool>,
    pub s_rx_tready: Signal<Out, bool>,
    pub s_rx_tlast: Signal<In, bool>,
    pub s_rx_tuser: Signal<In, Bits<RX_USER_BITS>>,
    pub m_rx_tdata: Signal<Out, Bits<64>>,
    pub m_rx_tkeep: Signal<Out, Bits<8>>,
    pub m_rx_tvalid: Signal<Out, bool>,
    pub m_rx_tready: Signal<In, bool>,
    pub m_rx_tlast: Signal<Out, bool>,
    pub m_rx_tuser: Signal<Out, Bits<RX_USER_BITS>>,
    pub m_eng_tdata: Signal<Out, Bits<64>>,
    pub m_eng_tkeep: Signal<Out, Bits<8>>,
    pub m_eng_tvalid: Signal<Out, bool>,
    pub m_eng_tready: Signal<In, bool>,
    pub m_eng_tlast: Signal<Out, bool>,
    pub m_eng_tuser: Signal<Out, bool>,
    pub s_eng_tdata: Signal<In, Bits<64>>,
    pub s_eng_tkeep: Signal<In, Bits<8>>,
    pub s_eng_tvalid: Signal<In, bool>,
    pub s_eng_tready: Signal<Out, bool>,
    pub s_eng_tlast: Signal<In, bool>,
    pub s_tx_tdata: Signal<In, Bits<64>>,
    pub s_tx_tkeep: Signal<In, Bits<8>>,
    pub s_tx_tvalid: Signal<In, bool>,
    pub s_tx_tready: Signal<Out, bool>,
    pub s_tx_tlast: Signal<In, bool>,
    pub s_tx_tuser: Signal<In, Bits<TX_USER_BITS>>,
    pub m_tx_tdata: Signal<Out, Bits<64>>,
    pub m_tx_tkeep: Signal<Out, Bits<8>>,
    pub m_tx_tvalid: Signal<Out, bool>,
    pub m_tx_tready: Signal<In, bool>,
    pub m_tx_tlast: Signal<Out, bool>,
    pub m_tx_tuser: Signal<Out, Bits<TX_USER_BITS>>,
    pub eng_rx_frames: Signal<Out, Bits<32>>,
    pub eng_tx_frames: Signal<Out, Bits<32>>,

    // Receive.
    state: DFF<Bits<STATE_BITS>>,
    held_data: [DFF<Bits<64>>; HEAD_BEATS],
    held_keep: [DFF<Bits<8>>; HEAD_BEATS],
    held_last: [DFF<bool>; HEAD_BEATS],
    held_user: [DFF<Bits<RX_USER_BITS>>; HEAD_BEATS],
    /// Beats held, and the next one to send.
    held: DFF<Bits<3>>,
    sent: DFF<Bits<3>>,
    to_engine: DFF<bool>,
    rx_frames: DFF<Bits<32>>,
    // Send.
    tx_busy: DFF<bool>,
    tx_engine: DFF<bool>,
    /// The last frame sent was the engine's (alternate when both wait).
    tx_last_engine: DFF<bool>,
    tx_frames: DFF<Bits<32>>,

    out_data: Signal<Local, Bits<64>>,
    out_keep: Signal<Local, Bits<8>>,
    out_valid: Signal<Local, bool>,
    out_last: Signal<Local, bool>,
    out_user: Signal<Local, Bits<RX_USER_BITS>>,
    out_ready: Signal<Local, bool>,
    take_in: Signal<Local, bool>,
    ethertype: Signal<Local, Bits<16>>,
    version_ihl: Signal<Local, Bits<8>>,
    protocol: Signal<Local, Bits<8>>,
    dport: Signal<Local, Bits<16>>,
    port_parts: Signal<Local, Swapped>,
    port_wire: Signal<Local, Bits<16>>,
    is_ferroce: Signal<Local, bool>,
    pick_engine: Signal<Local, bool>,
    use_engine: Signal<Local, bool>,
    tx_fire: Signal<Local, bool>,

    #[constants(|i| i as u64)]
    index: [Constant<Bits<3>>; HEAD_BEATS],
    #[constant(S_COLLECT as u64)]
    S_COLLECT: Constant<Bits<STATE_BITS>>,
    #[constant(S_DECIDE as u64)]
    S_DECIDE: Constant<Bits<STATE_BITS>>,
    #[constant(S_DRAIN as u64)]
    S_DRAIN: Constant<Bits<STATE_BITS>>,
    #[constant(S_PASS as u64)]
    S_PASS: Constant<Bits<STATE_BITS>>,
    #[constant(HEAD_BEATS as u64)]
    head_beats: Constant<Bits<3>>,
    #[constant(1u64)]
    one3: Constant<Bits<3>>,
    #[constant(0u64)]
    zero3: Constant<Bits<3>>,
    #[constant(0x0008u64)]
    ipv4_wire: Constant<Bits<16>>,
    #[constant(0x45u64)]
    ipv4_no_options: Constant<Bits<8>>,
    #[constant(17u64)]
    udp: Constant<Bits<8>>,
    #[constant(0u64)]
    zero_tx_user: Constant<Bits<TX_USER_BITS>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
}

impl Logic for MacTap {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, held, sent, to_engine, rx_frames, tx_busy, tx_engine, tx_last_engine, tx_frames);
        for i in 0..HEAD_BEATS {
            self.held_data[i].clock.next = self.clock.val();
            self.held_keep[i].clock.next = self.clock.val();
            self.held_last[i].clock.next = self.clock.val();
            self.held_user[i].clock.next = self.clock.val();
            self.held_data[i].d.next = self.held_data[i].q.val();
            self.held_keep[i].d.next = self.held_keep[i].q.val();
            self.held_last[i].d.next = self.held_last[i].q.val();
            self.held_user[i].d.next = self.held_user[i].q.val();
        }

        // The held head's fields (wire order: byte 0 in bits 7:0).
        self.ethertype.next = self.held_data[1].q.val().get_bits::<16>(32);
        self.version_ihl.next = self.held_data[1].q.val().get_bits::<8>(48);
        self.protocol.next = self.held_data[2].q.val().get_bits::<8>(56);
        self.dport.next = self.held_data[4].q.val().get_bits::<16>(32);
        self.port_parts.next.lo = self.cfg_port.val().get_bits::<8>(8);
        self.port_parts.next.hi = self.cfg_port.val().get_bits::<8>(0);
        self.port_wire.next = self.port_parts.val().into();
        self.is_ferroce.next = (self.held.q.val() == self.head_beats.val())
            & (self.ethertype.val() == self.ipv4_wire.val())
            & (self.version_ihl.val() == self.ipv4_no_options.val())
            & (self.protocol.val() == self.udp.val())
            & (self.dport.val() == self.port_wire.val());

        // The beat going out: a held one, or the input's once the head has gone.
        self.out_data.next = self.s_rx_tdata.val();
        self.out_keep.next = self.s_rx_tkeep.val();
        self.out_last.next = self.s_rx_tlast.val();
        self.out_user.next = self.s_rx_tuser.val();
        self.out_valid.next = false;
        if self.state.q.val() == self.S_PASS.val() {
            self.out_valid.next = self.s_rx_tvalid.val();
        }
        if self.state.q.val() == self.S_DRAIN.val() {
            self.out_valid.next = true;
            for i in 0..HEAD_BEATS {
                if self.sent.q.val() == self.index[i].val() {
                    self.out_data.next = self.held_data[i].q.val();
                    self.out_keep.next = self.held_keep[i].q.val();
                    self.out_last.next = self.held_last[i].q.val();
                    self.out_user.next = self.held_user[i].q.val();
                }
            }
        }
        self.m_rx_tdata.next = self.out_data.val();
        self.m_rx_tkeep.next = self.out_keep.val();
        self.m_rx_tlast.next = self.out_last.val();
        self.m_rx_tuser.next = self.out_user.val();
        self.m_rx_tvalid.next = self.out_valid.val() & !self.to_engine.q.val();
        self.m_eng_tdata.next = self.out_data.val();
        self.m_eng_tkeep.next = self.out_keep.val();
        self.m_eng_tlast.next = self.out_last.val();
        self.m_eng_tuser.next = self.out_last.val() & self.out_user.val().get_bit(0);
        self.m_eng_tvalid.next = self.out_valid.val() & self.to_engine.q.val();
        if self.to_engine.q.val() {
            self.out_ready.next = self.m_eng_tready.val();
        } else {
            self.out_ready.next = self.m_rx_tready.val();
        }

        self.s_rx_tready.next = false;
        if self.state.q.val() == self.S_COLLECT.val() {
            self.s_rx_tready.next = true;
        }
        if self.state.q.val() == self.S_PASS.val() {
            self.s_rx_tready.next = self.out_ready.val();
        }
        self.take_in.next = self.s_rx_tvalid.val() & self.s_rx_tready.val();

        match self.state.q.val().index() {
            S_COLLECT => {
                if self.take_in.val() {
                    for i in 0..HEAD_BEATS {
                        if self.held.q.val() == self.index[i].val() {
                            self.held_data[i].d.next = self.s_rx_tdata.val();
                            self.held_keep[i].d.next = self.s_rx_tkeep.val();
                            self.held_last[i].d.next = self.s_rx_tlast.val();
                            self.held_user[i].d.next = self.s_rx_tuser.val();
                        }
                    }
                    self.held.d.next = self.held.q.val() + self.one3.val();
                    if self.s_rx_tlast.val() | (self.held.q.val() + self.one3.val() == self.head_beats.val()) {
                        self.state.d.next = self.S_DECIDE.val();
                    }
                }
            }
            S_DECIDE => {
                self.to_engine.d.next = self.is_ferroce.val();
                self.sent.d.next = self.zero3.val();
                self.state.d.next = self.S_DRAIN.val();
            }
            S_DRAIN => {
                if self.out_ready.val() {
                    self.sent.d.next = self.sent.q.val() + self.one3.val();
                    if self.out_last.val() {
                        self.held.d.next = self.zero3.val();
                        self.state.d.next = self.S_COLLECT.val();
                        if self.to_engine.q.val() {
                            self.rx_frames.d.next = self.rx_frames.q.val() + self.one32.val();
                        }
                    } else if self.sent.q.val() + self.one3.val() == self.held.q.val() {
                        self.state.d.next = self.S_PASS.val();
                    }
                }
            }
            _ => {
                if self.take_in.val() & self.s_rx_tlast.val() {
                    self.held.d.next = self.zero3.val();
                    self.state.d.next = self.S_COLLECT.val();
                    if self.to_engine.q.val() {
                        self.rx_frames.d.next = self.rx_frames.q.val() + self.one32.val();
                    }
                }
            }
        }
        self.eng_rx_frames.next = self.rx_frames.q.val();

        // Send: whole frames, alternating when both wait.
        self.pick_engine.next = self.s_eng_tvalid.val() & (!self.s_tx_tvalid.val() | !self.tx_last_engine.q.val());
        if self.tx_busy.q.val() {
            self.use_engine.next = self.tx_engine.q.val();
        } else {
            self.use_engine.next = self.pick_engine.val();
        }
        if self.use_engine.val() {
            self.m_tx_tdata.next = self.s_eng_tdata.val();
            self.m_tx_tkeep.next = self.s_eng_tkeep.val();
            self.m_tx_tvalid.next = self.s_eng_tvalid.val();
            self.m_tx_tlast.next = self.s_eng_tlast.val();
            self.m_tx_tuser.next = self.zero_tx_user.val();
        } else {
            self.m_tx_tdata.next = self.s_tx_tdata.val();
            self.m_tx_tkeep.next = self.s_tx_tkeep.val();
            self.m_tx_tvalid.next = self.s_tx_tvalid.val();
            self.m_tx_tlast.next = self.s_tx_tlast.val();
            self.m_tx_tuser.next = self.s_tx_tuser.val();
        }
        self.s_eng_tready.next = self.use_engine.val() & self.m_tx_tready.val();
        self.s_tx_tready.next = !self.use_engine.val() & self.m_tx_tready.val();
        self.tx_fire.next = self.m_tx_tvalid.val() & self.m_tx_tready.val();
        // The source is chosen with a frame's first beat offered and kept until
        // its last beat is taken, so an offered beat never changes.
        if self.m_tx_tvalid.val() {
            self.tx_busy.d.next = true;
            self.tx_engine.d.next = self.use_engine.val();
        }
        if self.tx_fire.val() & self.m_tx_tlast.val() {
            self.tx_busy.d.next = false;
            self.tx_last_engine.d.next = self.use_engine.val();
            if self.use_engine.val() {
                self.tx_frames.d.next = self.tx_frames.q.val() + self.one32.val();
            }
        }
        self.eng_tx_frames.next = self.tx_frames.q.val();

        if self.reset.val() {
            self.state.d.next = self.S_COLLECT.val();
            self.held.d.next = self.zero3.val();
            self.sent.d.next = self.zero3.val();
            self.to_engine.d.next = false;
            self.rx_frames.d.next = self.zero32.val();
            self.tx_busy.d.next = false;
            self.tx_engine.d.next = false;
            self.tx_last_engine.d.next = false;
            self.tx_frames.d.next = self.zero32.val();
        }
    }
}
