#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| aqmlab_qdisc::fuzzing::cake_ops(data));
