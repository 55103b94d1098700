// Issue 22's DCTCP check built in ns-3 3.37: N bulk TcpDctcp flows through a RED step marker.
//
// N senders s_i -> gw1 -> gw2 -> r_i. Access links 1 Gb/s x 20 ms on both sides, bottleneck
// gw1 -> gw2 100 Mb/s x 10 ms (base RTT 2 x (20 + 10 + 20) = 100 ms). RedQueueDisc on both
// bottleneck devices as a step marker at K packets (the DCTCP paper's K = 20 and 65): UseEcn
// true, UseHardDrop false, MinTh = MaxTh = K, QW 1, Gentle false, MaxSize --limit packets,
// LinkBandwidth/LinkDelay the bottleneck's, MeanPktSize 1500. Access links get a 10 000-packet
// FifoQueueDisc (so that Ipv4AddressHelper does not install FqCoDel). TCP: TcpDctcp (which
// turns ECN on with ECT(0) and echoes CE the DCTCP way at the receiver), classic recovery
// (cwnd = ssthresh, aqmlab's default; --recovery=prr for ns-3's default), SACK on, no
// timestamps (SegmentSize 1460: 1500-byte IP packets, as aqmlab's 40-byte headers), InitialCwnd
// 10, DelAckCount 2 with DelAckTimeout 200 ms (ns-3's defaults), MinRto 1 s (ns-3's default),
// 16 MiB socket buffers (ns-3's 128 KiB would cap the windows), device queues 1p, device rates
// raised by 1502/1500 so that a 1500-byte IP packet takes 120 us at 100 Mb/s as in aqmlab.
// Flows start at U[0, 1) s drawn with RngRun = --seed.
//
// Measured over [--from, --to) on the forward bottleneck and printed as one JSON object:
//  * goodput: bytes delivered to the sinks, Mb/s (sum and per flow);
//  * the time-averaged packets in the queue disc (integral of its PacketsInQueue trace) and in
//    the device queue below it;
//  * marks (the queue disc's Mark trace) and drops (DropBeforeEnqueue);
//  * per flow: time-averaged cwnd (segments), entries into CA_RECOVERY and CA_LOSS, the last
//    DCTCP alpha (CongestionEstimate trace).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t PPP_HEADER = 2;
double g_from = 10.0;
double g_to = 30.0;

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
uint64_t g_marks = 0;
uint64_t g_drops = 0;
uint64_t g_txBytesIp = 0;

struct Flow
{
    uint64_t recoveries = 0;
    uint64_t rtos = 0;
    TimeAverage cwndSeg;
    double alpha = -1;
    uint64_t rxAtFrom = 0;
    uint64_t rxAtTo = 0;
};

std::vector<Flow> g_flows;

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
OnMark(Ptr<const QueueDiscItem>, const char*)
{
    if (InWindow())
    {
        g_marks++;
    }
}

void
OnDrop(Ptr<const QueueDiscItem>, const char*)
{
    if (InWindow())
    {
        g_drops++;
    }
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
    g_flows[f].cwndSeg.Set(double(now) / 1460.0);
}

void
OnAlpha(int f, uint32_t, uint32_t, double alpha)
{
    if (Simulator::Now().GetSeconds() < g_to)
    {
        g_flows[f].alpha = alpha;
    }
}

