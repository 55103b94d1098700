// Replays an aqmlab schedule CSV through one of ns-3 3.37's queue discs, with no device and no
// TCP, and writes the decisions CSV that `aqmlab replay` writes (vectors/README.md describes both
// formats and the driver semantics; this program follows them). --kind picks the queue disc:
// fq_codel (FqCoDelQueueDisc, the default), fq_cobalt (FqCobaltQueueDisc: the same scheduler
// with a COBALT per flow), fq_pie (FqPieQueueDisc: a PIE per flow), or, on one queue with no
// flows, codel (CoDelQueueDisc), cobalt (CobaltQueueDisc) or pie (PieQueueDisc).
//
// Schedule: header `t_ns,op,size[,flow][,ecn]`. Each `enq` row enqueues one IPv4 packet of `size`
// bytes (IP header included) whose ECN field is `ecn` (not_ect, ect0, ect1, ce; default not_ect).
// The flow id reaches the FQ kinds through a packet filter of our own (FlowIdFilter below): it is
// written into the IPv4 source address and returned by the filter, and the queue disc takes the
// queue index = id mod Flows, exactly like aqmlab's `hash=flow_id`. Each `deq` row calls
// Dequeue() once, except that a `deq` row that finds the discipline empty is skipped when an
// empty dequeue already happened since the last accepted enqueue (the link asks an idle queue
// once). One event per distinct row time is scheduled before the run, so the rows at a time run
// before any event a queue disc scheduled for that time (PIE's periodic update).
//
// Random numbers: every PIE and COBALT (each child of the FQ kinds too) draws from stream 0 of
// seed 1, run 1 (AssignStreams(0)), i.e. from vectors/ns3-uniforms.txt from its first line.
//
// Output: `id,enq_t_ns,outcome,deq_t_ns`, one row per packet in id order. A drop reported while
// an `enq` row is applied (an overflow batch: any packet of the fattest queue, the arrival
// included; PIE's early drop) is `dropped_enqueue`, one reported during a `deq` row (CoDel,
// COBALT) `dropped_dequeue`, both with that row's time. A packet dequeued with CE set that did
// not arrive with CE is `marked`. With --summary, the outcome counts as JSON; for the cobalt kinds
// also `blue_active` (0 or 1: whether a BLUE probability ever left 0) and `blue_drops` (dequeue
// drops that were not CoDel's signal, told by COBALT's Count and Mark traces); with
// --l4sCounts 1, `l4s_after_drop` (packets that arrived ECT(1) or CE and were sent by a dequeue
// call that had dropped a packet before them: CoDel's dropping loop reached them),
// `l4s_dropped_dequeue`
// (ECT(1)/CE arrivals dropped inside a dequeue) and `l4s_target_marked` (ECT(1) arrivals given
// the queue disc's "Target exceeded mark", CoDel's control-law mark, not the CE threshold's).
//
// Options (defaults are the queue discs', except the quantum, which ns-3 takes from the device
// MTU and which has no device here): --schedule FILE --out FILE [--summary FILE] [--limit 10240]
// [--flows 1024] [--quantum 1514] [--dropBatch 64] [--useEcn 1] [--target 5ms]
// [--interval 100ms] (CoDel, COBALT) [--ceThreshold off|TIME] [--setWays 0|N] (N > 0:
// EnableSetAssociativeHash with SetWays N, ns-3's set-associative hash over the filter's value)
// [--kind fq_codel|fq_cobalt|fq_pie|codel|cobalt|pie] [--useL4s 0|1] (UseL4s: ECT(1)/CE
// packets only marked at CeThreshold) [--l4sCounts 0|1] (see Output) [--pdrop 0]
// [--increment 1/256] [--decrement 1/4096] [--blueThreshold 400ms] (COBALT's BLUE)
// [--activeThreshold off|TIME] (pie: the queue disc's ActiveThreshold; fq_pie: every child
// PIE's, through Config::SetDefault, since FqPieQueueDisc has no such attribute of its own and
// builds its children from PieQueueDisc's defaults).
// [--estimator timestamp|dq_rate] (pie, fq_pie: UseDequeueRateEstimator, an attribute of both).
// PIE keeps ns-3's defaults otherwise.
//
// Build (one line; Debian 12 packages ns3 and libns3-dev, ns-3 3.37):
//   g++ -O2 -std=c++17 vectors/tools/fq_replay.cc -o fq_replay -Wl,--no-as-needed -lns3-core
//   -lns3-network -lns3-internet -lns3-traffic-control
// (Debian's ns3-*.pc files carry a broken -I flag, so the libraries are named directly;
// --no-as-needed keeps libraries reached only through ns-3's type registry.)
// vectors/tools/make_fq_vectors.sh builds it and regenerates our vectors.

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

