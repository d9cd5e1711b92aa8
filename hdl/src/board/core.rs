//! The system-clock side of a board top: the host bridge (UART, UARTBone,
//! AXI-Lite), the board memory, the frame stores and the MAC adaptation
//! around an engine. [`board_core!`](crate::board_core) builds it for an
//! engine type (anything with `ferroce_engine`'s ports: the engine's
//! presets, or [`StandIn`](super::stand_in::StandIn)); [`BoardCore`] is the
//! one with the stand-in.
//!
//! Bridge address map (byte addresses, as the host's UARTBone client
//! sees them; UARTBone carries them divided by 4):
//! * `0x0000_0000`: the engine's registers (AXI-Lite, [`ADDR_BITS`] bits);
//! * [`RAM_BASE`]: the board memory (the engine reaches the same memory by
//!   DMA at address 0 up; addresses wrap at its size);
//! * [`STATUS_BASE`]: board counters, read only: + 0 frames the receive
//!   store dropped, + 4 AXI-Lite accesses answered with an error, + 8
//!   frames the MAC dropped for a bad FCS, + 12 bytes of board memory,
//!   + 16 Etherbone requests dropped.
//!
//! Two bridges share the bus, a request at a time: UARTBone on the UART
//! (left out by `without_uart`, as on the Colorlight 5A-75B) and Etherbone
//! on the Ethernet port ([`etherbone`](super::etherbone), which watches
//! the received frames beside the receive store and puts its answers, a
//! whole frame at a time, into the send store with the engine's frames).
//!
//! (The map is `ferroce_proto::board`'s, shared with the driver.)
//!
//! Ports (`clock`; `reset` synchronous, active high): `uart_rx`, `uart_tx`;
//! `mac_rx_*` (LiteEth's source: `valid`, `ready`, `last`, `data`,
//! `last_be`, `error`) and `mac_tx_*` (LiteEth's sink, with `first`);
//! `mac_crc_errors` (LiteEth's count).
//!
//! The board top (`$top` of [`board_core!`](crate::board_core)) puts the
//! PLL, the reset and the LiteEth core around it: ports `clk_in` (the
//! board's oscillator), `uart_rx`, `uart_tx` and the RGMII pins
//! (`rgmii_clocks_rx`, `rgmii_clocks_tx`, `rgmii_rst_n`, `rgmii_rx_ctl`,
//! `rgmii_rx_data`, `rgmii_tx_ctl`, `rgmii_tx_data`), named as in
//! `constraints/*.lpf`. Reset is held until the PLL has been locked for
//! 255 cycles.
//!
//! [`ADDR_BITS`]: crate::csr::ADDR_BITS

use rust_hdl::prelude::*;

pub use ferroce_proto::board::{
    RAM_BASE, STATUS_AXIL_ERRORS, STATUS_BASE, STATUS_CRC_ERRORS, STATUS_EB_DROPPED, STATUS_RAM_BYTES,
    STATUS_RX_DROPPED,
};

