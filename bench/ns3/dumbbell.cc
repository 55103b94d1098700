// ns-3 3.37 transcription of bench/ns3/dumbbell.toml, for a whole-run comparison with aqmlab.
//
// 4 senders s1..s4 -> gw1 -> gw2 -> r1..r4. Access links 100 Mb/s, sender side 1/2/3/4 ms,
// receiver side 1 ms; bottleneck gw1 -> gw2 10 Mb/s, 20 ms (base RTTs 44, 46, 48, 50 ms).
// One bulk TCP NewReno flow per pair (SACK on, no timestamps, MSS 1460, so a full data packet is
// 1500 B of IP), 60 s. The bottleneck queue discipline (both directions) is --qdisc:
//   droptail  ns3::FifoQueueDisc      MaxSize 100p
//   codel     ns3::CoDelQueueDisc     MaxSize 100p, Target 5 ms, Interval 100 ms (MinBytes 1500)
//   pie       ns3::PieQueueDisc       MaxSize 100p, every other attribute at its default
// Every NetDevice has a 1-packet DropTailQueue so that the queue builds in the discipline.
// Access-link disciplines are FifoQueueDisc 1000p (aqmlab's droptail default); they never drop.
//
// Output: one JSON object on stdout, for the forward bottleneck (gw1 -> gw2): packet counts,
// drops by the discipline (total, before enqueue / after dequeue, by ns-3's reason string),
// utilization (IP bytes), qdisc_sojourn_ms (enqueue -> dequeue from the discipline) and
// queue_delay_ms (enqueue -> first bit on the wire, which includes the wait in the 1-packet
// device queue; aqmlab's sojourn is this one) as n/mean/p50/p75/p95/p99/max; per flow the bytes
// delivered to the sink, goodput, data packets offered to the bottleneck, retransmissions among
// them, drops, RTOs (entries into CA_LOSS) and fast recoveries (CA_RECOVERY); each sink's
// cumulative bytes at every whole second; Jain's index of goodput and of drops.
// Options: --qdisc, --cc (newreno | linuxreno), --recovery (classic | prr), --starts, --run,
// --limit, --duration, --packetLog FILE, --compensatePpp, --delAckTimeout (--help lists them).
//
// Build (one line): g++ -O2 -std=c++17 dumbbell.cc -o dumbbell -Wl,--no-as-needed
//   -lns3-core -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications
//   -lns3-traffic-control
// (bench/ns3/compare.py does this.)

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

constexpr int N = 4;
constexpr uint32_t PPP_HEADER = 2; // PointToPointNetDevice adds a 2-byte PPP header

struct FlowStats
{
    uint64_t dataPktsAtBottleneck = 0; // data segments offered to the bottleneck discipline
    uint64_t retransmits = 0;          // of those, segments below the flow's highest sequence
    uint64_t drops = 0;                // dropped by the bottleneck discipline
    uint32_t highestSeqEnd = 0;        // highest sequence number + payload seen (relative to ISN 0)
    bool seen = false;
    uint64_t rtos = 0;           // entries into CA_LOSS
    uint64_t fastRecoveries = 0; // entries into CA_RECOVERY
};

std::vector<FlowStats> g_flows(N);
std::map<uint32_t, int> g_flowOfAddr;          // sender IPv4 address -> flow index
struct InQueue
{
    int64_t enqNs;
    int64_t deqNs;
    int flow;
};

std::unordered_map<uint64_t, InQueue> g_inQueue; // packet uid -> times (ns), until it is sent
std::ofstream g_log;                             // --packetLog: one line per sent or dropped packet
std::vector<double> g_qdiscSojournMs;          // enqueue -> dequeue from the discipline
std::vector<double> g_txDelayMs;               // enqueue -> first bit on the wire
uint64_t g_enqueued = 0;
uint64_t g_dequeued = 0;
uint64_t g_dropsBeforeEnqueue = 0;
uint64_t g_dropsAfterDequeue = 0;
std::map<std::string, uint64_t> g_dropReasons;
uint64_t g_txBytesIp = 0; // IP bytes fully transmitted on the bottleneck (PPP header excluded)
uint64_t g_txPkts = 0;
uint64_t g_deviceQueueDrops = 0;
uint32_t g_maxBacklog = 0;
Ptr<QueueDisc> g_bottleneckQdisc;

