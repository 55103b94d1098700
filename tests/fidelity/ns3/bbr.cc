// Issue 22's BBR v1 check built in ns-3 3.37: one TcpBbr flow, alone or beside one TcpCubic
// flow, through a tail-drop bottleneck.
//
// s_i -> gw1 -> gw2 -> r_i. Access links 1 Gb/s x 20 ms on both sides, bottleneck gw1 -> gw2
// 10 Mb/s x 10 ms (base RTT 2 x (20 + 10 + 20) = 100 ms, BDP 83 packets of 1500 B) with a
// FifoQueueDisc of --buffer packets (83 or 1000). TCP: flow 0 TcpBbr (which turns pacing on for
// its own socket), flow 1 (--mix=cubic) TcpCubic unpaced; PRR recovery (ns-3's default, which
// TcpBbr's CongControl bypasses), SACK on, no timestamps, SegmentSize 1460 (1500-byte IP
// packets), InitialCwnd 10, DelAckCount 2 with DelAckTimeout 200 ms, MinRto 1 s, 16 MiB socket
// buffers, device queues 1p, device rates raised by 1502/1500 so that a 1500-byte IP packet takes
// 1.2 ms at 10 Mb/s as in aqmlab. Flows start at U[0, 1) s drawn with RngRun = --seed.
//
// Measured over [--from, --to): goodput per flow (bytes delivered to the sinks), the
// time-averaged packets in the queue disc and the device queue, drops; per flow the entries into
// CA_RECOVERY and CA_LOSS (retransmission timeouts) over the whole run: ns-3 3.37's TcpBbr loses
// its bandwidth estimate after a timeout (ns-3 issues #735, #1026, fixed in 3.41-3.42), so only
// runs whose BBR flow has no timeout are comparable (tests/fidelity/ns3/bbr.md).

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

// --trace reads TcpBbr's model (BtlBw filter, RTprop, mode, gains) and the socket's TCB, which
// ns-3 3.37 keeps private or protected with no trace source or getter. Only for this trace
// program: the two headers are read with every member public (the layout does not change), and
// nothing is written through them.
#define private public
#define protected public
#include "ns3/tcp-bbr.h"
#include "ns3/tcp-socket-base.h"
#undef private
#undef protected

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

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
uint64_t g_drops = 0;
uint64_t g_txBytesIp = 0;