/// Defines `$name<W, A, P>`: the board core around engine type `$engine`,
/// with 2^W words of board memory and frame stores of 2^A beats (P = A + 1),
/// and `$top<W, A, P>`, the board top around it. Invoke it where
/// `rust_hdl::prelude::*` is in scope.
#[macro_export]
macro_rules! board_core {
    ($(#[$doc:meta])* $name:ident, $top:ident, $engine:ty) => {
        $(#[$doc])*
        #[derive(LogicBlock, $crate::blocks::HdlDefault)]
        pub struct $name<const W: usize, const A: usize, const P: usize> {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, bool>,
            pub uart_rx: Signal<In, bool>,
            pub uart_tx: Signal<Out, bool>,
            pub mac_rx_valid: Signal<In, bool>,
            pub mac_rx_ready: Signal<Out, bool>,
            pub mac_rx_last: Signal<In, bool>,
            pub mac_rx_data: Signal<In, Bits<64>>,
            pub mac_rx_last_be: Signal<In, Bits<8>>,
            pub mac_rx_error: Signal<In, Bits<8>>,
            pub mac_tx_valid: Signal<Out, bool>,
            pub mac_tx_ready: Signal<In, bool>,
            pub mac_tx_first: Signal<Out, bool>,
            pub mac_tx_last: Signal<Out, bool>,
            pub mac_tx_data: Signal<Out, Bits<64>>,
            pub mac_tx_last_be: Signal<Out, Bits<8>>,
            pub mac_tx_error: Signal<Out, Bits<8>>,
            pub mac_crc_errors: Signal<In, Bits<32>>,

            urx: $crate::board::uart::UartRx,
            utx: $crate::board::uart::UartTx,
            bone: $crate::board::uartbone::UartBone,
            axil: $crate::board::axil_master::AxilMaster<{ $crate::csr::ADDR_BITS }>,
            ram: $crate::board::board_ram::BoardRam<W>,
            rx_store: $crate::board::frame_store::FrameStore<A, P>,
            tx_store: $crate::board::frame_store::FrameStore<A, P>,
            adapt: $crate::board::mac_adapt::MacAdapt,
            eb: $crate::board::etherbone::Etherbone,
            engine: $engine,

            st_ack: DFF<bool>,
            st_data: DFF<Bits<32>>,
            ram_sel: Signal<Local, bool>,
            st_sel: Signal<Local, bool>,
            st_word: Signal<Local, Bits<3>>,
            /// The bridges' bus: Etherbone's turn (else UARTBone's), held
            /// from a request until its answer.
            bus_eb: Signal<Local, bool>,
            /// UARTBone's request, when the UART is built.
            bone_valid: Signal<Local, bool>,
            /// The UART and UARTBone are built (a board without a UART to
            /// the host leaves them out: `without_uart`; synthesis then
            /// drops their logic, which nothing reads).
            #[constant(true)]
            uart_built: Constant<bool>,
            bus_lock: DFF<bool>,
            bus_was_eb: DFF<bool>,
            bus_valid: Signal<Local, bool>,
            bus_we: Signal<Local, bool>,
            bus_addr: Signal<Local, Bits<32>>,
            bus_wdata: Signal<Local, Bits<32>>,
            bus_ready: Signal<Local, bool>,
            bus_rdata: Signal<Local, Bits<32>>,
            /// Frames into the send store: Etherbone's answer (else the
            /// engine's), chosen per frame, taking turns when both wait.
            tx_eb: Signal<Local, bool>,
            tx_lock: DFF<bool>,
            tx_was_eb: DFF<bool>,
            tx_valid: Signal<Local, bool>,
            tx_last: Signal<Local, bool>,
            /// The board's addresses for Etherbone and ARP, wire order
            /// (`ferroce_proto::board::etherbone`).
            #[constant($crate::board::core::wire_order(&ferroce_proto::board::etherbone::BOARD_MAC))]
            board_mac: Constant<Bits<48>>,
            #[constant($crate::board::core::wire_order(&ferroce_proto::board::etherbone::BOARD_IP))]
            board_ip: Constant<Bits<32>>,
            /// Bytes of board memory.
            #[constant(8u64 << W)]
            ram_bytes: Constant<Bits<32>>,
            /// Outputs of the stores this core does not need: the receive
            /// store is always ready, the send store gets no `tuser` and
            /// never drops.
            unused_outputs: Signal<Local, bool>,
        }

        impl<const W: usize, const A: usize, const P: usize> $name<W, A, P> {
            /// A core whose UART runs at `bit_cycles` clock cycles per bit and
            /// whose bridge gives up a command paused for `timeout_cycles`.
            pub fn new(bit_cycles: u16, timeout_cycles: u32) -> Self {
                Self {
                    urx: $crate::board::uart::UartRx::new(bit_cycles),
                    utx: $crate::board::uart::UartTx::new(bit_cycles),
                    bone: $crate::board::uartbone::UartBone::new(timeout_cycles),
                    rx_store: $crate::board::frame_store::FrameStore::dropping(),
                    tx_store: $crate::board::frame_store::FrameStore::blocking(),
                    ..Default::default()
                }
            }

            /// The same core without the UART and UARTBone: Etherbone is
            /// its only bridge, `uart_tx` stays high and `uart_rx` is not
            /// read.
            pub fn without_uart(mut self) -> Self {
                self.uart_built = Constant::new(false);
                self
            }
        }

        impl<const W: usize, const A: usize, const P: usize> Logic for $name<W, A, P> {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, st_ack, st_data, bus_lock, bus_was_eb, tx_lock, tx_was_eb);
                self.urx.clock.next = self.clock.val();
                self.utx.clock.next = self.clock.val();
                self.bone.clock.next = self.clock.val();
                self.axil.clock.next = self.clock.val();
                self.ram.clock.next = self.clock.val();
                self.rx_store.clock.next = self.clock.val();
                self.tx_store.clock.next = self.clock.val();
                self.adapt.clock.next = self.clock.val();
                self.eb.clock.next = self.clock.val();
                self.engine.clock.next = self.clock.val();
                self.urx.reset.next = self.reset.val();
                self.utx.reset.next = self.reset.val();
                self.bone.reset.next = self.reset.val();
                self.axil.reset.next = self.reset.val();
                self.ram.reset.next = self.reset.val();
                self.rx_store.reset.next = self.reset.val();
                self.tx_store.reset.next = self.reset.val();
                self.adapt.reset.next = self.reset.val();
                self.eb.reset.next = self.reset.val();
                self.engine.reset.next = self.reset.val();

                // The host bridge: UART bytes to and from UARTBone.
                self.urx.rx.next = self.uart_rx.val();
                self.uart_tx.next = self.utx.tx.val() | !self.uart_built.val();
                self.bone.s_valid.next = self.urx.m_valid.val();
                self.bone.s_data.next = self.urx.m_data.val();
                self.urx.m_ready.next = self.bone.s_ready.val();
                self.utx.s_valid.next = self.bone.m_valid.val();
                self.utx.s_data.next = self.bone.m_data.val();
                self.bone.m_ready.next = self.utx.s_ready.val();

                // The bridges take turns on the bus, a request at a time.
                self.bone_valid.next = self.bone.bus_valid.val() & self.uart_built.val();
                if self.bus_lock.q.val() {
                    self.bus_eb.next = self.bus_was_eb.q.val();
                } else {
                    self.bus_eb.next = self.eb.bus_valid.val() & !self.bone_valid.val();
                }
                self.bus_valid.next = self.bone_valid.val();
                self.bus_we.next = self.bone.bus_we.val();
                self.bus_addr.next = self.bone.bus_addr.val();
                self.bus_wdata.next = self.bone.bus_wdata.val();
                // Without the UART, Etherbone's request is the bus's at all
                // times: nothing reads UARTBone's outputs, and synthesis
                // drops it (its address and data would otherwise reach the
                // bus's decoders while no request is made).
                if self.bus_eb.val() | !self.uart_built.val() {
                    self.bus_valid.next = self.eb.bus_valid.val();
                    self.bus_we.next = self.eb.bus_we.val();
                    self.bus_addr.next = self.eb.bus_addr.val();
                    self.bus_wdata.next = self.eb.bus_wdata.val();
                }

                // The bus: board memory, board counters, or engine registers.
                self.ram_sel.next = self.bus_addr.val().get_bit(26);
                self.st_sel.next = self.bus_addr.val().get_bit(27) & !self.ram_sel.val();
                self.ram.bus_valid.next = self.bus_valid.val() & self.ram_sel.val();
                self.ram.bus_we.next = self.bus_we.val();
                self.ram.bus_addr.next = self.bus_addr.val();
                self.ram.bus_wdata.next = self.bus_wdata.val();
                self.axil.bus_valid.next = self.bus_valid.val() & !self.ram_sel.val() & !self.st_sel.val();
                self.axil.bus_we.next = self.bus_we.val();
                self.axil.bus_addr.next = self.bus_addr.val();
                self.axil.bus_wdata.next = self.bus_wdata.val();
                self.st_ack.d.next = self.bus_valid.val() & self.st_sel.val() & !self.st_ack.q.val();
                self.st_word.next = self.bus_addr.val().get_bits::<3>(0);
                match self.st_word.val().index() {
                    0 => self.st_data.d.next = self.rx_store.dropped.val(),
                    1 => self.st_data.d.next = self.axil.errors.val(),
                    2 => self.st_data.d.next = self.mac_crc_errors.val(),
                    3 => self.st_data.d.next = self.ram_bytes.val(),
                    _ => self.st_data.d.next = self.eb.dropped.val(),
                }
                if self.ram_sel.val() {
                    self.bus_ready.next = self.ram.bus_ready.val();
                    self.bus_rdata.next = self.ram.bus_rdata.val();
                } else if self.st_sel.val() {
                    self.bus_ready.next = self.st_ack.q.val();
                    self.bus_rdata.next = self.st_data.q.val();
                } else {
                    self.bus_ready.next = self.axil.bus_ready.val();
                    self.bus_rdata.next = self.axil.bus_rdata.val();
                }
                self.bone.bus_ready.next = self.bus_ready.val() & !self.bus_eb.val();
                self.bone.bus_rdata.next = self.bus_rdata.val();
                self.eb.bus_ready.next = self.bus_ready.val() & self.bus_eb.val();
                self.eb.bus_rdata.next = self.bus_rdata.val();
                self.bus_lock.d.next = self.bus_valid.val() & !self.bus_ready.val();
                self.bus_was_eb.d.next = self.bus_eb.val();

                // Engine registers.
                self.engine.s_axil_awaddr.next = self.axil.m_axil_awaddr.val();
                self.engine.s_axil_awvalid.next = self.axil.m_axil_awvalid.val();
                self.axil.m_axil_awready.next = self.engine.s_axil_awready.val();
                self.engine.s_axil_wdata.next = self.axil.m_axil_wdata.val();
                self.engine.s_axil_wstrb.next = self.axil.m_axil_wstrb.val();
                self.engine.s_axil_wvalid.next = self.axil.m_axil_wvalid.val();
                self.axil.m_axil_wready.next = self.engine.s_axil_wready.val();
                self.axil.m_axil_bresp.next = self.engine.s_axil_bresp.val();
                self.axil.m_axil_bvalid.next = self.engine.s_axil_bvalid.val();
                self.engine.s_axil_bready.next = self.axil.m_axil_bready.val();
                self.engine.s_axil_araddr.next = self.axil.m_axil_araddr.val();
                self.engine.s_axil_arvalid.next = self.axil.m_axil_arvalid.val();
                self.axil.m_axil_arready.next = self.engine.s_axil_arready.val();
                self.axil.m_axil_rdata.next = self.engine.s_axil_rdata.val();
                self.axil.m_axil_rresp.next = self.engine.s_axil_rresp.val();
                self.axil.m_axil_rvalid.next = self.engine.s_axil_rvalid.val();
                self.engine.s_axil_rready.next = self.axil.m_axil_rready.val();

                // MAC receive: adaptation, the dropping store, the engine.
                self.adapt.mac_rx_valid.next = self.mac_rx_valid.val();
                self.mac_rx_ready.next = self.adapt.mac_rx_ready.val();
                self.adapt.mac_rx_last.next = self.mac_rx_last.val();
                self.adapt.mac_rx_data.next = self.mac_rx_data.val();
                self.adapt.mac_rx_last_be.next = self.mac_rx_last_be.val();
                self.adapt.mac_rx_error.next = self.mac_rx_error.val();
                self.rx_store.s_axis_tdata.next = self.adapt.m_rx_axis_tdata.val();
                self.rx_store.s_axis_tkeep.next = self.adapt.m_rx_axis_tkeep.val();
                self.rx_store.s_axis_tvalid.next = self.adapt.m_rx_axis_tvalid.val();
                self.rx_store.s_axis_tlast.next = self.adapt.m_rx_axis_tlast.val();
                self.rx_store.s_axis_tuser.next = self.adapt.m_rx_axis_tuser.val();
                // Etherbone watches the same beats (it never holds them).
                self.eb.mac.next = self.board_mac.val();
                self.eb.ip.next = self.board_ip.val();
                self.eb.rx_tdata.next = self.adapt.m_rx_axis_tdata.val();
                self.eb.rx_tkeep.next = self.adapt.m_rx_axis_tkeep.val();
                self.eb.rx_tvalid.next = self.adapt.m_rx_axis_tvalid.val();
                self.eb.rx_tlast.next = self.adapt.m_rx_axis_tlast.val();
                self.eb.rx_tuser.next = self.adapt.m_rx_axis_tuser.val();
                self.engine.s_mac_rx_tdata.next = self.rx_store.m_axis_tdata.val();
                self.engine.s_mac_rx_tkeep.next = self.rx_store.m_axis_tkeep.val();
                self.engine.s_mac_rx_tvalid.next = self.rx_store.m_axis_tvalid.val();
                self.rx_store.m_axis_tready.next = self.engine.s_mac_rx_tready.val();
                self.engine.s_mac_rx_tlast.next = self.rx_store.m_axis_tlast.val();
                self.engine.s_mac_rx_tuser.next = self.rx_store.m_axis_tuser.val();

                // MAC send: the engine's frames and Etherbone's answers, a whole
                // frame at a time, into the store of whole frames (the MAC must
                // get each frame without a gap), then adaptation.
                if self.tx_lock.q.val() {
                    self.tx_eb.next = self.tx_was_eb.q.val();
                } else {
                    self.tx_eb.next = self.eb.m_tvalid.val()
                        & (!self.engine.m_mac_tx_tvalid.val() | !self.tx_was_eb.q.val());
                }
                self.tx_store.s_axis_tdata.next = self.engine.m_mac_tx_tdata.val();
                self.tx_store.s_axis_tkeep.next = self.engine.m_mac_tx_tkeep.val();
                self.tx_valid.next = self.engine.m_mac_tx_tvalid.val();
                self.tx_last.next = self.engine.m_mac_tx_tlast.val();
                if self.tx_eb.val() {
                    self.tx_store.s_axis_tdata.next = self.eb.m_tdata.val();
                    self.tx_store.s_axis_tkeep.next = self.eb.m_tkeep.val();
                    self.tx_valid.next = self.eb.m_tvalid.val();
                    self.tx_last.next = self.eb.m_tlast.val();
                }
                self.tx_store.s_axis_tvalid.next = self.tx_valid.val();
                self.tx_store.s_axis_tlast.next = self.tx_last.val();
                self.engine.m_mac_tx_tready.next = self.tx_store.s_axis_tready.val() & !self.tx_eb.val();
                self.eb.m_tready.next = self.tx_store.s_axis_tready.val() & self.tx_eb.val();
                self.tx_store.s_axis_tuser.next = false;
                self.tx_lock.d.next = self.tx_lock.q.val();
                if self.tx_valid.val() {
                    self.tx_lock.d.next = !(self.tx_store.s_axis_tready.val() & self.tx_last.val());
                    self.tx_was_eb.d.next = self.tx_eb.val();
                }
                self.adapt.s_tx_axis_tdata.next = self.tx_store.m_axis_tdata.val();
                self.adapt.s_tx_axis_tkeep.next = self.tx_store.m_axis_tkeep.val();
                self.adapt.s_tx_axis_tvalid.next = self.tx_store.m_axis_tvalid.val();
                self.tx_store.m_axis_tready.next = self.adapt.s_tx_axis_tready.val();
                self.adapt.s_tx_axis_tlast.next = self.tx_store.m_axis_tlast.val();
                self.mac_tx_valid.next = self.adapt.mac_tx_valid.val();
                self.adapt.mac_tx_ready.next = self.mac_tx_ready.val();
                self.mac_tx_first.next = self.adapt.mac_tx_first.val();
                self.mac_tx_last.next = self.adapt.mac_tx_last.val();
                self.mac_tx_data.next = self.adapt.mac_tx_data.val();
                self.mac_tx_last_be.next = self.adapt.mac_tx_last_be.val();
                self.mac_tx_error.next = self.adapt.mac_tx_error.val();

                // Engine DMA to board memory.
                self.ram.s_dma_wr_cmd_valid.next = self.engine.m_dma_wr_cmd_valid.val();
                self.engine.m_dma_wr_cmd_ready.next = self.ram.s_dma_wr_cmd_ready.val();
                self.ram.s_dma_wr_cmd_addr.next = self.engine.m_dma_wr_cmd_addr.val();
                self.ram.s_dma_wr_cmd_len.next = self.engine.m_dma_wr_cmd_len.val();
                self.ram.s_dma_wr_tdata.next = self.engine.m_dma_wr_tdata.val();
                self.ram.s_dma_wr_tkeep.next = self.engine.m_dma_wr_tkeep.val();
                self.ram.s_dma_wr_tvalid.next = self.engine.m_dma_wr_tvalid.val();
                self.engine.m_dma_wr_tready.next = self.ram.s_dma_wr_tready.val();
                self.ram.s_dma_wr_tlast.next = self.engine.m_dma_wr_tlast.val();
                self.ram.s_dma_rd_cmd_valid.next = self.engine.m_dma_rd_cmd_valid.val();
                self.engine.m_dma_rd_cmd_ready.next = self.ram.s_dma_rd_cmd_ready.val();
                self.ram.s_dma_rd_cmd_addr.next = self.engine.m_dma_rd_cmd_addr.val();
                self.ram.s_dma_rd_cmd_len.next = self.engine.m_dma_rd_cmd_len.val();
                self.engine.s_dma_rd_tdata.next = self.ram.m_dma_rd_tdata.val();
                self.engine.s_dma_rd_tkeep.next = self.ram.m_dma_rd_tkeep.val();
                self.engine.s_dma_rd_tvalid.next = self.ram.m_dma_rd_tvalid.val();
                self.ram.m_dma_rd_tready.next = self.engine.s_dma_rd_tready.val();
                self.engine.s_dma_rd_tlast.next = self.ram.m_dma_rd_tlast.val();

                self.unused_outputs.next = self.rx_store.s_axis_tready.val()
                    | self.tx_store.m_axis_tuser.val()
                    | self.tx_store.dropped.val().any();

                if self.reset.val() {
                    self.st_ack.d.next = false;
                    self.bus_lock.d.next = false;
                    self.tx_lock.d.next = false;
                }
            }
        }
        /// The board top around the core of the same engine.
        #[derive(LogicBlock, $crate::blocks::HdlDefault)]
        pub struct $top<const W: usize, const A: usize, const P: usize> {
            pub clk_in: Signal<In, Clock>,
            pub uart_rx: Signal<In, bool>,
            pub uart_tx: Signal<Out, bool>,
            pub rgmii_clocks_rx: Signal<In, Clock>,
            pub rgmii_clocks_tx: Signal<Out, bool>,
            pub rgmii_rst_n: Signal<Out, bool>,
            pub rgmii_rx_ctl: Signal<In, bool>,
            pub rgmii_rx_data: Signal<In, Bits<4>>,
            pub rgmii_tx_ctl: Signal<Out, bool>,
            pub rgmii_tx_data: Signal<Out, Bits<4>>,

            pll: $crate::primitives::ecp5::Pll,
            eth: $crate::primitives::liteeth::LiteEthCore,
            core: $name<W, A, P>,
            /// PLL lock, synchronised.
            lock1: DFF<bool>,
            lock2: DFF<bool>,
            /// Cycles since lock, saturating: reset until it is all ones.
            settle: DFF<Bits<8>>,
            /// Reset, registered: it reaches every register of the engine.
            sys_reset: DFF<bool>,
            #[constant(0xffu64)]
            ones8: Constant<Bits<8>>,
            #[constant(1u64)]
            one8: Constant<Bits<8>>,
            #[constant(0u64)]
            zero8: Constant<Bits<8>>,
        }

        impl<const W: usize, const A: usize, const P: usize> $top<W, A, P> {
            /// A top with `pll` making the system clock, the UART at
            /// `bit_cycles` cycles per bit and the bridge's give-up time.
            pub fn new(pll: $crate::primitives::ecp5::Pll, bit_cycles: u16, timeout_cycles: u32) -> Self {
                Self {
                    pll,
                    core: $name::new(bit_cycles, timeout_cycles),
                    ..Default::default()
                }
            }

            /// The same top without the UART and UARTBone
            /// (`$name::without_uart`).
            pub fn without_uart(mut self) -> Self {
                self.core = self.core.without_uart();
                self
            }
        }

        impl<const W: usize, const A: usize, const P: usize> Logic for $top<W, A, P> {
            #[hdl_gen]
            fn update(&mut self) {
                self.pll.clk_in.next = self.clk_in.val();
                self.lock1.clock.next = self.pll.clk_out.val();
                self.lock2.clock.next = self.pll.clk_out.val();
                self.settle.clock.next = self.pll.clk_out.val();
                self.sys_reset.clock.next = self.pll.clk_out.val();
                self.lock1.d.next = self.pll.locked.val();
                self.lock2.d.next = self.lock1.q.val();
                self.settle.d.next = self.settle.q.val();
                if !self.lock2.q.val() {
                    self.settle.d.next = self.zero8.val();
                } else if self.settle.q.val() != self.ones8.val() {
                    self.settle.d.next = self.settle.q.val() + self.one8.val();
                }
                self.sys_reset.d.next = self.settle.q.val() != self.ones8.val();

                self.core.clock.next = self.pll.clk_out.val();
                self.core.reset.next = self.sys_reset.q.val();
                self.core.uart_rx.next = self.uart_rx.val();
                self.uart_tx.next = self.core.uart_tx.val();

                self.eth.sys_clk.next = self.pll.clk_out.val();
                self.eth.sys_rst.next = self.sys_reset.q.val();
                self.eth.rgmii_clocks_rx.next = self.rgmii_clocks_rx.val();
                self.rgmii_clocks_tx.next = self.eth.rgmii_clocks_tx.val();
                self.rgmii_rst_n.next = self.eth.rgmii_rst_n.val();
                self.eth.rgmii_rx_ctl.next = self.rgmii_rx_ctl.val();
                self.eth.rgmii_rx_data.next = self.rgmii_rx_data.val();
                self.rgmii_tx_ctl.next = self.eth.rgmii_tx_ctl.val();
                self.rgmii_tx_data.next = self.eth.rgmii_tx_data.val();

                self.core.mac_rx_valid.next = self.eth.rx_valid.val();
                self.eth.rx_ready.next = self.core.mac_rx_ready.val();
                self.core.mac_rx_last.next = self.eth.rx_last.val();
                self.core.mac_rx_data.next = self.eth.rx_data.val();
                self.core.mac_rx_last_be.next = self.eth.rx_last_be.val();
                self.core.mac_rx_error.next = self.eth.rx_error.val();
                self.eth.tx_valid.next = self.core.mac_tx_valid.val();
                self.core.mac_tx_ready.next = self.eth.tx_ready.val();
                self.eth.tx_first.next = self.core.mac_tx_first.val();
                self.eth.tx_last.next = self.core.mac_tx_last.val();
                self.eth.tx_data.next = self.core.mac_tx_data.val();
                self.eth.tx_last_be.next = self.core.mac_tx_last_be.val();
                self.eth.tx_error.next = self.core.mac_tx_error.val();
                self.core.mac_crc_errors.next = self.eth.crc_errors.val();
            }
        }
    };
}