void
ConnectSocketTraces(uint32_t nodeId, int f)
{
    std::ostringstream base;
    base << "/NodeList/" << nodeId << "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(base.str() + "CongState", MakeBoundCallback(&OnCongState, f));
    Config::ConnectWithoutContext(base.str() + "CongestionWindow", MakeBoundCallback(&OnCwnd, f));
    Config::ConnectWithoutContext(base.str() + "CongestionOps/$ns3::TcpDctcp/CongestionEstimate",
                                  MakeBoundCallback(&OnAlpha, f));
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t seed = 1;
    uint32_t flows = 2;
    uint32_t k = 20;
    uint32_t limit = 1000;
    double duration = 30.0;
    std::string recovery = "classic";

    CommandLine cmd(__FILE__);
    cmd.AddValue("seed", "RngRun: draws the flows' start times from U[0, 1) s", seed);
    cmd.AddValue("flows", "number of sender/receiver pairs", flows);
    cmd.AddValue("k", "marking threshold K in packets (RED MinTh = MaxTh)", k);
    cmd.AddValue("limit", "RED MaxSize in packets", limit);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("from", "start of the measurement window (s)", g_from);
    cmd.AddValue("to", "end of the measurement window (s)", g_to);
    cmd.AddValue("recovery", "classic (TcpClassicRecovery) or prr (ns-3's default)", recovery);
    cmd.Parse(argc, argv);
    const int n = static_cast<int>(flows);
    g_flows.resize(n);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpDctcp::GetTypeId()));
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
        std::cerr << "dctcp: --recovery must be prr or classic\n";
        return 2;
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16777216));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(16777216));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));

    Config::SetDefault("ns3::RedQueueDisc::UseEcn", BooleanValue(true));
    Config::SetDefault("ns3::RedQueueDisc::UseHardDrop", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::Gentle", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::QW", DoubleValue(1.0));
    Config::SetDefault("ns3::RedQueueDisc::MinTh", DoubleValue(k));
    Config::SetDefault("ns3::RedQueueDisc::MaxTh", DoubleValue(k));
    Config::SetDefault("ns3::RedQueueDisc::MeanPktSize", UintegerValue(1500));
    Config::SetDefault("ns3::RedQueueDisc::LinkBandwidth", DataRateValue(DataRate("100Mbps")));
    Config::SetDefault("ns3::RedQueueDisc::LinkDelay", TimeValue(MilliSeconds(10)));
    Config::SetDefault("ns3::RedQueueDisc::MaxSize",
                       QueueSizeValue(QueueSize(std::to_string(limit) + "p")));

    NodeContainer senders;
    NodeContainer gws;
    NodeContainer receivers;
    senders.Create(n);
    gws.Create(2);
    receivers.Create(n);
    InternetStackHelper stack;
    stack.InstallAll();

    const double scale = 1502.0 / 1500.0;
    auto rate = [&](double bps) {
        return DataRateValue(DataRate(static_cast<uint64_t>(std::llround(bps * scale))));
    };
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", rate(1e9));
    access.SetChannelAttribute("Delay", StringValue("20ms"));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", rate(100e6));
    bottleneck.SetChannelAttribute("Delay", StringValue("10ms"));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));

    TrafficControlHelper accessTc;
    accessTc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("10000p"));
    TrafficControlHelper bottleneckTc;
    bottleneckTc.SetRootQueueDisc("ns3::RedQueueDisc");

    Ipv4AddressHelper addr;
    std::vector<Ipv4Address> receiverAddr(n);
    for (int i = 0; i < n; i++)
    {
        NetDeviceContainer dev = access.Install(senders.Get(i), gws.Get(0));
        accessTc.Install(dev);
        std::ostringstream net;
        net << "10.1." << i + 1 << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        addr.Assign(dev);
    }
    for (int i = 0; i < n; i++)
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
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQdiscPackets));
    q->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDrop));
    Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(bd.Get(0));
    dev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnDevPackets));
    dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnPhyTxEnd));

    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetAttribute("Min", DoubleValue(0.0));
    u->SetAttribute("Max", DoubleValue(1.0));
    std::vector<double> start(n);
    std::vector<Ptr<PacketSink>> sinks;
    uint16_t port = 5000;
    for (int i = 0; i < n; i++)
    {
        start[i] = u->GetValue();
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(receiverAddr[i], port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(1460));
        ApplicationContainer a = src.Install(senders.Get(i));
        a.Start(Seconds(start[i]));
        a.Stop(Seconds(duration));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receivers.Get(i));
        s.Start(Seconds(0));
        s.Stop(Seconds(duration + 1));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        Simulator::Schedule(Seconds(start[i]) + NanoSeconds(1),
                            &ConnectSocketTraces,
                            senders.Get(i)->GetId(),
                            i);
    }
    Simulator::Schedule(Seconds(g_from), [&sinks, n]() {
        for (int i = 0; i < n; i++)
        {
            g_flows[i].rxAtFrom = sinks[i]->GetTotalRx();
        }
    });
    Simulator::Schedule(Seconds(g_to) - NanoSeconds(1), [&sinks, n]() {
        for (int i = 0; i < n; i++)
        {
            g_flows[i].rxAtTo = sinks[i]->GetTotalRx();
        }
    });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    g_qdiscPkts.Advance();
    g_devPkts.Advance();

    double w = g_to - g_from;
    double goodput = 0;
    for (const Flow& f : g_flows)
    {
        goodput += (f.rxAtTo - f.rxAtFrom) * 8.0 / w / 1e6;
    }
    std::ostringstream o;
    o << std::setprecision(6);
    o << "{\"seed\": " << seed << ", \"flows_n\": " << n << ", \"k\": " << k
      << ", \"limit\": " << limit << ", \"recovery\": \"" << recovery << "\", \"window_s\": ["
      << g_from << ", " << g_to << "],\n \"goodput_mbps\": " << goodput
      << ", \"mean_qdisc_pkts\": " << g_qdiscPkts.Mean()
      << ", \"mean_device_queue_pkts\": " << g_devPkts.Mean() << ", \"marks\": " << g_marks
      << ", \"drops\": " << g_drops << ", \"utilization\": " << g_txBytesIp * 8.0 / (100e6 * w)
      << ",\n \"flows\": [";
    for (int i = 0; i < n; i++)
    {
        const Flow& f = g_flows[i];
        o << (i ? ",\n   " : "") << "{\"start_s\": " << start[i]
          << ", \"goodput_mbps\": " << (f.rxAtTo - f.rxAtFrom) * 8.0 / w / 1e6
          << ", \"recoveries\": " << f.recoveries << ", \"rtos\": " << f.rtos
          << ", \"mean_cwnd_seg\": " << f.cwndSeg.Mean() << ", \"alpha\": " << f.alpha << "}";
    }
    o << "]}\n";
    std::cout << o.str();
    Simulator::Destroy();
    return 0;
}
