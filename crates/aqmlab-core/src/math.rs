//! Transcendental functions with the same bits on every platform.
//!
//! `f64::ln`, `exp`, `powf`, `cos` and `cbrt` call the platform's C math library, whose results
//! may differ in the last bit between libraries and versions. A model that feeds such a result
//! into a decision (a random draw's transform, RED's idle decay, CUBIC's K) would then differ
//! between machines. These wrappers use `libm`, a pure-Rust port of musl's math library, so a
//! scenario and seed give bit-identical results everywhere. (`sqrt` is exactly rounded by IEEE
//! 754 and needs no wrapper.) `clippy.toml` bans the `f64` methods in favour of these.

/// Natural logarithm.
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// e^x.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// x^y.
#[inline]
pub fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// Cosine.
#[inline]
pub fn cos(x: f64) -> f64 {
    libm::cos(x)
}

/// Cube root.
#[inline]
pub fn cbrt(x: f64) -> f64 {
    libm::cbrt(x)
}

/// The gamma function Γ(x).
#[inline]
pub fn gamma(x: f64) -> f64 {
    libm::tgamma(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agree_with_exact_values() {
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(pow(2.0, 10.0), 1024.0);
        assert_eq!(cbrt(27.0), 3.0);
        assert_eq!(cos(0.0), 1.0);
        assert!((ln(std::f64::consts::E) - 1.0).abs() < 1e-15);
        assert_eq!(gamma(5.0), 24.0);
        assert!((gamma(0.5) - std::f64::consts::PI.sqrt()).abs() < 1e-15);
    }
}