board_core!(
    /// The board core around the stand-in engine.
    BoardCore,
    BoardTop,
    super::stand_in::StandIn
);

board_core!(
    /// The board core around the whole engine in its default (`corundum`)
    /// build, for simulation: the board's bridge, memory and frame stores
    /// around the real transport.
    EngineBoardCore,
    EngineBoardTop,
    crate::engine::Engine
);

board_core!(
    /// The board core around the `ecp5-85` engine: the ECPIX-5's.
    Ecp5_85BoardCore,
    Ecp5_85BoardTop,
    crate::presets::ecp5_85::top::Engine
);

board_core!(
    /// The board core around the `ecp5-25` engine: the Colorlight 5A-75B's.
    Ecp5_25BoardCore,
    Ecp5_25BoardTop,
    crate::presets::ecp5_25::top::Engine
);

/// Bytes as a number in wire order: the first byte in bits 7:0.
pub const fn wire_order(bytes: &[u8]) -> u64 {
    let mut v = 0u64;
    let mut i = bytes.len();
    while i > 0 {
        i -= 1;
        v = v << 8 | bytes[i] as u64;
    }
    v
}

/// UART bit time at 115 200 baud with a `mhz` system clock, cycles.
pub const fn bit_cycles(mhz: u64) -> u16 {
    ((mhz * 1_000_000 + 57_600) / 115_200) as u16
}

