//! PackMime-HTTP web traffic (Cao, Cleveland, Gao, Jeffay, Smith & Weigle, "Stochastic Models
//! for Generating Synthetic HTTP Source Traffic", INFOCOM 2004; ns-2.35's `PackMimeHTTP`): one
//! request/response exchange per connection (HTTP/1.0), or with HTTP/1.1 some persistent
//! connections carrying several ([`PackMime::http11_exchanges`]).
//!
//! * **Connections**: `conns_per_s` new connections per second, as PackMime's `rate`. The gaps
//!   between them are Weibull with PackMime's rate-dependent shape,
//!   `logit⁻¹(0.352 + 0.388·log2(rate))` (0.78 at 5 connections/s: burstier than Poisson, whose
//!   shape is 1), and the scale that makes their mean `1/rate`.
//! * **Request and response sizes**: PackMime's marginal distributions, as the quantiles of
//!   2·10⁶ draws of ns-2.35's own generators (`ns bench/ns2/packmime_quantiles.tcl`, seed 1,
//!   5 connections/s; the marginals do not depend on the rate), interpolated linearly in
//!   log(size) between tabulated probabilities, and beyond the last one (p = 0.99999) a Pareto
//!   tail whose index is fitted to the quantiles at 0.999 and 0.99999 (about 1.2 for responses,
//!   1.5 for requests).
//! * **Server delay**: before answering, the server waits `1 / max(10, W)` seconds, W Weibull
//!   with shape 0.63 and scale 305 (PackMime's server delay: at most 100 ms, median 5.9 ms,
//!   mean 22 ms).
//!
//! Deviations from ns-2: the draws are independent. ns-2 correlates successive gaps and
//! request sizes through fractional ARIMA processes (long-range dependence) and alternates
//! response sizes between runs of cache validations and of downloads; here only their marginal
//! distributions are kept. The gaps follow the nominal Weibull; ns-2's draws spread further
//! (its 10th percentile at 5 connections/s is 6.3 ms, the Weibull's 9.6 ms; the means agree),
//! for a reason not traced (`docs/models/packmime.md`). `crates/aqmlab-sim/tests/packmime.rs` compares the generators
//! with ns-2's draws; `docs/models/packmime.md` tabulates the comparison.

use aqmlab_core::math;
use aqmlab_core::Xoshiro256pp;

/// PackMime's generators for one web flow of `conns_per_s` connections per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PackMime {
    /// Weibull shape of the gaps between connections.
    pub gap_shape: f64,
    /// Weibull scale of the gaps, seconds.
    pub gap_scale: f64,
}

impl PackMime {
    /// The generators at `conns_per_s` (> 0) new connections per second.
    pub fn new(conns_per_s: f64) -> PackMime {
        let x = 0.352 + 0.388 * math::ln(conns_per_s) / std::f64::consts::LN_2;
        let shape = 1.0 / (1.0 + math::exp(-x));
        PackMime {
            gap_shape: shape,
            gap_scale: 1.0 / (conns_per_s * math::gamma(1.0 + 1.0 / shape)),
        }
    }

    /// The time to the next connection, seconds.
    pub fn gap(&self, rng: &mut Xoshiro256pp) -> f64 {
        self.gap_scale * math::pow(-math::ln(rng.next_open01()), 1.0 / self.gap_shape)
    }

    /// A request size, bytes (≥ 1).
    pub fn request_size(rng: &mut Xoshiro256pp) -> u64 {
        size(&REQUEST_QUANTILES, rng.next_f64())
    }

    /// A response size, bytes (≥ 1).
    pub fn response_size(rng: &mut Xoshiro256pp) -> u64 {
        size(&RESPONSE_QUANTILES, rng.next_f64())
    }

    /// The server's delay before it answers, seconds (at most 0.1).
    pub fn server_delay(rng: &mut Xoshiro256pp) -> f64 {
        let w = 305.0 * math::pow(-math::ln(rng.next_open01()), 1.0 / 0.63);
        1.0 / w.max(10.0)
    }

