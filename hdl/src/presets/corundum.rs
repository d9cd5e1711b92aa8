//! The `corundum` preset ([`ferroce_proto::config::EngineConfig::CORUNDUM`]).

preset!(ferroce_proto::config::EngineConfig::CORUNDUM);
