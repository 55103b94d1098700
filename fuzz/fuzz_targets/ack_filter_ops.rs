#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    aqmlab_qdisc::fuzzing::ack_filter_ops(data);
});
