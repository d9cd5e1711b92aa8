//! The simulator backend: the RTL register file (`csr`) in Verilator,
//! reached over its AXI-Lite port, so the driver talks to the same Verilog
//! the FPGA runs.

use std::sync::Arc;

use ferroce_sim::verilator::{ModelLib, Port, Sim};

use crate::{Error, RegisterAccess, Result};

/// The RTL register file as a register region.
#[derive(Debug)]
pub struct SimCsr {
    sim: Sim,
    ports: Vec<Port>,
}

const NAMES: [&str; 15] = [
    "s_axil_awaddr",
    "s_axil_awvalid",
    "s_axil_awready",
    "s_axil_wdata",
    "s_axil_wstrb",
    "s_axil_wvalid",
    "s_axil_bresp",
    "s_axil_bvalid",
    "s_axil_bready",
    "s_axil_araddr",
    "s_axil_arvalid",
    "s_axil_rdata",
    "s_axil_rresp",
    "s_axil_rvalid",
    "s_axil_rready",
];

impl SimCsr {
    /// Build (first use) and start the register file.
    pub fn new() -> Result<SimCsr> {
        let v = ferroce_hdl::emit::verilog(ferroce_hdl::csr::Csr::default());
        let lib: Arc<ModelLib> = ModelLib::build("csr", &v)?;
        let mut sim = Sim::new(&lib);
        sim.clock("clock");
        sim.reset("reset", None, 0);
        let ports = NAMES.iter().map(|n| sim.port(n)).collect();
        Ok(SimCsr { sim, ports })
    }

    fn p(&self, name: &str) -> Port {
        self.ports[NAMES.iter().position(|n| *n == name).expect("a listed port")]
    }

    fn wait(&mut self, name: &str, offset: u32) -> Result<()> {
        let p = self.p(name);
        for _ in 0..16 {
            self.sim.eval();
            if self.sim.get(p) == 1 {
                return Ok(());
            }
            self.sim.tick();
        }
        Err(Error::Access { offset, what: format!("{name} never rose") })
    }
}

const SLVERR: u64 = 2;

impl RegisterAccess for SimCsr {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        let (addr, valid) = (self.p("s_axil_araddr"), self.p("s_axil_arvalid"));
        self.sim.set(addr, offset as u64);
        self.sim.set(valid, 1);
        self.sim.tick();
        self.sim.set(valid, 0);
        self.wait("s_axil_rvalid", offset)?;
        let data = self.sim.get(self.p("s_axil_rdata")) as u32;
        let resp = self.sim.get(self.p("s_axil_rresp"));
        let ready = self.p("s_axil_rready");
        self.sim.set(ready, 1);
        self.sim.tick();
        self.sim.set(ready, 0);
        if resp == SLVERR {
            return Err(Error::Access { offset, what: "SLVERR".into() });
        }
        Ok(data)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        let (a, av, d, s, wv) = (
            self.p("s_axil_awaddr"),
            self.p("s_axil_awvalid"),
            self.p("s_axil_wdata"),
            self.p("s_axil_wstrb"),
            self.p("s_axil_wvalid"),
        );
        self.sim.set(a, offset as u64);
        self.sim.set(d, value as u64);
        self.sim.set(s, 0xf);
        self.sim.set(av, 1);
        self.sim.set(wv, 1);
        self.wait("s_axil_awready", offset)?;
        self.sim.tick();
        self.sim.set(av, 0);
        self.sim.set(wv, 0);
        self.wait("s_axil_bvalid", offset)?;
        let resp = self.sim.get(self.p("s_axil_bresp"));
        let b = self.p("s_axil_bready");
        self.sim.set(b, 1);
        self.sim.tick();
        self.sim.set(b, 0);
        if resp == SLVERR {
            return Err(Error::Access { offset, what: "SLVERR".into() });
        }
        Ok(())
    }
}
