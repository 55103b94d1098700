//! Linux's fixed-point CoDel arithmetic (include/net/codel.h, codel_impl.h), which ns-3 3.37
//! ports bit for bit: 1/sqrt(count) kept as a Q0.16 value refined by one Newton step per count
//! change, and the control law as a reciprocal multiply. Reproduced exactly so the `linux` and
//! `ns3` variants agree with those systems packet for packet.

/// Bits dropped from nanoseconds to get Linux's CoDel time unit (1024 ns).
pub const CODEL_SHIFT: u32 = 10;
/// `rec_inv_sqrt` is Q0.16; shift to promote it to Q0.32.
const REC_INV_SQRT_SHIFT: u32 = 32 - 16;
/// 1/sqrt(1) ≈ 1.0 in Q0.16 (`~0U >> REC_INV_SQRT_SHIFT`).
pub const REC_INV_SQRT_ONE: u16 = u16::MAX;

/// One Newton–Raphson step of x ← x·(3 − count·x²)/2 in fixed point (`codel_Newton_step`).
/// All intermediate arithmetic wraps exactly as the C code's unsigned types do.
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt: u32 = (rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
    let invsqrt2: u32 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
    let mut val: u64 = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2 as u64);
    val >>= 2; // avoid overflow in the following multiply
    val = val.wrapping_mul(invsqrt as u64) >> (32 - 2 + 1);
    (val >> REC_INV_SQRT_SHIFT) as u16
}

/// `t + interval · rec_inv_sqrt` with the reciprocal multiply of `codel_control_law`
/// (`reciprocal_scale(interval, rec_inv_sqrt << 16)`), in 1024-ns units.
pub fn control_law(t: u64, interval: u64, rec_inv_sqrt: u16) -> u64 {
    let scale = ((rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT) as u64;
    // Linux's interval is a u32 of 1024-ns units (covers 73 minutes); keep its truncation.
    let interval = interval as u32 as u64;
    t + ((interval * scale) >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spacings for count = 1..10 at a 100 ms interval (reference notes codel.md §2): one Newton
    /// step per count change from 1.0 gives 50 ms (not 70.7 ms) at count 2.
    #[test]
    fn early_spacings_follow_one_newton_step_per_count() {
        let interval = 100_000_000u64 >> CODEL_SHIFT;
        let mut rec = REC_INV_SQRT_ONE;
        let mut got = vec![];
        for count in 1..=10u32 {
            if count > 1 {
                rec = newton_step(rec, count);
            }
            let ms = (control_law(0, interval, rec) << CODEL_SHIFT) as f64 / 1e6;
            got.push((ms * 100.0).round() / 100.0);
        }
        assert_eq!(
            got,
            [100.0, 50.0, 56.25, 48.78, 44.15, 40.41, 37.52, 35.15, 33.18, 31.5]
        );
    }

    /// Tracking count one step at a time (as Linux does: one Newton step per increment) keeps
    /// 1/sqrt(count) close to exact once count is past the first few values.
    #[test]
    fn newton_tracks_inverse_square_root_as_count_grows() {
        let mut rec = REC_INV_SQRT_ONE;
        for count in 2..=1000u32 {
            rec = newton_step(rec, count);
            let x = rec as f64 / 65536.0;
            let exact = 1.0 / (count as f64).sqrt();
            if count >= 16 {
                assert!(
                    (x - exact).abs() / exact < 0.01,
                    "count {count}: {x} vs {exact}"
                );
            }
        }
        // Repeated steps at a fixed count converge to within the Q0.16 resolution.
        for _ in 0..10 {
            rec = newton_step(rec, 1000);
        }
        assert!((rec as f64 / 65536.0 - 1.0 / 1000f64.sqrt()).abs() < 1e-4);
    }

    /// The first control-law step from the vectors' state trace: entering at t = 124.8 ms with
    /// count 1 schedules the next drop at 219529 units (224 797 696 ns), not now + interval.
    #[test]
    fn control_law_matches_ns3_trace() {
        let now = 124_800_000u64 >> CODEL_SHIFT;
        let interval = 100_000_000u64 >> CODEL_SHIFT;
        assert_eq!(
            control_law(now, interval, REC_INV_SQRT_ONE) << CODEL_SHIFT,
            224_797_696
        );
    }
}
