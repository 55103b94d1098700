// Issue 14's "CoDel, 8 flows" scenario (tests/fidelity/codel.toml) built in ns-3 3.37, to
// measure the figures the issue quotes and to see which ns-3 settings they depend on.
//
// 8 senders s_i -> gw1 -> gw2 -> r_i. Access links 1 Gb/s; sender-side one-way delays
// 39, 41, ..., 53 ms and 1 ms on the receiver side (base RTTs 100-128 ms, as codel.toml);
// bottleneck gw1 -> gw2 100 Mb/s, 10 ms, CoDelQueueDisc (MaxSize 1000p, Target 5 ms, Interval
// 100 ms, MinBytes 1500: ns-3's defaults apart from MaxSize) installed with TrafficControlHelper
// on both bottleneck devices. One BulkSend TCP NewReno flow per pair, SACK on, InitialCwnd 10,
// MinRto 1 s, DelAckCount 1, 1500-byte IP packets, starting at U[0, 1) s (RngRun = --seed),
// 60 s.
//
// Measured over [--from, --to) = [10, 60) s on the forward bottleneck:
//  * drops by the CoDel queue disc (before enqueue = over the limit, after dequeue = CoDel);
//  * the time-averaged number of packets in the queue disc (integral of its PacketsInQueue
//    trace over the window / window length), and the same for the device queue below it;
//  * utilization (IP bytes that finished transmission, PPP header excluded);
//  * per flow: bytes delivered to the sink, entries into CA_RECOVERY and CA_LOSS, the
//    time-averaged cwnd (segments);
//  * CoDel: entries into the dropping state, and how many drops were made while its Count
//    trace (m_count) held each value.
// Everything is printed as one JSON object on stdout.
//
// The options that matter (see README.md): --devQueue (the PointToPointNetDevice queue, ns-3's
// default 100p), --bql, --buf (TCP SndBufSize/RcvBufSize, ns-3's default 131072 B), --recovery
// (prr = ns-3's default TcpPrrRecovery, classic = TcpClassicRecovery), --timestamps (ns-3's
// default true; the segment size is then 1448 so that data packets stay 1500 B),
// --compensatePpp (raise device rates by 1502/1500 so that a 1500-B IP packet takes 120 us).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr int N = 8;
constexpr uint32_t PPP_HEADER = 2;

double g_from = 10.0; // measurement window, seconds
double g_to = 60.0;

bool
InWindow()
{
    double t = Simulator::Now().GetSeconds();
    return t >= g_from && t < g_to;
}

/// Time average of a piecewise-constant value over [g_from, g_to).
struct TimeAverage
{
    double value = 0;
    double lastT = 0;
    double integral = 0;

    void Set(double v)
    {
        Advance();
        value = v;
    }

    void Advance()
    {
        double now = Simulator::Now().GetSeconds();
        double a = std::max(lastT, g_from);
        double b = std::min(now, g_to);
        if (b > a)
        {
            integral += value * (b - a);
        }
        lastT = now;
    }

    double Mean() const
    {
        return integral / (g_to - g_from);
    }
};

TimeAverage g_qdiscPkts;
TimeAverage g_devPkts;
uint64_t g_dropsBeforeEnqueue = 0;
uint64_t g_dropsAfterDequeue = 0;
uint64_t g_dropsWhole = 0;
uint64_t g_devDrops = 0;
uint64_t g_txBytesIp = 0;
uint64_t g_dropStateEntries = 0;
std::map<uint32_t, uint64_t> g_countAtDrop; // CoDel count -> drops made with that count
uint32_t g_count = 0;

struct Flow
{
    uint64_t recoveries = 0;
    uint64_t rtos = 0;
    TimeAverage cwndSeg;
    uint64_t rxAtFrom = 0;
    uint32_t segSize = 1460;
};

std::vector<Flow> g_flows(N);

void
OnQdiscPackets(uint32_t, uint32_t now)
{
    g_qdiscPkts.Set(now);
}

void
OnDevPackets(uint32_t, uint32_t now)
{
    g_devPkts.Set(now);
}

void
OnDropBeforeEnqueue(Ptr<const QueueDiscItem>, const char*)
{
    g_dropsWhole++;
    if (InWindow())
    {
        g_dropsBeforeEnqueue++;
    }
}

void
OnDropAfterDequeue(Ptr<const QueueDiscItem>, const char*)
{
    g_dropsWhole++;
    if (InWindow())
    {
        g_dropsAfterDequeue++;
        g_countAtDrop[g_count]++; // CoDel's count as its Count trace last reported it
    }
}

void
OnCount(uint32_t, uint32_t now)
{
    g_count = now;
}