// Classifies a packet by the flow id the driver wrote into its IPv4 source address.
class FlowIdFilter : public PacketFilter
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AqmlabFlowIdFilter")
                                .SetParent<PacketFilter>()
                                .SetGroupName("TrafficControl")
                                .AddConstructor<FlowIdFilter>();
        return tid;
    }

  private:
    bool CheckProtocol(Ptr<QueueDiscItem> item) const override
    {
        return DynamicCast<Ipv4QueueDiscItem>(item) != nullptr;
    }

    int32_t DoClassify(Ptr<QueueDiscItem> item) const override
    {
        uint32_t id = DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetSource().Get();
        // PF_NO_MATCH is -1; the driver refuses flow ids >= 2^31 when reading the schedule.
        return static_cast<int32_t>(id);
    }
};

NS_OBJECT_ENSURE_REGISTERED(FlowIdFilter);

enum class Outcome
{
    QueuedAtEnd,
    Delivered,
    Marked,
    DroppedEnqueue,
    DroppedDequeue,
};

const char*
OutcomeName(Outcome o)
{
    switch (o)
    {
    case Outcome::QueuedAtEnd:
        return "queued_at_end";
    case Outcome::Delivered:
        return "delivered";
    case Outcome::Marked:
        return "marked";
    case Outcome::DroppedEnqueue:
        return "dropped_enqueue";
    case Outcome::DroppedDequeue:
        return "dropped_dequeue";
    }
    return "?";
}

struct Row
{
    uint64_t t;
    bool enq;
    uint32_t size;
    uint32_t flow;
    Ipv4Header::EcnType ecn;
};

struct Decision
{
    uint64_t enqT;
    Outcome outcome = Outcome::QueuedAtEnd;
    int64_t deqT = -1;
    bool arrivedCe = false;
    bool arrivedL4s = false; // ECT(1) or CE on arrival
};

struct Driver
{
    Ptr<QueueDisc> qd;
    std::vector<Row> rows;
    size_t next = 0;
    std::vector<Decision> decisions;
    std::unordered_map<uint64_t, uint64_t> idOfUid; // ns-3 packet uid -> our packet id
    bool inEnqueue = false; // which kind of row is being applied (for drops)
    uint64_t rowT = 0;
    bool idleSeen = false; // an empty dequeue happened since the last accepted enqueue
    uint64_t dequeueCalls = 0, deqSkipped = 0;
    bool blueActive = false; // cobalt kinds: some BLUE probability left 0 (after some row)
    size_t childrenSeen = 0; // FQ kinds: flow queues whose random stream has been assigned
    bool codelRose = false;  // cobalt kinds: CoDel dropped (its count rose, no mark) since reset
    bool codelMarked = false; // cobalt kinds: CoDel's signal being given is a mark
    uint64_t blueDrops = 0;  // cobalt kinds: dequeue drops with no CoDel signal (BLUE's)
    uint64_t dropsThisCall = 0; // drops during the dequeue call being applied
    uint64_t l4sAfterDrop = 0, l4sDroppedDequeue = 0, l4sTargetMarked = 0; // see the summary

