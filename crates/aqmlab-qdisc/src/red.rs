//! PLACEHOLDER: Red is being implemented; this module only reserves the interface.

use crate::contract::{Backlog, QdiscCx, QueueDisc};
use crate::params::{ConfigError, ParamSpec, Params};
#[allow(unused_imports)]
use crate::uniform::UniformSource;
use aqmlab_core::{Packet, SimTime};

/// Red's parameters.
pub const PARAMS: &[ParamSpec] = &[];

/// Validated configuration.
#[derive(Clone, Debug)]
pub struct RedConfig {}

impl RedConfig {
    /// Reads and checks the parameters.
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        Err(p.invalid("kind", "not implemented yet"))
    }
}

/// The discipline.
#[derive(Debug)]
pub struct Red {
    uniforms: UniformSource,
}

impl Red {
    /// Builds it.
    pub fn new(cfg: RedConfig, uniforms: UniformSource) -> Self {
        let _ = cfg;
        Red { uniforms }
    }
    /// The random source.
    pub fn uniforms(&self) -> &UniformSource {
        &self.uniforms
    }
}

impl QueueDisc for Red {
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