int
FlowOf(Ptr<const QueueDiscItem> item)
{
    auto ipItem = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ipItem)
    {
        return -1;
    }
    auto it = g_flowOfAddr.find(ipItem->GetHeader().GetSource().Get());
    return it == g_flowOfAddr.end() ? -1 : it->second;
}

void
OnEnqueue(Ptr<const QueueDiscItem> item)
{
    g_enqueued++;
    int f = FlowOf(item);
    g_inQueue[item->GetPacket()->GetUid()] = {Simulator::Now().GetNanoSeconds(), -1, f};
    g_maxBacklog = std::max(g_maxBacklog, g_bottleneckQdisc->GetNPackets());
    if (f < 0)
    {
        return;
    }
    TcpHeader tcp;
    Ptr<Packet> p = item->GetPacket()->Copy();
    p->RemoveHeader(tcp);
    uint32_t payload = p->GetSize();
    if (payload == 0)
    {
        return;
    }
    FlowStats& fs = g_flows[f];
    fs.dataPktsAtBottleneck++;
    uint32_t seq = tcp.GetSequenceNumber().GetValue();
    uint32_t end = seq + payload;
    if (fs.seen && seq < fs.highestSeqEnd)
    {
        fs.retransmits++;
    }
    if (!fs.seen || end > fs.highestSeqEnd)
    {
        fs.highestSeqEnd = end;
    }
    fs.seen = true;
}

void
OnDequeue(Ptr<const QueueDiscItem> item)
{
    g_dequeued++;
    g_qdiscSojournMs.push_back((Simulator::Now() - item->GetTimeStamp()).GetNanoSeconds() / 1e6);
    auto it = g_inQueue.find(item->GetPacket()->GetUid());
    if (it != g_inQueue.end())
    {
        it->second.deqNs = Simulator::Now().GetNanoSeconds();
    }
}

void
OnDrop(bool beforeEnqueue, Ptr<const QueueDiscItem> item, const char* reason)
{
    (beforeEnqueue ? g_dropsBeforeEnqueue : g_dropsAfterDequeue)++;
    g_dropReasons[reason]++;
    g_inQueue.erase(item->GetPacket()->GetUid());
    int f = FlowOf(item);
    if (f >= 0)
    {
        g_flows[f].drops++;
    }
    if (g_log.is_open())
    {
        g_log << Simulator::Now().GetNanoSeconds() << ","
              << (beforeEnqueue ? "drop_enqueue" : "drop_dequeue") << "," << f << ",,\n";
    }
}

void
OnPhyTxBegin(Ptr<const Packet> p)
{
    auto it = g_inQueue.find(p->GetUid());
    if (it == g_inQueue.end())
    {
        return;
    }
    int64_t now = Simulator::Now().GetNanoSeconds();
    const InQueue& q = it->second;
    g_txDelayMs.push_back((now - q.enqNs) / 1e6);
    if (g_log.is_open())
    {
        g_log << now << ",tx," << q.flow << "," << q.deqNs - q.enqNs << "," << now - q.enqNs
              << "\n";
    }
    g_inQueue.erase(it);
}

void
OnPhyTxEnd(Ptr<const Packet> p)
{
    g_txBytesIp += p->GetSize() - PPP_HEADER;
    g_txPkts++;
}

void
OnDeviceQueueDrop(Ptr<const Packet>)
{
    g_deviceQueueDrops++;
}

void
OnCongState(int f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        g_flows[f].rtos++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        g_flows[f].fastRecoveries++;
    }
}

void
ConnectSocketTrace(uint32_t nodeId, int flow)
{
    std::ostringstream path;
    path << "/NodeList/" << nodeId << "/$ns3::TcpL4Protocol/SocketList/0/CongState";
    Config::ConnectWithoutContext(path.str(), MakeBoundCallback(&OnCongState, flow));
}

