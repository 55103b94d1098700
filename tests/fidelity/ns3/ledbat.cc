// LEDBAT (RFC 6817) in ns-3 3.37, against aqmlab's `cc = "ledbat"`: ns-3's TcpLedbat alone and
// beside a TcpNewReno flow through a tail-drop bottleneck.
//
// Senders s_i -> gw1 -> gw2 -> r_i. Access links 1 Gb/s x 1 ms (sender side) and 1 Gb/s x 48 ms
// (receiver side), bottleneck gw1 -> gw2 10 Mb/s x 1 ms: base RTT 2 x (1 + 1 + 48) = 100 ms.
// The bottleneck's queue disc is a FifoQueueDisc of --buffer packets (tail drop); device queues
// 1 packet; access links a 10 000-packet FifoQueueDisc. Device rates are raised by 1502/1500 so
// that a 1500-byte IP packet takes 1.2 ms at 10 Mb/s, as in aqmlab.
//
// Flow 0 is TcpLedbat (TargetDelay --target ms, Gain --gain, the other attributes ns-3's
// defaults: BaseHistoryLen 10, NoiseFilterLen 4, SSParam DO_SLOWSTART, MinCwnd 2); with
// --newreno=1 flow 1, started at the same time, is TcpNewReno. TCP: timestamps on (LEDBAT's
// one-way delay: TSval − TSecr), SegmentSize 1448 (1500-byte IP packets with the 12-byte
// timestamps option), classic recovery, SACK, InitialCwnd 10, DelAckCount 2 (--delack),
// DelAckTimeout 200 ms, MinRto 1 s, 16 MiB socket buffers. Flows start at U[0, 1) s (RngRun = --seed).
//
// Printed as one JSON object, measured over [--from, --to): goodput per flow (Mb/s), the
// bottleneck queue disc's time-averaged packets and the mean sojourn time of the packets
// dequeued (ms), and its drops.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iomanip>
#include <iostream>
#include <vector>

using namespace ns3;

