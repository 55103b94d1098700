//! PLACEHOLDER: FqCodel is being implemented; this module only reserves the interface.

use crate::contract::{Backlog, QdiscCx, QueueDisc};
use crate::params::{ConfigError, ParamSpec, Params};
#[allow(unused_imports)]
use crate::uniform::UniformSource;
use aqmlab_core::{Packet, SimTime};

/// FqCodel's parameters.
pub const PARAMS: &[ParamSpec] = &[];

/// Validated configuration.
#[derive(Clone, Debug)]
pub struct FqCodelConfig {}

impl FqCodelConfig {
    /// Reads and checks the parameters.
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        Err(p.invalid("kind", "not implemented yet"))
    }
}

/// The discipline.
#[derive(Debug)]
pub struct FqCodel {
    uniforms: UniformSource,
}

impl FqCodel {
    /// Builds it.
    pub fn new(cfg: FqCodelConfig, uniforms: UniformSource) -> Self {
        let _ = cfg;
        FqCodel { uniforms }
    }
    /// The random source.
    pub fn uniforms(&self) -> &UniformSource {
        &self.uniforms
    }
}

impl QueueDisc for FqCodel {
    fn enqueue(&mut self, _now: SimTime, _pkt: Packet, _cx: &mut QdiscCx) {
        unimplemented!()
    }
    fn dequeue(&mut self, _now: SimTime, _cx: &mut QdiscCx) -> Option<Packet> {
        unimplemented!()
    }
    fn backlog(&self) -> Backlog {
        Backlog::default()
    }
    fn visit_state(&self, _visit: &mut dyn FnMut(&'static str, f64)) {}
}