    // COBALT's `Count` trace: a CoDel signal raises count from >= 1 by one (the 0 -> 1 steps
    // of a first over-target packet or of an overflow are no signal). The signal is a drop
    // unless COBALT has just marked the packet instead (its `Mark` trace, "Forced mark", comes
    // first), in which case a drop of that packet is BLUE's.
    void OnCount(uint32_t oldCount, uint32_t newCount)
    {
        if (oldCount >= 1 && newCount == oldCount + 1)
        {
            codelRose = codelRose || !codelMarked;
            codelMarked = false;
        }
    }

    void OnMark(Ptr<const QueueDiscItem>, const char* reason)
    {
        codelMarked = std::string(reason) == CobaltQueueDisc::FORCED_MARK;
    }

    // The root queue disc's Mark trace (FQ kinds: a child's marks reach it too, the reason
    // prefixed with the child's type name, so the reason is matched by its end).
    void OnRootMark(Ptr<const QueueDiscItem> item, const char* reason)
    {
        uint64_t id = idOfUid.at(item->GetPacket()->GetUid());
        std::string r(reason), target(CoDelQueueDisc::TARGET_EXCEEDED_MARK);
        bool isTarget = r.size() >= target.size() &&
                        r.compare(r.size() - target.size(), target.size(), target) == 0;
        if (decisions[id].arrivedL4s && !decisions[id].arrivedCe && isTarget)
        {
            l4sTargetMarked++;
        }
    }

    // Gives a queue disc that draws random numbers (PIE, COBALT) stream 0 of seed 1, run 1: the
    // stream of ns3-uniforms.txt, from its first draw (neither draws before its first dequeue
    // or its second enqueue, so assigning it after the creating enqueue is in time).
    void Adopt(Ptr<QueueDisc> q)
    {
        if (Ptr<PieQueueDisc> pie = DynamicCast<PieQueueDisc>(q))
        {
            pie->AssignStreams(0);
        }
        if (Ptr<CobaltQueueDisc> c = DynamicCast<CobaltQueueDisc>(q))
        {
            c->AssignStreams(0);
            NS_ABORT_MSG_UNLESS(
                c->TraceConnectWithoutContext("Count", MakeCallback(&Driver::OnCount, this)) &&
                    c->TraceConnectWithoutContext("Mark", MakeCallback(&Driver::OnMark, this)),
                "no Count or Mark trace");
        }
    }

    void AdoptNewChildren()
    {
        for (; childrenSeen < qd->GetNQueueDiscClasses(); childrenSeen++)
        {
            Adopt(qd->GetQueueDiscClass(childrenSeen)->GetQueueDisc());
        }
    }

    void OnDrop(Ptr<const QueueDiscItem> item)
    {
        uint64_t id = idOfUid.at(item->GetPacket()->GetUid());
        Decision& d = decisions[id];
        d.outcome = inEnqueue ? Outcome::DroppedEnqueue : Outcome::DroppedDequeue;
        d.deqT = static_cast<int64_t>(rowT);
        if (!inEnqueue)
        {
            dropsThisCall++;
            l4sDroppedDequeue += d.arrivedL4s ? 1 : 0;
        }
        if (!inEnqueue && !codelRose)
        {
            blueDrops++; // counted for the cobalt kinds only (see the summary)
        }
        codelRose = false;
        codelMarked = false;
    }