/// UARTBone's give-up time, 100 ms (as LiteX), with a `mhz` system clock.
pub const fn timeout_100ms(mhz: u64) -> u32 {
    (mhz * 100_000) as u32
}

/// The ECPIX-5's system clock, MHz: the `ecp5-85` engine's longest paths
/// (the send and receive windows' read-modify-write, the frame builders'
/// CRC) close timing there, not at 75 MHz (docs/boards.md). 64 bits at
/// 25 MHz are 1.6 times the line rate, as are the frame stores' and the
/// board memory's beat a cycle.
pub const ECPIX5_SYS_MHZ: u64 = 25;
/// The Colorlight 5A-75B's system clock, MHz: its LFE5U-25F (speed grade
/// 6) does not close the system side at 75 MHz (docs/boards.md); 64 bits at
/// 50 MHz are still 3.2 times the line rate.
pub const COLORLIGHT_SYS_MHZ: u64 = 50;

/// The ECPIX-5's top around the stand-in engine: 128 KiB of board memory,
/// 16-KiB frame stores.
pub fn ecpix5_stand_in() -> BoardTop<14, 11, 12> {
    BoardTop::new(ecpix5_pll(), bit_cycles(ECPIX5_SYS_MHZ), timeout_100ms(ECPIX5_SYS_MHZ))
}

