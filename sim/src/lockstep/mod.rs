//! Differential checks of the RTL's two paths against the reference model,
//! step by step on the same inputs; the first difference is returned as a
//! [`Divergence`].
//!
//! * [`send`]: the model sender and `tx_path` ([`send_lockstep`]).
//! * [`recv`]: the model receiver and `rx_path` ([`recv_lockstep`]).
//! * [`common`]: what both share: the endpoints' addresses, a model's ports
//!   and reset, the input handshake, settling, the output-stream checker,
//!   the RTL's keys and the codes its ports carry.
//! * `tx_rtl`, `rx_rtl`: each path in Verilator with its DMA, MAC and
//!   back-pressure models, and its outputs as named structs.
//!
//! Used by the `rtl_tx_path` and `rtl_rx_path` tests and by `cargo xtask
//! diff`, which runs both at scale.

pub mod common;
pub mod recv;
mod rx_rtl;
pub mod send;
mod tx_rtl;

pub use common::{path_key, stream_key, Divergence, A_IP, A_MAC, B_IP, B_MAC, MTU};
pub use recv::{recv_lockstep, Mix, Seen};
pub use send::{recovery_inputs, send_lockstep, SendLockstep, SendReport};
pub use tx_rtl::{Hold, RtoRequest, TxCompletion, TxRtl};