void
OnDropState(bool, bool now)
{
    if (now && InWindow())
    {
        g_dropStateEntries++;
    }
}

void
OnDevDrop(Ptr<const Packet>)
{
    g_devDrops++;
}

void
OnPhyTxEnd(Ptr<const Packet> p)
{
    if (InWindow())
    {
        g_txBytesIp += p->GetSize() - PPP_HEADER;
    }
}

void
OnCongState(int f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (!InWindow())
    {
        return;
    }
    if (now == TcpSocketState::CA_LOSS)
    {
        g_flows[f].rtos++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        g_flows[f].recoveries++;
    }
}

void
OnCwnd(int f, uint32_t, uint32_t now)
{
    g_flows[f].cwndSeg.Set(double(now) / g_flows[f].segSize);
}

void
ConnectSocketTraces(uint32_t nodeId, int f)
{
    std::ostringstream base;
    base << "/NodeList/" << nodeId << "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(base.str() + "CongState", MakeBoundCallback(&OnCongState, f));
    Config::ConnectWithoutContext(base.str() + "CongestionWindow", MakeBoundCallback(&OnCwnd, f));
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t seed = 1;
    double duration = 60.0;
    std::string devQueue = "100p";
    bool bql = false;
    uint32_t buf = 131072;
    std::string recovery = "prr";
    bool timestamps = true;
    bool compensatePpp = false;
    uint32_t limit = 1000;
    std::string accessQdisc = "1000p";

    CommandLine cmd(__FILE__);
    cmd.AddValue("seed", "RngRun: draws the flows' start times from U[0, 1) s", seed);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("from", "start of the measurement window (s)", g_from);
    cmd.AddValue("to", "end of the measurement window (s)", g_to);
    cmd.AddValue("devQueue",
                 "MaxSize of every PointToPointNetDevice's DropTailQueue (ns-3's default 100p)",
                 devQueue);
    cmd.AddValue("bql", "byte queue limits (DynamicQueueLimits) on the bottleneck device", bql);
    cmd.AddValue("buf", "TCP SndBufSize and RcvBufSize in bytes (ns-3's default 131072)", buf);
    cmd.AddValue("recovery", "prr (TcpPrrRecovery, ns-3's default) or classic", recovery);
    cmd.AddValue("timestamps",
                 "TCP timestamp option (ns-3's default true); SegmentSize is 1448 with it and "
                 "1460 without, so data packets are 1500 B of IP either way",
                 timestamps);
    cmd.AddValue("compensatePpp", "raise device rates by 1502/1500 (the PPP header)", compensatePpp);
    cmd.AddValue("limit", "CoDel MaxSize in packets", limit);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    uint32_t segSize = timestamps ? 1448 : 1460;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    if (recovery == "prr")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpPrrRecovery::GetTypeId()));
    }
    else if (recovery == "classic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpClassicRecovery::GetTypeId()));
    }
    else
    {
        std::cerr << "codel8: --recovery must be prr or classic\n";
        return 2;
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));

    NodeContainer senders;
    NodeContainer gws;
    NodeContainer receivers;
    senders.Create(N);
    gws.Create(2);
    receivers.Create(N);
    InternetStackHelper stack;
    stack.InstallAll();

    double scale = compensatePpp ? 1502.0 / 1500.0 : 1.0;
    auto rate = [&](double bps) {
        return DataRateValue(DataRate(static_cast<uint64_t>(std::llround(bps * scale))));
    };
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", rate(1e9));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(devQueue));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", rate(100e6));
    bottleneck.SetChannelAttribute("Delay", StringValue("10ms"));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(devQueue));

    // Access links: a FIFO that never drops here (without one, Ipv4AddressHelper::Assign
    // would install ns-3's default FqCoDelQueueDisc).
    TrafficControlHelper accessTc;
    accessTc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("10000p"));
    TrafficControlHelper bottleneckTc;
    bottleneckTc.SetRootQueueDisc("ns3::CoDelQueueDisc",
                                  "MaxSize",
                                  StringValue(std::to_string(limit) + "p"));
    if (bql)
    {
        bottleneckTc.SetQueueLimits("ns3::DynamicQueueLimits");
    }

    Ipv4AddressHelper addr;
    std::vector<Ipv4Address> receiverAddr(N);
    for (int i = 0; i < N; i++)
    {
        std::ostringstream d;
        d << 39 + 2 * i << "ms";
        access.SetChannelAttribute("Delay", StringValue(d.str()));
        NetDeviceContainer dev = access.Install(senders.Get(i), gws.Get(0));
        accessTc.Install(dev);
        std::ostringstream net;
        net << "10.1." << i + 1 << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        addr.Assign(dev);
    }
    access.SetChannelAttribute("Delay", StringValue("1ms"));
    for (int i = 0; i < N; i++)
    {
        NetDeviceContainer dev = access.Install(gws.Get(1), receivers.Get(i));
        accessTc.Install(dev);
        std::ostringstream net;
        net << "10.2." << i + 1 << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        receiverAddr[i] = addr.Assign(dev).GetAddress(1);
    }
    NetDeviceContainer bd = bottleneck.Install(gws.Get(0), gws.Get(1));
    QueueDiscContainer bq = bottleneckTc.Install(bd);
    addr.SetBase("10.3.1.0", "255.255.255.0");
    addr.Assign(bd);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<QueueDisc> q = bq.Get(0);
    q->TraceConnectWithoutContext("Count", MakeCallback(&OnCount));
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQdiscPackets));
    q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBeforeEnqueue));
    q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfterDequeue));
    q->TraceConnectWithoutContext("DropState", MakeCallback(&OnDropState));
    Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(bd.Get(0));
    dev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnDevPackets));
    dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnDevDrop));
    dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnPhyTxEnd));

    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetAttribute("Min", DoubleValue(0.0));
    u->SetAttribute("Max", DoubleValue(1.0));
    std::vector<double> start(N);
    std::vector<Ptr<PacketSink>> sinks;
    uint16_t port = 5000;
    for (int i = 0; i < N; i++)
    {
        start[i] = u->GetValue();
        g_flows[i].segSize = segSize;
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(receiverAddr[i], port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(segSize));
        ApplicationContainer a = src.Install(senders.Get(i));
        a.Start(Seconds(start[i]));
        a.Stop(Seconds(duration));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receivers.Get(i));
        s.Start(Seconds(0));
        s.Stop(Seconds(duration + 1));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        // BulkSend creates its socket when it starts.
        Simulator::Schedule(Seconds(start[i]) + NanoSeconds(1),
                            &ConnectSocketTraces,
                            senders.Get(i)->GetId(),
                            i);
    }
    Simulator::Schedule(Seconds(g_from), [&sinks]() {
        for (int i = 0; i < N; i++)
        {
            g_flows[i].rxAtFrom = sinks[i]->GetTotalRx();
        }
    });
    std::vector<uint64_t> rxAtTo(N);
    Simulator::Schedule(Seconds(g_to) - NanoSeconds(1), [&sinks, &rxAtTo]() {
        for (int i = 0; i < N; i++)
        {
            rxAtTo[i] = sinks[i]->GetTotalRx();
        }
    });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    g_qdiscPkts.Advance();
    g_devPkts.Advance();

    double w = g_to - g_from;
    std::ostringstream o;
    o << std::setprecision(6);
    o << "{\"seed\": " << seed << ", \"devQueue\": \"" << devQueue << "\", \"bql\": " << bql
      << ", \"buf\": " << buf << ", \"recovery\": \"" << recovery
      << "\", \"timestamps\": " << timestamps << ", \"window_s\": [" << g_from << ", " << g_to
      << "],\n \"drops\": " << g_dropsBeforeEnqueue + g_dropsAfterDequeue
      << ", \"drops_overlimit\": " << g_dropsBeforeEnqueue
      << ", \"drops_codel\": " << g_dropsAfterDequeue << ", \"drops_whole_run\": " << g_dropsWhole
      << ", \"mean_qdisc_pkts\": " << g_qdiscPkts.Mean()
      << ", \"mean_device_queue_pkts\": " << g_devPkts.Mean()
      << ", \"device_queue_drops\": " << g_devDrops
      << ", \"utilization\": " << g_txBytesIp * 8.0 / (100e6 * w)
      << ", \"dropping_state_entries\": " << g_dropStateEntries << ", \"count_at_drop\": {";
    bool first = true;
    for (auto& [c, n] : g_countAtDrop)
    {
        o << (first ? "" : ", ") << "\"" << c << "\": " << n;
        first = false;
    }
    o << "},\n \"flows\": [";
    for (int i = 0; i < N; i++)
    {
        const Flow& f = g_flows[i];
        o << (i ? ",\n   " : "") << "{\"start_s\": " << start[i]
          << ", \"goodput_mbps\": " << (rxAtTo[i] - f.rxAtFrom) * 8.0 / w / 1e6
          << ", \"recoveries\": " << f.recoveries << ", \"rtos\": " << f.rtos
          << ", \"mean_cwnd_seg\": " << f.cwndSeg.Mean() << "}";
    }
    o << "]}\n";
    std::cout << o.str();
    Simulator::Destroy();
    return 0;
}