    /// The size at probability `u` of `table` (see [`RESPONSE_QUANTILES`]).
    pub fn quantile(table: &[(f64, f64)], u: f64) -> f64 {
        let (p0, q0) = table[0];
        if u <= p0 {
            return q0;
        }
        let (pn, qn) = table[table.len() - 1];
        if u >= pn {
            // A Pareto tail through the last quantile, its index fitted to the quantiles at
            // 0.999 and at the last probability.
            let (pa, qa) = *table
                .iter()
                .find(|&&(p, _)| p >= 0.999)
                .expect("the table reaches 0.999");
            let alpha = math::ln((1.0 - pa) / (1.0 - pn)) / math::ln(qn / qa);
            return qn * math::pow((1.0 - pn) / (1.0 - u).max(1e-300), 1.0 / alpha);
        }
        let i = table.partition_point(|&(p, _)| p <= u);
        let ((pl, ql), (ph, qh)) = (table[i - 1], table[i]);
        let t = (u - pl) / (ph - pl);
        math::exp(math::ln(ql) + t * (math::ln(qh) - math::ln(ql)))
    }
}

/// One request/response exchange of a connection: the request's and the response's sizes and,
/// for all but the first, the client's wait after the previous response before it asks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exchange {
    /// Request bytes.
    pub request: u64,
    /// Response bytes.
    pub response: u64,
    /// Wait after the previous response has arrived (zero for the first request), seconds.
    pub gap: f64,
}

/// HTTP/1.1's think times between requests on a persistent connection: log2 of a gap is
/// normal, with a location and a scale drawn once per flow (ns-2 draws them once per
/// generator), between pages and, shorter, between the objects of a page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThinkTimes {
    /// Between pages: location and squared scale of log2(gap).
    pub page: (f64, f64),
    /// Between the objects of a page.
    pub object: (f64, f64),
}

impl ThinkTimes {
    /// Draws the flow's parameters: location N(3.22, 0.73) and squared scale Γ(1.85, 1/1.85)
    /// between pages (a median of about 9 s), N(−4.15, 3.12) and Γ(2.35, 1/2.35) between objects
    /// (about 56 ms).
    pub fn draw(rng: &mut Xoshiro256pp) -> ThinkTimes {
        let page = (3.22 + 0.73f64.sqrt() * normal(rng), gamma(rng, 1.85) / 1.85);
        let object = (
            -4.15 + 3.12f64.sqrt() * normal(rng),
            gamma(rng, 2.35) / 2.35,
        );
        ThinkTimes { page, object }
    }
}

/// 2^(loc + sqrt(scale2)·Z·sqrt(v)).
fn log2_normal(rng: &mut Xoshiro256pp, (loc, scale2): (f64, f64), v: f64) -> f64 {
    math::pow(2.0, loc + scale2.sqrt() * normal(rng) * v.sqrt())
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut Xoshiro256pp) -> f64 {
    let (u1, u2) = (rng.next_open01(), rng.next_f64());
    (-2.0 * math::ln(u1)).sqrt() * math::cos(2.0 * std::f64::consts::PI * u2)
}

/// A Gamma(shape, 1) draw, shape ≥ 1 (Marsaglia & Tsang 2000).
fn gamma(rng: &mut Xoshiro256pp, shape: f64) -> f64 {
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = rng.next_open01();
        if math::ln(u) < 0.5 * x * x + d - d * v + d * math::ln(v) {
            return d * v;
        }
    }
}

/// A Weibull draw: scale·(−ln U)^(1/shape).
fn weibull(rng: &mut Xoshiro256pp, shape: f64, scale: f64) -> f64 {
    scale * math::pow(-math::ln(rng.next_open01()), 1.0 / shape)
}

impl PackMime {
    /// The exchanges of a new HTTP/1.1 connection, as PackMime's client plans them: with
    /// probability 0.91 one exchange (as HTTP/1.0), else a persistent connection:
    /// * pages: 1 with probability 0.82, else ⌈W + 1⌉ (W Weibull, shape 1, scale 0.417), at
    ///   least 2;
    /// * objects per page: with several pages, 1 with probability 0.69; otherwise
    ///   ⌈W + 1⌉ (shape 1, scale 1.578), at least 2;
    /// * one request size for them all; the first response from the response sizes, and when
    ///   it is a download (above 275 B, not a cache validation) the others from a lognormal
    ///   whose location N(10.62, 0.94) and squared scale Γ(3.22, 1/3.22) are drawn per
    ///   connection (log2 sizes, error variance 2.43);
    /// * before each request but the first, a think time ([`ThinkTimes`]): between pages for
    ///   the first object of a page, between objects otherwise.
    pub fn http11_exchanges(rng: &mut Xoshiro256pp, think: &ThinkTimes, out: &mut Vec<Exchange>) {
        out.clear();
        let request = PackMime::request_size(rng);
        let response = PackMime::response_size(rng);
        if rng.next_f64() >= 0.09 {
            out.push(Exchange {
                request,
                response,
                gap: 0.0,
            });
            return;
        }
        let pages = if rng.next_f64() < 0.82 {
            1
        } else {
            ((weibull(rng, 1.0, 0.417) + 1.0).ceil() as u64).clamp(2, 1000)
        };
        for page in 0..pages {
            let objects = if pages > 1 && rng.next_f64() < 0.69 {
                1
            } else {
                ((weibull(rng, 1.0, 1.578) + 1.0).ceil() as u64).clamp(2, 1000)
            };
            for object in 0..objects {
                let gap = match (page, object) {
                    (0, 0) => 0.0,
                    (_, 0) => log2_normal(rng, think.page, 1.21),
                    _ => log2_normal(rng, think.object, 1.57),
                };
                out.push(Exchange {
                    request,
                    response,
                    gap,
                });
            }
        }
        if out.len() > 1 && response > 275 {
            let loc = 10.62 + 0.94f64.sqrt() * normal(rng);
            let scale2 = gamma(rng, 3.22) / 3.22;
            for e in &mut out[1..] {
                e.response = (log2_normal(rng, (loc, scale2), 2.43) as u64).clamp(1, 1 << 40);
            }
        }
    }
}