namespace
{

double g_from = 30.0;
double g_to = 60.0;

bool
InWindow()
{
    double t = Simulator::Now().GetSeconds();
    return t >= g_from && t < g_to;
}

struct Queue
{
    double last_t = 0;
    double last_n = 0;
    double integral = 0;
    double sojourn_sum = 0;
    uint64_t dequeued = 0;
    uint64_t drops = 0;
};

Queue g_q;
std::vector<uint64_t> g_rx;

void
OnPackets(uint32_t, uint32_t n)
{
    double t = Simulator::Now().GetSeconds();
    double a = std::max(g_q.last_t, g_from);
    double b = std::min(t, g_to);
    if (b > a)
    {
        g_q.integral += g_q.last_n * (b - a);
    }
    g_q.last_t = t;
    g_q.last_n = n;
}

void
OnSojourn(Time s)
{
    if (InWindow())
    {
        g_q.sojourn_sum += s.GetSeconds();
        g_q.dequeued++;
    }
}

void
OnDrop(Ptr<const QueueDiscItem>)
{
    if (InWindow())
    {
        g_q.drops++;
    }
}

void
OnRx(size_t i, Ptr<const Packet> p, const Address&)
{
    if (InWindow())
    {
        g_rx[i] += p->GetSize();
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t seed = 1;
    uint32_t buffer = 1000;
    double target_ms = 25;
    double gain = 1;
    bool newreno = false;
    double duration = 60;
    uint32_t delack = 2;
    CommandLine cmd;
    cmd.AddValue("seed", "RngRun", seed);
    cmd.AddValue("buffer", "bottleneck queue disc limit (packets)", buffer);
    cmd.AddValue("target", "TcpLedbat TargetDelay (ms)", target_ms);
    cmd.AddValue("gain", "TcpLedbat Gain", gain);
    cmd.AddValue("newreno", "a TcpNewReno flow beside", newreno);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("delack", "DelAckCount (1: an ACK per segment)", delack);
    cmd.AddValue("from", "measurement window start (s)", g_from);
    cmd.AddValue("to", "measurement window end (s)", g_to);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delack));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(16 << 20));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpLedbat::TargetDelay", TimeValue(MilliSeconds(target_ms)));
    Config::SetDefault("ns3::TcpLedbat::Gain", DoubleValue(gain));

    uint32_t n = newreno ? 2 : 1;
    NodeContainer senders;
    senders.Create(n);
    NodeContainer receivers;
    receivers.Create(n);
    NodeContainer gws;
    gws.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();
    Config::Set("/NodeList/" + std::to_string(senders.Get(0)->GetId()) +
                    "/$ns3::TcpL4Protocol/SocketType",
                TypeIdValue(TcpLedbat::GetTypeId()));
    if (newreno)
    {
        Config::Set("/NodeList/" + std::to_string(senders.Get(1)->GetId()) +
                        "/$ns3::TcpL4Protocol/SocketType",
                    TypeIdValue(TcpNewReno::GetTypeId()));
    }

    const double scale = 1502.0 / 1500.0;
    auto p2p = [&](double bps, double delay_ms) {
        PointToPointHelper h;
        h.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(bps * scale))));
        h.SetChannelAttribute("Delay", TimeValue(MicroSeconds(int64_t(delay_ms * 1000))));
        h.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize("1p")));
        return h;
    };
    TrafficControlHelper access;
    access.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("10000p")));
    TrafficControlHelper bottleneck;
    bottleneck.SetRootQueueDisc("ns3::FifoQueueDisc",
                                "MaxSize",
                                QueueSizeValue(QueueSize(std::to_string(buffer) + "p")));
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    std::vector<Ipv4Address> dst;
    auto link = [&](Ptr<Node> a, Ptr<Node> b, double bps, double d, TrafficControlHelper& tc) {
        NetDeviceContainer devs = p2p(bps, d).Install(a, b);
        QueueDiscContainer q = tc.Install(devs);
        Ipv4InterfaceContainer ifs = addr.Assign(devs);
        addr.NewNetwork();
        return std::make_pair(q, ifs);
    };
    for (uint32_t i = 0; i < n; ++i)
    {
        link(senders.Get(i), gws.Get(0), 1e9, 1, access);
    }
    auto [bq, bifs] = link(gws.Get(0), gws.Get(1), 10e6, 1, bottleneck);
    for (uint32_t i = 0; i < n; ++i)
    {
        auto [q, ifs] = link(gws.Get(1), receivers.Get(i), 1e9, 48, access);
        dst.push_back(ifs.GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<QueueDisc> q = bq.Get(0);
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnPackets));
    q->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));

    g_rx.assign(n, 0);
    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    for (uint32_t i = 0; i < n; ++i)
    {
        uint16_t port = 5000 + i;
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(dst[i], port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer a = src.Install(senders.Get(i));
        a.Start(Seconds(start->GetValue(0, 1)));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receivers.Get(i));
        s.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, size_t(i)));
    }
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    OnPackets(0, 0);
    double span = g_to - g_from;
    std::cout << std::setprecision(8) << "{\"seed\": " << seed << ", \"newreno\": " << newreno
              << ", \"target_ms\": " << target_ms << ", \"gain\": " << gain
              << ", \"buffer\": " << buffer << ", \"delack\": " << delack
              << ", \"goodput_mbps\": [";
    for (uint32_t i = 0; i < n; ++i)
    {
        std::cout << (i ? ", " : "") << g_rx[i] * 8 / span / 1e6;
    }
    std::cout << "], \"mean_qdisc_pkts\": " << g_q.integral / span
              << ", \"mean_sojourn_ms\": "
              << (g_q.dequeued ? 1e3 * g_q.sojourn_sum / g_q.dequeued : 0.0)
              << ", \"drops\": " << g_q.drops << "}" << std::endl;
    Simulator::Destroy();
    return 0;
}