    void Apply(const Row& r)
    {
        rowT = r.t;
        if (r.enq)
        {
            uint64_t id = decisions.size();
            Decision d;
            d.enqT = r.t;
            d.arrivedCe = r.ecn == Ipv4Header::ECN_CE;
            d.arrivedL4s = d.arrivedCe || r.ecn == Ipv4Header::ECN_ECT1;
            decisions.push_back(d);
            Ptr<Packet> p = Create<Packet>(r.size - 20);
            idOfUid[p->GetUid()] = id;
            Ipv4Header h;
            h.SetSource(Ipv4Address(r.flow));
            h.SetDestination(Ipv4Address("10.0.0.1"));
            h.SetProtocol(17);
            h.SetPayloadSize(r.size - 20);
            h.SetTtl(64);
            h.SetEcn(r.ecn);
            Ptr<Ipv4QueueDiscItem> item = Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
            NS_ABORT_MSG_IF(item->GetSize() != r.size, "item size " << item->GetSize());
            inEnqueue = true;
            qd->Enqueue(item);
            inEnqueue = false;
            AdoptNewChildren();
            if (decisions[id].outcome == Outcome::QueuedAtEnd)
            {
                idleSeen = false;
            }
        }
        else
        {
            if (idleSeen && qd->GetNPackets() == 0)
            {
                deqSkipped++;
                return;
            }
            dequeueCalls++;
            codelRose = false;
            codelMarked = false;
            dropsThisCall = 0;
            Ptr<QueueDiscItem> item = qd->Dequeue();
            if (!item)
            {
                idleSeen = true;
                return;
            }
            uint64_t id = idOfUid.at(item->GetPacket()->GetUid());
            Decision& d = decisions[id];
            Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
            bool ce = ip->GetHeader().GetEcn() == Ipv4Header::ECN_CE;
            d.outcome = (ce && !d.arrivedCe) ? Outcome::Marked : Outcome::Delivered;
            d.deqT = static_cast<int64_t>(r.t);
            l4sAfterDrop += (d.arrivedL4s && dropsThisCall > 0) ? 1 : 0;
        }
    }

    // Applies every row due now (rows at equal times in file order). main() schedules one Step
    // per distinct row time before the run starts, so at equal times a Step runs before any
    // event a queue disc scheduled meanwhile (PIE's periodic CalculateP): an update due at T
    // runs after every row at T, and a flow's first update (scheduled at its creation) after
    // the rows of its creation time.
    void Step()
    {
        uint64_t now = Simulator::Now().GetNanoSeconds();
        while (next < rows.size() && rows[next].t == now)
        {
            Apply(rows[next++]);
            if (Ptr<CobaltQueueDisc> c = DynamicCast<CobaltQueueDisc>(qd))
            {
                blueActive = blueActive || c->GetPdrop() != 0.0;
            }
            for (size_t i = 0; i < qd->GetNQueueDiscClasses(); i++)
            {
                Ptr<CobaltQueueDisc> c =
                    DynamicCast<CobaltQueueDisc>(qd->GetQueueDiscClass(i)->GetQueueDisc());
                blueActive = blueActive || (c && c->GetPdrop() != 0.0);
            }
        }
    }
};

[[noreturn]] void
Fail(const std::string& msg)
{
    std::cerr << "fq_replay: " << msg << "\n";
    std::exit(2);
}