/// A size drawn from `table` at probability `u`, in whole bytes (as ns-2 truncates).
fn size(table: &[(f64, f64)], u: f64) -> u64 {
    PackMime::quantile(table, u).clamp(1.0, 1e12) as u64
}

/// Quantiles `(p, bytes)` of ns-2.35's PackMime-HTTP request sizes (client → server): 2·10⁶
/// draws, `ns bench/ns2/packmime_quantiles.tcl 2000000 1 5`. Their mean was 585 B.
pub const REQUEST_QUANTILES: [(f64, f64); 113] = [
    (0.0001, 51.0),
    (0.0005, 55.0),
    (0.001, 59.0),
    (0.002, 68.0),
    (0.005, 94.0),
    (0.01, 123.0),
    (0.02, 168.0),
    (0.03, 193.0),
    (0.04, 204.0),
    (0.05, 216.0),
    (0.06, 235.0),
    (0.07, 252.0),
    (0.08, 264.0),
    (0.09, 273.0),
    (0.1, 279.0),
    (0.11, 285.0),
    (0.12, 291.0),
    (0.13, 296.0),
    (0.14, 302.0),
    (0.15, 308.0),
    (0.16, 314.0),
    (0.17, 319.0),
    (0.18, 324.0),
    (0.19, 329.0),
    (0.2, 333.0),
    (0.21, 337.0),
    (0.22, 340.0),
    (0.23, 344.0),
    (0.24, 347.0),
    (0.25, 350.0),
    (0.26, 353.0),
    (0.27, 356.0),
    (0.28, 359.0),
    (0.29, 362.0),
    (0.3, 365.0),
    (0.31, 368.0),
    (0.32, 371.0),
    (0.33, 373.0),
    (0.34, 376.0),
    (0.35, 379.0),
    (0.36, 382.0),
    (0.37, 384.0),
    (0.38, 387.0),
    (0.39, 390.0),
    (0.4, 393.0),
    (0.41, 396.0),
    (0.42, 398.0),
    (0.43, 401.0),
    (0.44, 404.0),
    (0.45, 407.0),
    (0.46, 410.0),
    (0.47, 413.0),
    (0.48, 415.0),
    (0.49, 418.0),
    (0.5, 421.0),
    (0.51, 424.0),
    (0.52, 426.0),
    (0.53, 427.0),
    (0.54, 428.0),
    (0.55, 430.0),
    (0.56, 431.0),
    (0.57, 433.0),
    (0.58, 435.0),
    (0.59, 437.0),
    (0.6, 438.0),
    (0.61, 440.0),
    (0.62, 443.0),
    (0.63, 446.0),
    (0.64, 448.0),
    (0.65, 451.0),
    (0.66, 454.0),
    (0.67, 459.0),
    (0.68, 463.0),
    (0.69, 467.0),
    (0.7, 473.0),
    (0.71, 479.0),
    (0.72, 486.0),
    (0.73, 494.0),
    (0.74, 503.0),
    (0.75, 514.0),
    (0.76, 525.0),
    (0.77, 539.0),
    (0.78, 555.0),
    (0.79, 572.0),
    (0.8, 592.0),
    (0.81, 615.0),
    (0.82, 639.0),
    (0.83, 666.0),
    (0.84, 695.0),
    (0.85, 726.0),
    (0.86, 758.0),
    (0.87, 790.0),
    (0.88, 819.0),
    (0.89, 846.0),
    (0.9, 868.0),
    (0.91, 889.0),
    (0.92, 909.0),
    (0.93, 935.0),
    (0.94, 978.0),
    (0.95, 1062.0),
    (0.96, 1208.0),
    (0.97, 1461.0),
    (0.98, 1919.0),
    (0.99, 3045.0),
    (0.995, 4890.0),
    (0.998, 9084.0),
    (0.999, 14458.0),
    (0.9995, 22825.0),
    (0.9998, 42972.0),
    (0.9999, 64349.0),
    (0.99995, 94391.0),
    (0.99998, 196915.0),
    (0.99999, 324269.0),
];
/// Quantiles `(p, bytes)` of ns-2.35's PackMime-HTTP response sizes (server → client): 2·10⁶
/// draws, as [`REQUEST_QUANTILES`]. Their mean was 7979 B.
pub const RESPONSE_QUANTILES: [(f64, f64); 113] = [
    (0.0001, 5.0),
    (0.0005, 7.0),
    (0.001, 10.0),
    (0.002, 17.0),
    (0.005, 36.0),
    (0.01, 57.0),
    (0.02, 69.0),
    (0.03, 78.0),
    (0.04, 98.0),
    (0.05, 108.0),
    (0.06, 114.0),
    (0.07, 119.0),
    (0.08, 122.0),
    (0.09, 125.0),
    (0.1, 128.0),
    (0.11, 131.0),
    (0.12, 134.0),
    (0.13, 137.0),
    (0.14, 141.0),
    (0.15, 144.0),
    (0.16, 147.0),
    (0.17, 150.0),
    (0.18, 155.0),
    (0.19, 163.0),
    (0.2, 178.0),
    (0.21, 199.0),
    (0.22, 209.0),
    (0.23, 220.0),
    (0.24, 233.0),
    (0.25, 247.0),
    (0.26, 262.0),
    (0.27, 269.0),
    (0.28, 276.0),
    (0.29, 289.0),
    (0.3, 302.0),
    (0.31, 317.0),
    (0.32, 332.0),
    (0.33, 348.0),
    (0.34, 366.0),
    (0.35, 384.0),
    (0.36, 404.0),
    (0.37, 425.0),
    (0.38, 447.0),
    (0.39, 471.0),
    (0.4, 497.0),
    (0.41, 524.0),
    (0.42, 553.0),
    (0.43, 585.0),
    (0.44, 619.0),
    (0.45, 655.0),
    (0.46, 693.0),
    (0.47, 735.0),
    (0.48, 780.0),
    (0.49, 828.0),
    (0.5, 881.0),
    (0.51, 938.0),
    (0.52, 997.0),
    (0.53, 1061.0),
    (0.54, 1131.0),
    (0.55, 1208.0),
    (0.56, 1293.0),
    (0.57, 1383.0),
    (0.58, 1479.0),
    (0.59, 1583.0),
    (0.6, 1698.0),
    (0.61, 1825.0),
    (0.62, 1964.0),
    (0.63, 2106.0),
    (0.64, 2263.0),
    (0.65, 2435.0),
    (0.66, 2629.0),
    (0.67, 2833.0),
    (0.68, 3050.0),
    (0.69, 3296.0),
    (0.7, 3566.0),
    (0.71, 3853.0),
    (0.72, 4160.0),
    (0.73, 4498.0),
    (0.74, 4885.0),
    (0.75, 5268.0),
    (0.76, 5695.0),
    (0.77, 6172.0),
    (0.78, 6643.0),
    (0.79, 7162.0),
    (0.8, 7739.0),
    (0.81, 8291.0),
    (0.82, 8920.0),
    (0.83, 9514.0),
    (0.84, 10153.0),
    (0.85, 10790.0),
    (0.86, 11465.0),
    (0.87, 12151.0),
    (0.88, 12912.0),
    (0.89, 13756.0),
    (0.9, 14807.0),
    (0.91, 16216.0),
    (0.92, 18188.0),
    (0.93, 20995.0),
    (0.94, 24876.0),
    (0.95, 29799.0),
    (0.96, 34495.0),
    (0.97, 37740.0),
    (0.98, 43216.0),
    (0.99, 71567.0),
    (0.995, 125850.0),
    (0.998, 264185.0),
    (0.999, 459580.0),
    (0.9995, 787789.0),
    (0.9998, 1702030.0),
    (0.9999, 2814190.0),
    (0.99995, 5179990.0),
    (0.99998, 10942500.0),
    (0.99999, 19197600.0),
];
