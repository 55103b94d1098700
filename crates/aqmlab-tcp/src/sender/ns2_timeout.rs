//! ns-2.35's `ssthresh` at a retransmission timeout (`TcpConfig::rto_ssthresh = "ns2"`), for
//! checks against ns-2: half of `min(cwnd, window)` in whole packets at every expiry, where
//! RFC 5681 §3.1 halves FlightSize (`TcpSender::rto_flight_size`).

/// The FlightSize that makes the controller's `ssthresh = max(FlightSize / 2, 2·SMSS)` at a
/// timeout equal ns-2.35's: `TcpAgent::timeout` calls `slowdown(CLOSE_SSTHRESH_HALF |
/// CLOSE_CWND_RESTART)`, which sets `ssthresh_ = (int) (window() / 2)`, at least 2, where
/// `window()` is `min(cwnd_, wnd_)` in whole packets (`tcp.cc`; `RenoTcpAgent::timeout` first
/// sets `dupwnd_ = 0`). So: `2·⌊⌊min(cwnd, wnd) / SMSS⌋ / 2⌋·SMSS`.
pub(super) fn ns2_rto_flight_size(cwnd: u64, snd_wnd: u64, mss: u64) -> u64 {
    let window_pkts = cwnd.min(snd_wnd) / mss;
    2 * (window_pkts / 2) * mss
}

#[cfg(test)]
mod tests {
    use super::ns2_rto_flight_size;

    const MSS: u64 = 960;

    /// ns-2's `ssthresh_ = max((int) (window() / 2), 2)` packets, through the controller's
    /// `max(FlightSize / 2, 2·SMSS)`.
    fn ssthresh_pkts(cwnd: u64, wnd: u64) -> u64 {
        (ns2_rto_flight_size(cwnd, wnd, MSS) / 2).max(2 * MSS) / MSS
    }

    #[test]
    fn ns2_timeout_halves_the_window_in_whole_packets() {
        // issue 19, tail drop 20, seed 1, flow 1 at 0.397 s: ns-2's cwnd_ 51.02 gives
        // ssthresh_ 25 (RFC 5681's FlightSize/2 of the 122 packets outstanding: 61).
        assert_eq!(ssthresh_pkts(51 * MSS + 19, u64::MAX), 25);
        assert_eq!(ssthresh_pkts(52 * MSS, u64::MAX), 26);
        // The window is min(cwnd_, wnd_): node 5's 8 packets.
        assert_eq!(ssthresh_pkts(30 * MSS, 8 * MSS), 4);
        // A backed-off expiry (cwnd_ 1) and small windows: at least 2 packets.
        assert_eq!(ssthresh_pkts(MSS, u64::MAX), 2);
        assert_eq!(ssthresh_pkts(5 * MSS, u64::MAX), 2);
        assert_eq!(ssthresh_pkts(6 * MSS, u64::MAX), 3);
        assert_eq!(ns2_rto_flight_size(7 * MSS + 959, u64::MAX, MSS), 6 * MSS);
    }
}
