//! The `ecp5-25` preset ([`ferroce_proto::config::EngineConfig::ECP5_25`]).

preset!(ferroce_proto::config::EngineConfig::ECP5_25);