/// The ECPIX-5's top around its engine, the `ecp5-85` build (whose clock
/// is the board's system clock): 128 KiB of board memory, 16-KiB frame
/// stores.
pub fn ecpix5() -> Ecp5_85BoardTop<14, 11, 12> {
    assert_eq!(crate::presets::ecp5_85::cfg::CONFIG.clock_ps as u64, 1_000_000 / ECPIX5_SYS_MHZ);
    Ecp5_85BoardTop::new(ecpix5_pll(), bit_cycles(ECPIX5_SYS_MHZ), timeout_100ms(ECPIX5_SYS_MHZ))
}

/// The ECPIX-5's PLL: its oscillator to the system clock.
pub fn ecpix5_pll() -> crate::primitives::ecp5::Pll {
    let pll = crate::primitives::ecp5::Pll::from_100_to_25();
    assert_eq!(pll.f_out_mhz(), ECPIX5_SYS_MHZ);
    pll
}

/// The Colorlight 5A-75B's board memory (2^11 words of 8 bytes: 16 KiB)
/// and frame stores (2^9 beats: 4 KiB), `W`, `A` and `P = A + 1` of its
/// tops.
pub const COLORLIGHT_RAM_WORDS_BITS: usize = 11;
pub const COLORLIGHT_STORE_BEATS_BITS: usize = 9;
pub const COLORLIGHT_STORE_FILL_BITS: usize = COLORLIGHT_STORE_BEATS_BITS + 1;

