//! The `ecp5-85` preset ([`ferroce_proto::config::EngineConfig::ECP5_85`]).

preset!(ferroce_proto::config::EngineConfig::ECP5_85);
