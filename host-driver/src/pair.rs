//! Two engines in Verilator across the fabric model, each programmed by its
//! own driver, with connection 0 of each joined to the other's and a
//! region of B's memory open to A's WRITEs: the set-up shared by the
//! end-to-end tests and the RTL benchmark.

use std::cell::RefCell;
use std::rc::Rc;

use ferroce_proto::rings::{CQE_BYTES, RQE_BYTES, WQE_BYTES};
use ferroce_proto::rng::Rng;
use ferroce_proto::Iova;
use ferroce_sim::engine::{DmaConfig, EngineNode, EngineSim};
use ferroce_sim::fabric::{Fabric, LeafSpine};
use ferroce_sim::memory::Memory;

use crate::driver::{Config, ConnSpec, Driver, MrSpec, RingSpec};
use crate::sim::SharedEngine;
use crate::Result;

pub const SQ: u64 = 0x1000_0000;
pub const RQ: u64 = 0x1010_0000;
pub const CQ: u64 = 0x1020_0000;
pub const SRC: u64 = 0x2000_0000;
pub const DST: u64 = 0x1_0000_0000;
pub const RKEY: u32 = 0x51;
const LOG_SQ: u32 = 7;
const LOG_RQ: u32 = 7;
const LOG_CQ: u32 = 9;

/// Engine A (host 0) and engine B (host 1) on `fabric`.
#[allow(missing_debug_implementations)]
pub struct EnginePair {
    pub fabric: Fabric<EngineNode>,
    pub drivers: Vec<Driver<SharedEngine>>,
    pub engines: Vec<Rc<RefCell<EngineSim>>>,
    /// Bytes of each engine's source buffer and of B's WRITE target.
    pub src_bytes: u64,
    pub dst_bytes: u64,
}

/// Settings of the pair.
#[derive(Debug, Clone, Copy)]
pub struct PairConfig {
    pub paths: u32,
    pub streams: u32,
    pub mtu: u32,
    pub src_bytes: u64,
    pub dst_bytes: u64,
    pub seed: u64,
    /// Chance per cycle that each DMA port stalls (the tests use 0.1).
    pub dma_stall: f64,
    /// The engines' build (a `ferroce_proto::config` preset).
    pub preset: &'static str,
    /// Both engines' loss-recovery settings (`control.recovery`).
    pub recovery: ferroce_proto::model::Recovery,
}

fn memory(c: &PairConfig, salt: u64) -> Memory {
    let mut m = Memory::default();
    m.add_region("sq", Iova(SQ), WQE_BYTES << LOG_SQ, false);
    m.add_region("rq", Iova(RQ), RQE_BYTES << LOG_RQ, false);
    m.add_region("cq", Iova(CQ), CQE_BYTES << LOG_CQ, true);
    m.add_region("src", Iova(SRC), c.src_bytes as usize, false);
    m.add_region("dst", Iova(DST), c.dst_bytes as usize, true);
    let mut rng = Rng::new(c.seed ^ salt);
    for chunk in m.region_mut("src").chunks_mut(8) {
        let v = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
    m
}

impl EnginePair {
    /// Build both engines, attach them to a leaf-spine fabric with one host
    /// per leaf, bring them up and connect them.
    pub fn new(ls: LeafSpine, c: PairConfig) -> Result<EnginePair> {
        let mut fabric: Fabric<EngineNode> = Fabric::leaf_spine(ls);
        let (mut drivers, mut engines) = (Vec::new(), Vec::new());
        for h in 0..2 {
            let (mac, ip) = fabric.host_addr(h);
            let dma = DmaConfig { seed: c.seed + h as u64, stall: c.dma_stall, ..DmaConfig::default() };
            let e = Rc::new(RefCell::new(EngineSim::of_preset(c.preset, memory(&c, h as u64), dma)?));
            fabric.attach(h, EngineNode::new(e.clone()), Memory::default());
            let cfg = Config {
                mtu: c.mtu,
                port_seed: 11 + h as u32 + c.seed as u32,
                line_rate_mbps: e.borrow().line_mbps(),
                recovery: c.recovery,
                ..Config::new(mac, ip)
            };
            let ring = |base, log_size| RingSpec { base, log_size };
            drivers.push(Driver::bring_up(
                SharedEngine(e.clone()),
                &cfg,
                ring(SQ, LOG_SQ),
                ring(RQ, LOG_RQ),
                ring(CQ, LOG_CQ),
            )?);
            engines.push(e);
        }
        // Each engine sends to its leaf, the first router on the way.
        let (ip_a, ip_b) = (fabric.host_addr(0).1, fabric.host_addr(1).1);
        let (mac_a, mac_b) = (fabric.gateway_mac(1), fabric.gateway_mac(0));
        let (paths, streams) = (c.paths, c.streams);
        drivers[0].connect(&ConnSpec {
            index: 0,
            remote: 0,
            peer_mac: mac_b,
            peer_ip: ip_b,
            paths,
            streams,
            initial_rate_mbps: 0,
        })?;
        drivers[1].connect(&ConnSpec {
            index: 0,
            remote: 0,
            peer_mac: mac_a,
            peer_ip: ip_a,
            paths,
            streams,
            initial_rate_mbps: 0,
        })?;
        drivers[1].register_mr(&MrSpec {
            slot: 0,
            rkey: RKEY,
            base: DST,
            len: c.dst_bytes,
            remote_write: true,
            conn: 0,
        })?;
        for h in 0..2 {
            fabric.kick(h);
        }
        Ok(EnginePair { fabric, drivers, engines, src_bytes: c.src_bytes, dst_bytes: c.dst_bytes })
    }

    /// DMA guard violations of either engine.
    pub fn violations(&self) -> Vec<String> {
        self.engines.iter().flat_map(|e| e.borrow().violations.clone()).collect()
    }
}
