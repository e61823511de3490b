// A small DCTCP driver for csg-htsim, written for tailor's issue 44 comparison.
// It is compiled against htsim's own library (sim/libhtsim.a) and the fat-tree
// objects of sim/datacenter; it contains no htsim code.  csg-htsim ships no
// DCTCP driver that reads a traffic matrix and reports flow completion times,
// so this one: builds htsim's k-ary FatTreeTopology with its ECN queue type,
// starts one DCTCPSrc/TcpSink pair per line of an htsim connection matrix
// (-tm), routes each flow on one of its equal-cost paths (a seeded draw per
// flow, i.e. per-flow ECMP), and prints one "FCT id=.. src=.. dst=.. size=..
// fct_us=.." line per finished flow plus drop and retransmission counters.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <vector>
#include "config.h"
#include "network.h"
#include "eventlist.h"
#include "tcp.h"
#include "dctcp.h"
#include "queue.h"
#include "connection_matrix.h"
#include "fat_tree_topology.h"

EventList eventlist;

// Records the instant the cumulative ACK covers the whole flow (the same
// condition under which TcpSrc prints "finished").
class TimedDctcpSrc : public DCTCPSrc {
public:
    TimedDctcpSrc(EventList& ev) : DCTCPSrc(NULL, NULL, ev), finish(0) {}
    void receivePacket(Packet& pkt) override {
        DCTCPSrc::receivePacket(pkt);
        if (!finish && _last_acked >= _flow_size) finish = eventlist().now();
    }
    simtime_picosec finish;
};

static void usage(const char* p) {
    fprintf(stderr, "usage: %s -tm FILE [-nodes 128] [-linkspeed Mbps] [-hop_latency us] "
            "[-mtu B] [-q queue_bytes] [-ssthresh pkts] [-seed N] [-end us]\n", p);
    exit(1);
}

int main(int argc, char** argv) {
    const char* tm = NULL;
    uint32_t nodes = 128, mtu = 4096, seed = 1, end_us = 100000;
    double mbps = 100000, hop_us = 1.0;
    mem_b qbytes = 8 << 20;
    int ssthresh_pkts = -1;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage(argv[0]);
        std::string a = argv[i];
        const char* v = argv[++i];
        if (a == "-tm") tm = v;
        else if (a == "-nodes") nodes = atoi(v);
        else if (a == "-linkspeed") mbps = atof(v);
        else if (a == "-hop_latency") hop_us = atof(v);
        else if (a == "-mtu") mtu = atoi(v);
        else if (a == "-q") qbytes = atoll(v);
        else if (a == "-ssthresh") ssthresh_pkts = atoi(v);
        else if (a == "-seed") seed = atoi(v);
        else if (a == "-end") end_us = atoi(v);
        else usage(argv[0]);
    }
    if (!tm) usage(argv[0]);
    srand(seed); srandom(seed);
    Packet::set_packet_size(mtu);
    eventlist.setEndtime(timeFromUs((uint32_t)end_us));

    linkspeed_bps speed = speedFromMbps(mbps);
    FatTreeTopology* top = new FatTreeTopology(nodes, speed, qbytes, NULL, &eventlist, NULL, ECN,
                                               timeFromUs(hop_us), 0, FAIR_PRIO);
    ConnectionMatrix* cm = new ConnectionMatrix(nodes);
    if (!cm->load(tm)) return 1;
    std::vector<connection*>* conns = cm->getAllConnections();

    TcpRtxTimerScanner scanner(timeFromMs(1), eventlist);
    std::mt19937_64 rng(seed);
    std::vector<TimedDctcpSrc*> srcs;
    std::vector<connection*> meta;
    std::map<BaseQueue*, int> flows_on;          // data direction only
    std::set<BaseQueue*> all_queues;
    for (connection* c : *conns) {
        std::vector<const Route*>* fw = top->get_bidir_paths(c->src, c->dst, false);
        std::vector<const Route*>* bw = top->get_bidir_paths(c->dst, c->src, false);
        size_t pick = rng() % fw->size();
        TimedDctcpSrc* s = new TimedDctcpSrc(eventlist);
        TcpSink* k = new TcpSink();
        if (ssthresh_pkts > 0) s->set_ssthresh((uint64_t)ssthresh_pkts * mtu);
        s->set_flowsize(c->size);
        s->setName("dctcp_" + std::to_string(c->flowid));
        scanner.registerTcp(*s);
        Route* out = new Route(*fw->at(pick));
        Route* back = new Route(*bw->at(pick % bw->size()));
        for (size_t h = 0; h < out->size(); h++) {
            BaseQueue* q = dynamic_cast<BaseQueue*>(out->at(h));
            if (q) { flows_on[q]++; all_queues.insert(q); }
        }
        for (size_t h = 0; h < back->size(); h++) {
            BaseQueue* q = dynamic_cast<BaseQueue*>(back->at(h));
            if (q) all_queues.insert(q);
        }
        out->push_back(k);
        back->push_back(s);
        s->connect(*out, *back, *k, timeFromUs((double)timeAsUs(c->start)));
        srcs.push_back(s);
        meta.push_back(c);
    }
    int worst = 0;
    std::map<int, int> share_hist;               // flows per loaded port -> ports
    for (auto& e : flows_on) { share_hist[e.second]++; if (e.second > worst) worst = e.second; }

    printf("# params: mss=%u B (whole data packet on the wire), ack=%d B, ecn_k=%lld B (ECNQueue, marks at dequeue), "
           "port_buffer=%lld B drop-tail, hop_latency=%.3f us, link=%.0f Mb/s, init_cwnd=10 MSS, "
           "ssthresh=%s, dctcp_g=1/16, min_rto=250 ms, rtx_scan=1 ms, flows=%zu, max_flows_per_link=%d\n",
           mtu, TcpAck::ACKSIZE, (long long)memFromPkt(15), (long long)qbytes, hop_us, mbps,
           ssthresh_pkts > 0 ? std::to_string(ssthresh_pkts).append(" MSS").c_str() : "100 MSS",
           srcs.size(), worst);
    printf("# ports_by_flow_count:");
    for (auto& e : share_hist) printf(" %d:%d", e.first, e.second);
    printf("\n");
    fflush(stdout);

    while (eventlist.doNextEvent()) {}

    long long drops = 0;
    for (BaseQueue* q : all_queues) {
        Queue* qq = dynamic_cast<Queue*>(q);
        if (qq) drops += qq->num_drops();
    }
    uint64_t sent = 0, unfinished = 0;
    for (size_t i = 0; i < srcs.size(); i++) {
        connection* c = meta[i];
        sent += srcs[i]->_packets_sent;
        if (!srcs[i]->finish) { unfinished++; printf("UNFINISHED id=%u\n", c->flowid); continue; }
        printf("FCT id=%u src=%u dst=%u size=%u fct_us=%.6f\n", c->flowid, c->src, c->dst, c->size,
               timeAsUs(srcs[i]->finish - c->start));
    }
    printf("# drops=%lld bytes_sent=%llu unfinished=%llu\n", drops, (unsigned long long)sent,
           (unsigned long long)unfinished);
    return 0;
}