struct Flow
{
    uint64_t recoveries = 0;
    uint64_t rtos = 0;
    TimeAverage cwndSeg;
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
    // Counted over the whole run: one timeout spoils 3.37's TcpBbr for the rest of it.
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
ConnectSocketTraces(uint32_t nodeId, int f)
{
    std::ostringstream base;
    base << "/NodeList/" << nodeId << "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(base.str() + "CongState", MakeBoundCallback(&OnCongState, f));
    Config::ConnectWithoutContext(base.str() + "CongestionWindow", MakeBoundCallback(&OnCwnd, f));
}

/// --trace: every --trace-every seconds, flow 0's (TcpBbr) model and window, flow 1's (CUBIC,
/// if any) window and state, and the bottleneck queue: one CSV row.
std::ofstream g_trace;
double g_traceEvery = 0.01;
Ptr<TcpSocketBase> g_bbrSocket;
Ptr<TcpSocketBase> g_cubicSocket;

Ptr<TcpSocketBase>
FirstSocket(Ptr<Node> sender)
{
    Ptr<TcpL4Protocol> tcp = sender->GetObject<TcpL4Protocol>();
    ObjectVectorValue sockets;
    tcp->GetAttribute("SocketList", sockets);
    return sockets.GetN() ? DynamicCast<TcpSocketBase>(sockets.Get(0)) : nullptr;
}

void
TraceBbr()
{
    Ptr<TcpSocketState> tcb = g_bbrSocket->m_tcb;
    Ptr<TcpBbr> bbr = DynamicCast<TcpBbr>(g_bbrSocket->m_congestionControl);
    if (bbr)
    {
        double rtprop = bbr->m_rtProp == Time::Max() ? NAN : bbr->m_rtProp.GetSeconds();
        double minRtt = tcb->m_minRtt == Time::Max() ? NAN : tcb->m_minRtt.GetSeconds();
        g_trace << Simulator::Now().GetSeconds() << "," << int(bbr->m_state) << ","
                << bbr->m_maxBwFilter.GetBest().GetBitRate() << "," << rtprop << ","
                << bbr->m_pacingGain << "," << bbr->m_cWndGain << ","
                << tcb->m_pacingRate.Get().GetBitRate() << "," << tcb->m_cWnd.Get() << ","
                << tcb->m_bytesInFlight.Get() << "," << tcb->m_lastRtt.Get().GetSeconds() << ","
                << minRtt << "," << bbr->m_targetCWnd << ","
                << std::max(bbr->m_extraAcked[0], bbr->m_extraAcked[1]) << ","
                << int(tcb->m_congState.Get()) << ",";
        if (g_cubicSocket)
        {
            Ptr<TcpSocketState> c = g_cubicSocket->m_tcb;
            g_trace << c->m_cWnd.Get() << "," << int(c->m_congState.Get()) << ",";
        }
        else
        {
            g_trace << "nan,nan,";
        }
        g_trace << g_qdiscPkts.value << "\n";
    }
    Simulator::Schedule(Seconds(g_traceEvery), &TraceBbr);
}

void
StartCubicTrace(Ptr<Node> sender)
{
    g_cubicSocket = FirstSocket(sender);
}

void
StartTrace(Ptr<Node> sender)
{
    g_bbrSocket = FirstSocket(sender);
    // mode: 0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT (TcpBbr::BbrMode_t); ca_state as
    // TcpSocketState::TcpCongState_t (0 open, 3 recovery, 4 loss).
    g_trace << "t_s,mode,btl_bw_bps,rtprop_s,pacing_gain,cwnd_gain,pacing_rate_bps,cwnd_bytes,"
               "in_flight_bytes,last_rtt_s,min_rtt_s,target_cwnd_bytes,extra_acked_bytes,"
               "ca_state,cubic_cwnd_bytes,cubic_ca_state,qdisc_pkts\n";
    g_trace << std::setprecision(9);
    TraceBbr();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t seed = 1;
    uint32_t buffer = 83;
    std::string mix = "alone";
    double duration = 100.0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("seed", "RngRun: draws the flows' start times from U[0, 1) s", seed);
    cmd.AddValue("buffer", "bottleneck FIFO size in packets", buffer);
    cmd.AddValue("mix", "alone (one BBR flow) or cubic (BBR beside one CUBIC flow)", mix);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("from", "start of the measurement window (s)", g_from);
    cmd.AddValue("to", "end of the measurement window (s)", g_to);
    std::string trace;
    cmd.AddValue("trace", "CSV file for flow 0's TcpBbr state (TraceBbr); none if empty", trace);
    cmd.AddValue("trace-every", "--trace sampling interval (s)", g_traceEvery);
    cmd.Parse(argc, argv);
    if (mix != "alone" && mix != "cubic")
    {
        std::cerr << "bbr: --mix must be alone or cubic\n";
        return 2;
    }
    const int n = mix == "alone" ? 1 : 2;
    g_flows.resize(n);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16777216));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(16777216));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));

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
    bottleneck.SetDeviceAttribute("DataRate", rate(10e6));
    bottleneck.SetChannelAttribute("Delay", StringValue("10ms"));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));

    TrafficControlHelper accessTc;
    accessTc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("10000p"));
    TrafficControlHelper bottleneckTc;
    bottleneckTc.SetRootQueueDisc("ns3::FifoQueueDisc",
                                  "MaxSize",
                                  StringValue(std::to_string(buffer) + "p"));

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
        TypeId cc = i == 0 ? TcpBbr::GetTypeId() : TcpCubic::GetTypeId();
        std::ostringstream path;
        path << "/NodeList/" << senders.Get(i)->GetId() << "/$ns3::TcpL4Protocol/SocketType";
        Config::Set(path.str(), TypeIdValue(cc));
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
        if (i == 0 && !trace.empty())
        {
            g_trace.open(trace);
            if (!g_trace)
            {
                std::cerr << "bbr: cannot write --trace file " << trace << "\n";
                return 2;
            }
            Simulator::Schedule(Seconds(start[i]) + NanoSeconds(2), &StartTrace, senders.Get(i));
        }
        if (i == 1 && !trace.empty())
        {
            Simulator::Schedule(Seconds(start[i]) + NanoSeconds(2),
                                &StartCubicTrace,
                                senders.Get(i));
        }
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
    o << "{\"seed\": " << seed << ", \"mix\": \"" << mix << "\", \"buffer\": " << buffer
      << ", \"window_s\": ["
      << g_from << ", " << g_to << "],\n \"goodput_mbps\": " << goodput
      << ", \"mean_qdisc_pkts\": " << g_qdiscPkts.Mean()
      << ", \"mean_device_queue_pkts\": " << g_devPkts.Mean() << ", \"drops\": " << g_drops
      << ", \"utilization\": " << g_txBytesIp * 8.0 / (10e6 * w)
      << ",\n \"flows\": [";
    for (int i = 0; i < n; i++)
    {
        const Flow& f = g_flows[i];
        o << (i ? ",\n   " : "") << "{\"cc\": \"" << (i == 0 ? "bbr" : "cubic")
          << "\", \"start_s\": " << start[i]
          << ", \"goodput_mbps\": " << (f.rxAtTo - f.rxAtFrom) * 8.0 / w / 1e6
          << ", \"recoveries\": " << f.recoveries << ", \"rtos\": " << f.rtos
          << ", \"mean_cwnd_seg\": " << f.cwndSeg.Mean() << "}";
    }
    o << "]}\n";
    std::cout << o.str();
    Simulator::Destroy();
    return 0;
}