std::string
Quantiles(std::vector<double> v)
{
    std::ostringstream o;
    o << std::setprecision(6);
    if (v.empty())
    {
        return "null";
    }
    std::sort(v.begin(), v.end());
    // nearest-rank quantile
    auto q = [&](double x) {
        size_t k = static_cast<size_t>(std::ceil(x * v.size()));
        return v[k == 0 ? 0 : k - 1];
    };
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    o << "{\"n\": " << v.size() << ", \"mean\": " << sum / v.size() << ", \"p50\": " << q(0.5)
      << ", \"p75\": " << q(0.75) << ", \"p95\": " << q(0.95) << ", \"p99\": " << q(0.99)
      << ", \"max\": " << v.back() << "}";
    return o.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string qdisc = "droptail";
    std::string recovery = "classic";
    double duration = 60.0;
    uint32_t run = 1;
    uint32_t limit = 100;
    bool compensatePpp = true;
    std::string delAckTimeout = "40ms";
    std::string cc = "newreno";
    std::string starts = "0,0,0,0";
    std::string packetLog;

    CommandLine cmd(__FILE__);
    cmd.AddValue("qdisc", "bottleneck discipline: droptail, codel or pie", qdisc);
    cmd.AddValue("recovery", "TCP loss recovery: classic (RFC 6675 pipe, cwnd = ssthresh) or prr "
                             "(ns-3's default)", recovery);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("run", "RngRun (only PIE draws random numbers)", run);
    cmd.AddValue("limit", "bottleneck buffer in packets", limit);
    cmd.AddValue("compensatePpp",
                 "raise link rates by 1502/1500 so that a 1500-B IP packet takes as long as in "
                 "aqmlab (which has no link-layer header)",
                 compensatePpp);
    cmd.AddValue("delAckTimeout", "delayed-ACK timeout", delAckTimeout);
    cmd.AddValue("cc",
                 "congestion control: newreno (ns3::TcpNewReno) or linuxreno (ns3::TcpLinuxReno, "
                 "per-segment window growth as aqmlab's byte counting)",
                 cc);
    cmd.AddValue("starts", "start time of each flow in seconds, comma-separated", starts);
    cmd.AddValue("packetLog",
                 "write t_ns,event,flow,qdisc_sojourn_ns,queue_delay_ns for every packet sent or "
                 "dropped by the bottleneck discipline to this file",
                 packetLog);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);

    // TCP: NewReno + SACK, MSS 1460, no timestamps (so data packets are 20 + 20 + 1460 = 1500 B),
    // window scaling on (it only adds bytes to the SYNs) with 4 MB buffers so the receive window
    // never limits, IW 10, delayed ACK every 2nd segment or 40 ms, min RTO 200 ms, no clock
    // granularity term in the RTO (aqmlab: G = 0).
    if (cc == "newreno")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpNewReno::GetTypeId()));
    }
    else if (cc == "linuxreno")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpLinuxReno::GetTypeId()));
    }
    else
    {
        std::cerr << "dumbbell: --cc must be newreno or linuxreno, got " << cc << "\n";
        return 2;
    }
    std::vector<double> startS;
    {
        std::istringstream in(starts);
        std::string tok;
        while (std::getline(in, tok, ','))
        {
            startS.push_back(std::stod(tok));
        }
        if (startS.size() != N)
        {
            std::cerr << "dumbbell: --starts needs " << N << " comma-separated times\n";
            return 2;
        }
    }
    if (!packetLog.empty())
    {
        g_log.open(packetLog);
        g_log << "t_ns,event,flow,qdisc_sojourn_ns,queue_delay_ns\n";
    }
    if (recovery == "classic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpClassicRecovery::GetTypeId()));
    }
    else if (recovery == "prr")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpPrrRecovery::GetTypeId()));
    }
    else
    {
        std::cerr << "dumbbell: --recovery must be classic or prr, got " << recovery << "\n";
        return 2;
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Time(delAckTimeout)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(NanoSeconds(0)));

    NodeContainer senders;
    NodeContainer receivers;
    NodeContainer gws;
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
    access.SetDeviceAttribute("DataRate", rate(100e6));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", rate(10e6));
    bottleneck.SetChannelAttribute("Delay", StringValue("20ms"));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));

    TrafficControlHelper accessTc;
    accessTc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("1000p"));
    TrafficControlHelper bottleneckTc;
    std::string lim = std::to_string(limit) + "p";
    if (qdisc == "droptail")
    {
        bottleneckTc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(lim));
    }
    else if (qdisc == "codel")
    {
        bottleneckTc.SetRootQueueDisc("ns3::CoDelQueueDisc",
                                      "MaxSize",
                                      StringValue(lim),
                                      "Target",
                                      StringValue("5ms"),
                                      "Interval",
                                      StringValue("100ms"));
    }
    else if (qdisc == "pie")
    {
        bottleneckTc.SetRootQueueDisc("ns3::PieQueueDisc", "MaxSize", StringValue(lim));
    }
    else
    {
        std::cerr << "dumbbell: --qdisc must be droptail, codel or pie, got " << qdisc << "\n";
        return 2;
    }

    Ipv4AddressHelper addr;
    const char* senderDelay[N] = {"1ms", "2ms", "3ms", "4ms"};
    std::vector<Ipv4Address> receiverAddr(N);
    for (int i = 0; i < N; i++)
    {
        access.SetChannelAttribute("Delay", StringValue(senderDelay[i]));
        NetDeviceContainer d = access.Install(senders.Get(i), gws.Get(0));
        accessTc.Install(d); // before Assign, which would install ns-3's default (FqCoDel)
        std::ostringstream net;
        net << "10.1." << i + 1 << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        g_flowOfAddr[ifs.GetAddress(0).Get()] = i;
    }
    for (int i = 0; i < N; i++)
    {
        access.SetChannelAttribute("Delay", StringValue("1ms"));
        NetDeviceContainer d = access.Install(gws.Get(1), receivers.Get(i));
        accessTc.Install(d);
        std::ostringstream net;
        net << "10.2." << i + 1 << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        receiverAddr[i] = addr.Assign(d).GetAddress(1);
    }
    NetDeviceContainer bd = bottleneck.Install(gws.Get(0), gws.Get(1));
    QueueDiscContainer bq = bottleneckTc.Install(bd);
    addr.SetBase("10.3.1.0", "255.255.255.0");
    addr.Assign(bd);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Traces on the forward bottleneck (gw1 -> gw2).
    g_bottleneckQdisc = bq.Get(0);
    g_bottleneckQdisc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
    g_bottleneckQdisc->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnDequeue));
    g_bottleneckQdisc->TraceConnectWithoutContext("DropBeforeEnqueue",
                                                  MakeBoundCallback(&OnDrop, true));
    g_bottleneckQdisc->TraceConnectWithoutContext("DropAfterDequeue",
                                                  MakeBoundCallback(&OnDrop, false));
    Ptr<PointToPointNetDevice> gw1dev = DynamicCast<PointToPointNetDevice>(bd.Get(0));
    gw1dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTxBegin));
    gw1dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OnPhyTxEnd));
    gw1dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnDeviceQueueDrop));

    // Applications: a bulk sender on each s_i to a sink on r_i, all starting at 0.
    uint16_t port = 5000;
    std::vector<Ptr<PacketSink>> sinks;
    for (int i = 0; i < N; i++)
    {
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(receiverAddr[i], port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(1460));
        ApplicationContainer a = src.Install(senders.Get(i));
        a.Start(Seconds(startS[i]));
        a.Stop(Seconds(duration));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receivers.Get(i));
        s.Start(Seconds(0));
        s.Stop(Seconds(duration + 1));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
    }
    // The bulk senders create their sockets when they start.
    for (int i = 0; i < N; i++)
    {
        Simulator::Schedule(Seconds(startS[i]) + NanoSeconds(1),
                            &ConnectSocketTrace,
                            senders.Get(i)->GetId(),
                            i);
    }
    // Cumulative bytes delivered to each sink, sampled every second (for windowed goodput).
    std::vector<std::vector<uint64_t>> rxSeries(N);
    int nSamples = static_cast<int>(std::floor(duration + 1e-9));
    for (int k = 1; k <= nSamples; k++)
    {
        Simulator::Schedule(Seconds(k) - NanoSeconds(1), [&sinks, &rxSeries]() {
            for (int i = 0; i < N; i++)
            {
                rxSeries[i].push_back(sinks[i]->GetTotalRx());
            }
        });
    }
    std::vector<uint64_t> rx(N, 0);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    for (int i = 0; i < N; i++)
    {
        rx[i] = sinks[i]->GetTotalRx();
    }
    QueueDisc::Stats st = g_bottleneckQdisc->GetStats();

    double total = 0;
    double sumSq = 0;
    std::vector<double> goodput(N);
    for (int i = 0; i < N; i++)
    {
        goodput[i] = rx[i] * 8.0 / (duration - startS[i]); // aqmlab: ÷ time since the start
        total += goodput[i];
        sumSq += goodput[i] * goodput[i];
    }
    double jain = sumSq > 0 ? total * total / (N * sumSq) : 0;
    double dropSum = 0;
    double dropSq = 0;
    for (int i = 0; i < N; i++)
    {
        dropSum += g_flows[i].drops;
        dropSq += double(g_flows[i].drops) * g_flows[i].drops;
    }
    double jainDrops = dropSq > 0 ? dropSum * dropSum / (N * dropSq) : 1.0;

    std::ostringstream o;
    o << std::setprecision(8);
    o << "{\n  \"simulator\": \"ns-3.37\",\n  \"qdisc\": \"" << qdisc << "\",\n  \"cc\": \"" << cc
      << "\",\n  \"recovery\": \"" << recovery << "\",\n  \"run\": " << run << ",\n  \"duration_s\": " << duration
      << ",\n  \"bottleneck\": {\n";
    o << "    \"enqueued_pkts\": " << g_enqueued << ",\n";
    o << "    \"dequeued_pkts\": " << g_dequeued << ",\n";
    o << "    \"transmitted_pkts\": " << g_txPkts << ",\n";
    o << "    \"dropped_pkts\": " << st.nTotalDroppedPackets << ",\n";
    o << "    \"dropped_before_enqueue\": " << g_dropsBeforeEnqueue << ",\n";
    o << "    \"dropped_after_dequeue\": " << g_dropsAfterDequeue << ",\n";
    o << "    \"drops_by_reason\": {";
    bool first = true;
    for (auto& [k, v] : g_dropReasons)
    {
        o << (first ? "" : ", ") << "\"" << k << "\": " << v;
        first = false;
    }
    o << "},\n";
    o << "    \"device_queue_drops\": " << g_deviceQueueDrops << ",\n";
    o << "    \"max_backlog_pkts\": " << g_maxBacklog << ",\n";
    o << "    \"utilization\": " << g_txBytesIp * 8.0 / (10e6 * duration) << ",\n";
    o << "    \"qdisc_sojourn_ms\": " << Quantiles(g_qdiscSojournMs) << ",\n";
    o << "    \"queue_delay_ms\": " << Quantiles(g_txDelayMs) << "\n  },\n";
    o << "  \"flows\": [\n";
    for (int i = 0; i < N; i++)
    {
        const FlowStats& f = g_flows[i];
        o << "    {\"id\": " << i << ", \"delivered_bytes\": " << rx[i]
          << ", \"goodput_bps\": " << goodput[i]
          << ", \"data_pkts_at_bottleneck\": " << f.dataPktsAtBottleneck
          << ", \"retransmits\": " << f.retransmits << ", \"dropped_pkts\": " << f.drops
          << ", \"rtos\": " << f.rtos << ", \"fast_recoveries\": " << f.fastRecoveries << "}"
          << (i + 1 < N ? "," : "") << "\n";
    }
    o << "  ],\n";
    o << "  \"rx_bytes_each_s\": [";
    for (int i = 0; i < N; i++)
    {
        o << (i ? ", " : "") << "[";
        for (size_t k = 0; k < rxSeries[i].size(); k++)
        {
            o << (k ? ", " : "") << rxSeries[i][k];
        }
        o << "]";
    }
    o << "],\n";
    o << "  \"total_goodput_bps\": " << total << ",\n";
    o << "  \"fairness\": {\"jain_goodput\": " << jain << ", \"jain_drops\": " << jainDrops
      << "}\n}\n";
    std::cout << o.str();
    Simulator::Destroy();
    return 0;
}
