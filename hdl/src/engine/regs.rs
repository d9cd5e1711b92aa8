//! The register file's buses as named fields: [`Settings`] is the `regs`
//! bus of `csr` (every stored register, in the map's order), [`Status`]
//! the `hw` bus (every register the hardware sets). The field lists are
//! checked against `ferroce_proto::regs` by a test, so a register added to
//! the map and not here fails that test (and the width checks below fail
//! the build).

use rust_hdl::prelude::*;

use crate::blocks::HdlStruct;
use crate::csr::{HW_BITS, STORED_BITS};

/// A struct of 32-bit register fields packed in order (first field at bit
/// 0), with the registers it stands for.
macro_rules! register_struct {
    ($(#[$m:meta])* $name:ident { $($field:ident = $block:ident . $reg:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
        pub struct $name {
            $(pub $field: Bits<32>,)*
        }

        impl $name {
            /// The registers, `(block, register)`, in field order.
            pub const REGISTERS: &'static [(&'static str, &'static str)] =
                &[$((stringify!($block), stringify!($reg)),)*];
        }

        impl From<Bits<{ <$name as Synth>::BITS }>> for $name {
            fn from(b: Bits<{ <$name as Synth>::BITS }>) -> Self {
                let mut at = 0;
                $(
                    let $field = b.get_bits::<32>(at);
                    at += 32;
                )*
                let _ = at;
                Self { $($field,)* }
            }
        }
    };
}

register_struct! {
    /// The stored (read-write and write-only) registers.
    Settings {
        ctrl = control.ctrl,
        mac_lo = control.mac_lo,
        mac_hi = control.mac_hi,
        ip = control.ip,
        udp_port = control.udp_port,
        line_rate_mbps = control.line_rate_mbps,
        mtu = control.mtu,
        ack_every = control.ack_every,
        ack_delay_ns = control.ack_delay_ns,
        rto_min_ns = control.rto_min_ns,
        rnr_delay_ns = control.rnr_delay_ns,
        port_seed = control.port_seed,
        recovery = control.recovery,
        window_cap = control.window_cap,
        window_scale = control.window_scale,
        conn_index = conn_table.index,
        conn_remote_id = conn_table.remote_id,
        conn_peer_ip = conn_table.peer_ip,
        conn_peer_mac_lo = conn_table.peer_mac_lo,
        conn_peer_mac_hi = conn_table.peer_mac_hi,
        conn_paths = conn_table.paths,
        conn_streams = conn_table.streams,
        conn_initial_rate_mbps = conn_table.initial_rate_mbps,
        conn_cmd = conn_table.cmd,
        conn_tx_psn = conn_table.tx_psn,
        conn_rx_psn = conn_table.rx_psn,
        conn_generation = conn_table.generation,
        path_index = path_table.index,
        mr_index = mr_table.index,
        mr_rkey = mr_table.rkey,
        mr_base_lo = mr_table.base_lo,
        mr_base_hi = mr_table.base_hi,
        mr_len_lo = mr_table.len_lo,
        mr_len_hi = mr_table.len_hi,
        mr_access = mr_table.access,
        mr_conn = mr_table.conn,
        mr_cmd = mr_table.cmd,
        sq_base_lo = queues.sq_base_lo,
        sq_base_hi = queues.sq_base_hi,
        sq_log_size = queues.sq_log_size,
        sq_prod = queues.sq_prod,
        rq_base_lo = queues.rq_base_lo,
        rq_base_hi = queues.rq_base_hi,
        rq_log_size = queues.rq_log_size,
        rq_prod = queues.rq_prod,
        cq_base_lo = queues.cq_base_lo,
        cq_base_hi = queues.cq_base_hi,
        cq_log_size = queues.cq_log_size,
        cq_cons = queues.cq_cons,
    }
}

register_struct! {
    /// The registers the hardware sets.
    Status {
        status = control.status,
        conn_cmd_status = conn_table.cmd_status,
        path_sport = path_table.sport,
        path_cwnd = path_table.cwnd,
        path_srtt_ns = path_table.srtt_ns,
        path_state = path_table.state,
        path_sent = path_table.sent,
        path_retransmitted = path_table.retransmitted,
        path_ecn_echoes = path_table.ecn_echoes,
        mr_cmd_status = mr_table.cmd_status,
        sq_cons = queues.sq_cons,
        rq_cons = queues.rq_cons,
        cq_prod = queues.cq_prod,
        tx_data = stats.tx_data,
        tx_retx = stats.tx_retx,
        tx_acks = stats.tx_acks,
        tx_naks = stats.tx_naks,
        rx_data = stats.rx_data,
        rx_dup = stats.rx_dup,
        rx_out_of_window = stats.rx_out_of_window,
        rx_malformed = stats.rx_malformed,
        rx_bad_conn = stats.rx_bad_conn,
        rx_access_violation = stats.rx_access_violation,
        rx_no_recv = stats.rx_no_recv,
        rx_ecn_ce = stats.rx_ecn_ce,
        rtos = stats.rtos,
        repaths = stats.repaths,
        bytes_placed_lo = stats.bytes_placed_lo,
        bytes_placed_hi = stats.bytes_placed_hi,
        tail_probes = stats.tail_probes,
    }
}

const _: () = assert!(<Settings as Synth>::BITS == STORED_BITS, "Settings has a field per stored register");
const _: () = assert!(<Status as Synth>::BITS == HW_BITS, "Status has a field per hardware register");

/// Index of the strobe bit of `block.reg` on `csr`'s `strobe` bus.
pub fn strobe_of(block: &str, reg: &str) -> u64 {
    Settings::REGISTERS
        .iter()
        .position(|&(b, r)| b == block && r == reg)
        .unwrap_or_else(|| panic!("{block}.{reg} is not a stored register")) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferroce_proto::regs;

    fn names(list: Vec<(u32, &'static regs::Register)>) -> Vec<(String, String)> {
        list.into_iter()
            .map(|(off, r)| {
                let i = (0..regs::BLOCKS.len()).rev().find(|&i| regs::block_base(i) <= off).expect("in a block");
                (regs::BLOCKS[i].name.to_string(), r.name.to_string())
            })
            .collect()
    }

    fn ours(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|&(b, r)| (b.to_string(), r.to_string())).collect()
    }

    #[test]
    fn the_fields_are_the_maps_registers_in_order() {
        assert_eq!(ours(Settings::REGISTERS), names(regs::stored()));
        assert_eq!(ours(Status::REGISTERS), names(regs::hardware()));
    }

    #[test]
    fn the_bus_unpacks_field_by_field() {
        let mut bus = Bits::<STORED_BITS>::default();
        for i in 0..Settings::REGISTERS.len() {
            bus.set_bits::<32>(32 * i, ((i as u64 + 1) * 0x0101_0101).into());
        }
        let s = Settings::from(bus);
        assert_eq!(s.ctrl, Bits::<32>::from(0x0101_0101u64));
        assert_eq!(s.cq_cons, Bits::<32>::from(Settings::REGISTERS.len() as u64 * 0x0101_0101));
        assert_eq!(Bits::<STORED_BITS>::from(s), bus, "packing undoes unpacking");
        assert_eq!(strobe_of("conn_table", "cmd"), 23);
    }
}