std::vector<Row>
ReadSchedule(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        Fail("cannot open " + path);
    }
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r')
    {
        line.pop_back();
    }
    std::vector<std::string> cols;
    {
        std::stringstream ss(line);
        std::string c;
        while (std::getline(ss, c, ','))
        {
            cols.push_back(c);
        }
    }
    if (cols.size() < 3 || cols[0] != "t_ns" || cols[1] != "op" || cols[2] != "size")
    {
        Fail("expected a header t_ns,op,size[,flow][,ecn], got " + line);
    }
    int flowCol = -1, ecnCol = -1;
    for (size_t i = 3; i < cols.size(); i++)
    {
        if (cols[i] == "flow")
        {
            flowCol = static_cast<int>(i);
        }
        else if (cols[i] == "ecn")
        {
            ecnCol = static_cast<int>(i);
        }
        else
        {
            Fail("unknown column " + cols[i]);
        }
    }
    std::vector<Row> rows;
    uint64_t lastT = 0;
    size_t ln = 1;
    while (std::getline(in, line))
    {
        ln++;
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        if (line.empty())
        {
            continue;
        }
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string c;
        while (std::getline(ss, c, ','))
        {
            f.push_back(c);
        }
        if (f.size() != cols.size())
        {
            Fail("line " + std::to_string(ln) + ": wrong number of fields");
        }
        Row r{};
        r.t = std::stoull(f[0]);
        if (r.t < lastT)
        {
            Fail("line " + std::to_string(ln) + ": time goes back");
        }
        lastT = r.t;
        r.enq = f[1] == "enq";
        if (!r.enq && f[1] != "deq")
        {
            Fail("line " + std::to_string(ln) + ": op must be enq or deq");
        }
        r.ecn = Ipv4Header::ECN_NotECT;
        if (r.enq)
        {
            r.size = static_cast<uint32_t>(std::stoul(f[2]));
            if (r.size < 20)
            {
                Fail("line " + std::to_string(ln) + ": size must cover the 20-byte IPv4 header");
            }
            if (flowCol >= 0)
            {
                unsigned long fl = std::stoul(f[flowCol]);
                if (fl >= (1UL << 31))
                {
                    Fail("line " + std::to_string(ln) + ": flow ids must be < 2^31");
                }
                r.flow = static_cast<uint32_t>(fl);
            }
            if (ecnCol >= 0)
            {
                const std::string& e = f[ecnCol];
                if (e == "not_ect" || e == "0")
                {
                    r.ecn = Ipv4Header::ECN_NotECT;
                }
                else if (e == "ect1" || e == "1")
                {
                    r.ecn = Ipv4Header::ECN_ECT1;
                }
                else if (e == "ect0" || e == "2")
                {
                    r.ecn = Ipv4Header::ECN_ECT0;
                }
                else if (e == "ce" || e == "3")
                {
                    r.ecn = Ipv4Header::ECN_CE;
                }
                else
                {
                    Fail("line " + std::to_string(ln) + ": bad ecn " + e);
                }
            }
        }
        rows.push_back(r);
    }
    return rows;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string schedule, out, summary, target = "5ms", interval = "100ms", ceThreshold = "off";
    uint32_t limit = 10240, flows = 1024, quantum = 1514, dropBatch = 64, setWays = 0;
    bool useEcn = true, useL4s = false, l4sCounts = false;
    std::string kind = "fq_codel";
    // COBALT's BLUE (cobalt, fq_cobalt; ns-3's defaults).
    double pdrop = 0.0, increment = 1.0 / 256, decrement = 1.0 / 4096;
    std::string blueThreshold = "400ms";
    // PIE's ActiveThreshold and delay estimator (pie, fq_pie).
    std::string activeThreshold = "off", estimator = "timestamp";
    CommandLine cmd(__FILE__);
    cmd.AddValue("schedule", "schedule CSV (t_ns,op,size[,flow][,ecn])", schedule);
    cmd.AddValue("out", "decisions CSV to write", out);
    cmd.AddValue("summary", "outcome counts (JSON) to write", summary);
    cmd.AddValue("limit", "MaxSize in packets", limit);
    cmd.AddValue("flows", "Flows", flows);
    cmd.AddValue("quantum", "DRR quantum in bytes (SetQuantum)", quantum);
    cmd.AddValue("dropBatch", "DropBatchSize", dropBatch);
    cmd.AddValue("useEcn", "UseEcn", useEcn);
    cmd.AddValue("target", "Target (CoDel, COBALT)", target);
    cmd.AddValue("interval", "Interval (CoDel, COBALT)", interval);
    cmd.AddValue("ceThreshold", "CeThreshold (off = ns-3's default, Time::Max)", ceThreshold);
    cmd.AddValue("setWays", "0: no set-associative hash; N: EnableSetAssociativeHash, SetWays N", setWays);
    cmd.AddValue("kind",
                 "fq_codel (FqCoDelQueueDisc), fq_cobalt (FqCobaltQueueDisc), fq_pie "
                 "(FqPieQueueDisc), codel (CoDelQueueDisc, one queue), cobalt (CobaltQueueDisc, "
                 "one queue) or pie (PieQueueDisc, one queue)",
                 kind);
    cmd.AddValue("useL4s", "UseL4s", useL4s);
    cmd.AddValue("l4sCounts",
                 "1: the summary also counts ECT(1)/CE arrivals sent after a drop in the same "
                 "dequeue, dropped at dequeue, and given CoDel's target mark",
                 l4sCounts);
    cmd.AddValue("pdrop", "Pdrop (COBALT's initial BLUE probability)", pdrop);
    cmd.AddValue("increment", "Increment (BLUE)", increment);
    cmd.AddValue("decrement", "Decrement (BLUE)", decrement);
    cmd.AddValue("blueThreshold", "BlueThreshold", blueThreshold);
    cmd.AddValue("activeThreshold",
                 "PIE's ActiveThreshold (off = ns-3's default, Time::Max; pie, fq_pie)",
                 activeThreshold);
    cmd.AddValue("estimator", "PIE's delay estimator: timestamp or dq_rate (pie, fq_pie)", estimator);
    cmd.Parse(argc, argv);
    if (kind != "fq_codel" && kind != "fq_cobalt" && kind != "fq_pie" && kind != "codel" &&
        kind != "cobalt" && kind != "pie")
    {
        Fail("--kind must be fq_codel, fq_cobalt, fq_pie, codel, cobalt or pie, got " + kind);
    }
    bool single = kind == "codel" || kind == "cobalt" || kind == "pie";
    if (schedule.empty() || out.empty())
    {
        Fail("--schedule and --out are required");
    }
    bool isCobalt = kind == "fq_cobalt" || kind == "cobalt";
    bool isPie = kind == "fq_pie" || kind == "pie";
    if (!isPie && (activeThreshold != "off" || estimator != "timestamp"))
    {
        Fail("--activeThreshold and --estimator are PIE's (--kind pie or fq_pie)");
    }
    if (estimator != "timestamp" && estimator != "dq_rate")
    {
        Fail("--estimator must be timestamp or dq_rate, got " + estimator);
    }
    if (isPie && activeThreshold != "off")
    {
        // FqPieQueueDisc has no ActiveThreshold: its children take PieQueueDisc's default.
        Config::SetDefault("ns3::PieQueueDisc::ActiveThreshold", TimeValue(Time(activeThreshold)));
    }

    Driver drv;
    drv.rows = ReadSchedule(schedule);

    ObjectFactory f;
    f.SetTypeId(kind == "fq_codel"    ? "ns3::FqCoDelQueueDisc"
                : kind == "fq_cobalt" ? "ns3::FqCobaltQueueDisc"
                : kind == "fq_pie"    ? "ns3::FqPieQueueDisc"
                : kind == "pie"       ? "ns3::PieQueueDisc"
                : kind == "codel"     ? "ns3::CoDelQueueDisc"
                                      : "ns3::CobaltQueueDisc");
    f.Set("MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)));
    f.Set("UseEcn", BooleanValue(useEcn));
    if (kind != "fq_pie" && kind != "pie")
    {
        f.Set("Target", StringValue(target));
        f.Set("Interval", StringValue(interval));
    }
    if (ceThreshold != "off")
    {
        f.Set("CeThreshold", TimeValue(Time(ceThreshold)));
    }
    f.Set("UseL4s", BooleanValue(useL4s));
    if (isPie)
    {
        f.Set("UseDequeueRateEstimator", BooleanValue(estimator == "dq_rate"));
    }
    if (!single)
    {
        f.Set("Flows", UintegerValue(flows));
        f.Set("DropBatchSize", UintegerValue(dropBatch));
        if (setWays > 0)
        {
            f.Set("EnableSetAssociativeHash", BooleanValue(true));
            f.Set("SetWays", UintegerValue(setWays));
        }
    }
    if (isCobalt)
    {
        f.Set("Pdrop", DoubleValue(pdrop));
        f.Set("Increment", DoubleValue(increment));
        f.Set("Decrement", DoubleValue(decrement));
        f.Set("BlueThreshold", TimeValue(Time(blueThreshold)));
    }
    if (kind == "fq_codel")
    {
        Ptr<FqCoDelQueueDisc> fq = f.Create<FqCoDelQueueDisc>();
        fq->SetQuantum(quantum);
        drv.qd = fq;
    }
    else if (kind == "fq_cobalt")
    {
        Ptr<FqCobaltQueueDisc> fq = f.Create<FqCobaltQueueDisc>();
        fq->SetQuantum(quantum);
        drv.qd = fq;
    }
    else if (kind == "fq_pie")
    {
        Ptr<FqPieQueueDisc> fq = f.Create<FqPieQueueDisc>();
        fq->SetQuantum(quantum);
        drv.qd = fq;
    }
    else
    {
        drv.qd = f.Create<QueueDisc>(); // one queue (CoDel, COBALT or PIE): no filter, no flows
    }
    if (!single)
    {
        drv.qd->AddPacketFilter(CreateObject<FlowIdFilter>());
    }
    drv.qd->Initialize();
    drv.qd->TraceConnectWithoutContext("Drop", MakeCallback(&Driver::OnDrop, &drv));
    drv.qd->TraceConnectWithoutContext("Mark", MakeCallback(&Driver::OnRootMark, &drv));
    if (single)
    {
        drv.Adopt(drv.qd);
    }

    // One Step per distinct row time, all scheduled now (see Step), and the end after the last.
    for (size_t i = 0; i < drv.rows.size(); i++)
    {
        if (i == 0 || drv.rows[i].t != drv.rows[i - 1].t)
        {
            Simulator::Schedule(NanoSeconds(drv.rows[i].t), &Driver::Step, &drv);
        }
    }
    if (!drv.rows.empty())
    {
        // PIE's CalculateP re-arms itself for ever; stop once every row has been applied.
        Simulator::Stop(NanoSeconds(drv.rows.back().t));
    }
    Simulator::Run();
    NS_ABORT_MSG_UNLESS(drv.next == drv.rows.size(), "stopped before the last row");

    std::ofstream o(out);
    o << "id,enq_t_ns,outcome,deq_t_ns\n";
    uint64_t counts[5] = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < drv.decisions.size(); i++)
    {
        const Decision& d = drv.decisions[i];
        o << i << "," << d.enqT << "," << OutcomeName(d.outcome) << "," << d.deqT << "\n";
        counts[static_cast<int>(d.outcome)]++;
    }
    if (!summary.empty())
    {
        std::ofstream s(summary);
        s << "{\"packets\": " << drv.decisions.size() << ", \"delivered\": " << counts[1]
          << ", \"marked\": " << counts[2] << ", \"dropped_enqueue\": " << counts[3]
          << ", \"dropped_dequeue\": " << counts[4] << ", \"queued_at_end\": " << counts[0]
          << ", \"dequeue_calls\": " << drv.dequeueCalls
          << ", \"deq_lines_skipped\": " << drv.deqSkipped;
        if (isCobalt)
        {
            s << ", \"blue_active\": " << (drv.blueActive ? 1 : 0)
              << ", \"blue_drops\": " << drv.blueDrops;
        }
        if (l4sCounts)
        {
            s << ", \"l4s_after_drop\": " << drv.l4sAfterDrop
              << ", \"l4s_dropped_dequeue\": " << drv.l4sDroppedDequeue
              << ", \"l4s_target_marked\": " << drv.l4sTargetMarked;
        }
        s << "}\n";
    }
    Simulator::Destroy();
    return 0;
}
