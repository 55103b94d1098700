#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqmlab_sim::fuzzing::scenario_text(data));
