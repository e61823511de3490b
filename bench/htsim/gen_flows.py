#!/usr/bin/env python3
"""Write the two workloads of the htsim comparison (issue 44) in both formats.

  perm   : every host of the 128-host k=8 fat tree sends one 2,000,000 B flow to a
           distinct host (a seeded random derangement), all at t = 0.
  incast : 16 senders, all outside host 0's pod, send 1,000,000 B each to host 0 at t = 0.

Host numbering is the same in tailor and htsim: host h sits under edge switch h // 4
in pod h // 16 (k = 8).  Outputs, next to this script:
  perm.csv, incast.csv  tailor flow files (id,src,dst,size,start_ns,class)
  perm.cm,  incast.cm   htsim connection matrices (start in ps; htsim flow ids start at 1)
"""
import os, random

HOSTS, PER_POD = 128, 16
HERE = os.path.dirname(os.path.abspath(__file__))

def derangement(rng, n):
    while True:
        p = list(range(n)); rng.shuffle(p)
        if all(p[i] != i for i in range(n)):
            return p

def write(name, flows):
    with open(os.path.join(HERE, name + ".csv"), "w") as f:
        f.write("id,src,dst,size,start_ns,class\n")
        for i, (s, d, b) in enumerate(flows):
            f.write(f"{i},{s},{d},{b},0.000,{name}\n")
    with open(os.path.join(HERE, name + ".cm"), "w") as f:
        f.write(f"Nodes {HOSTS}\nConnections {len(flows)}\n")
        for i, (s, d, b) in enumerate(flows):
            f.write(f"{s}->{d} id {i + 1} start 0 size {b}\n")

rng = random.Random(44)
perm = derangement(rng, HOSTS)
write("perm", [(i, perm[i], 2000000) for i in range(HOSTS)])
senders = sorted(rng.sample(range(PER_POD, HOSTS), 16))   # pods 1..7, receiver 0 is in pod 0
write("incast", [(s, 0, 1000000) for s in senders])