/// The Colorlight 5A-75B's top around the stand-in engine (a smaller
/// FPGA, 56 block RAMs): 16 KiB of board memory (8 block RAMs, one per
/// byte lane, as 8 KiB would take too), 4-KiB frame stores (3 each; a frame
/// of the `ecp5-25` build's 2048-byte MTU fits, as does Etherbone's
/// largest), Etherbone the only host bridge (the board has no USB UART;
/// leaving UARTBone out saves its logic for the engine).
pub fn colorlight_5a75b_stand_in(
) -> BoardTop<COLORLIGHT_RAM_WORDS_BITS, COLORLIGHT_STORE_BEATS_BITS, COLORLIGHT_STORE_FILL_BITS> {
    BoardTop::new(colorlight_pll(), bit_cycles(COLORLIGHT_SYS_MHZ), timeout_100ms(COLORLIGHT_SYS_MHZ)).without_uart()
}

/// The Colorlight 5A-75B's top around its engine, the `ecp5-25` build:
/// 16 KiB of board memory, 4-KiB frame stores, Etherbone only.
pub fn colorlight_5a75b(
) -> Ecp5_25BoardTop<COLORLIGHT_RAM_WORDS_BITS, COLORLIGHT_STORE_BEATS_BITS, COLORLIGHT_STORE_FILL_BITS> {
    const _: () = assert!(
        crate::presets::ecp5_25::cfg::CONFIG.max_mtu as usize + ferroce_proto::wire::DATA_FRAME_OVERHEAD
            <= 8 * ((1 << COLORLIGHT_STORE_BEATS_BITS) - 1)
    );
    assert_eq!(crate::presets::ecp5_25::cfg::CONFIG.clock_ps as u64, 1_000_000 / COLORLIGHT_SYS_MHZ);
    Ecp5_25BoardTop::new(colorlight_pll(), bit_cycles(COLORLIGHT_SYS_MHZ), timeout_100ms(COLORLIGHT_SYS_MHZ))
        .without_uart()
}

/// The Colorlight 5A-75B's PLL: its oscillator to the system clock.
pub fn colorlight_pll() -> crate::primitives::ecp5::Pll {
    let pll = crate::primitives::ecp5::Pll::from_25_to_50();
    assert_eq!(pll.f_out_mhz(), COLORLIGHT_SYS_MHZ);
    pll
}
