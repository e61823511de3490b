#!/usr/bin/env python3
"""Converts the published flow-size CDFs and rack-to-rack traffic matrices
collected in ../shared/data into tailor's own formats under data/ (formats in
data/README.md). Numbers are carried unchanged; only headers are rewritten.

Run by hand from the repository root when the shared data change:
    python3 tools/convert_shared_data.py [--shared ../shared/data] [--out data]
The build and tests never run it and never read ../shared. Python 3 standard
library only. It prints each matrix's total and intra-rack (diagonal) share so
they can be checked against the figures in the shared READMEs, and exits
non-zero if a file is malformed or a check fails.
"""

import argparse
import os
import re
import sys

PARSIMON = "github.com/netiken/parsimon-eval"
PARSIMON_COMMIT = "4d612d05564c4e808b88dc240b28b2b6fd71143c"

# (tailor name, shared file, description). The source line is taken from the
# shared file's own "# source:" header and normalised to "repo @ commit : path".
SIZES = [
    ("webserver", "parsimon-eval/webserver.txt",
     "WebServer flow sizes (Roy et al. SIGCOMM'15 Meta data), used by Parsimon and m3"),
    ("hadoop", "parsimon-eval/hadoop.txt",
     "Hadoop flow sizes (Roy et al. SIGCOMM'15 Meta data), used by Parsimon and m3"),
    ("cachefollower", "parsimon-eval/cachefollower.txt",
     "CacheFollower flow sizes (Roy et al. SIGCOMM'15 Meta data), used by Parsimon and m3"),
    ("hadoop-intracluster", "parsimon-eval/hadoop-intracluster.txt",
     "Hadoop intra-cluster flow sizes (Roy et al. SIGCOMM'15 Meta data); in parsimon-eval, "
     "not used by its paper specs"),
    ("hadoop-intrarack", "parsimon-eval/hadoop-intrarack.txt",
     "Hadoop intra-rack flow sizes (Roy et al. SIGCOMM'15 Meta data); in parsimon-eval, "
     "not used by its paper specs"),
    ("websearch", "rdma-workloads/hpcc_WebSearch_distribution.txt",
     "Web search flow sizes (DCTCP, Alizadeh et al. SIGCOMM'10), as used by HPCC, "
     "Parsimon and Uno"),
    ("fb-hadoop", "rdma-workloads/hpcc_FbHdp_distribution.txt",
     "Facebook Hadoop flow sizes as used by HPCC (SIGCOMM'19); "
     "= parsimon-eval workload/distributions/facebook/facebook.txt"),
    ("google-rpc", "rdma-workloads/hpcc_GoogleRPC2008.txt",
     "Google RPC message sizes (before 2008; cited by Homa), as shipped with HPCC"),
    ("ali-storage", "rdma-workloads/hpcc_AliStorage2019.txt",
     "Alibaba storage flow sizes (2019), as shipped with HPCC"),
    ("solar", "rdma-workloads/conweave_Solar2022.txt",
     "Alibaba Solar RPC sizes (2022, all <= 256 KiB), as shipped with ConWeave"),
    ("fb-hadoop-2015", "rdma-workloads/conweave_FbHdp2015.txt",
     "Facebook Hadoop flow sizes, finer-grained 461-point CDF, as shipped with ConWeave"),
    ("ali-interdc", "uno/AliInterDC2021_cdf.txt",
     "Alibaba inter-datacenter (regional WAN) flow sizes (FlashPass ICNP'21), "
     "as shipped with Uno SC'25"),
]

# (tailor name, shared file, matrix letter, source path in parsimon-eval, cluster kind)
MATRICES = [
    ("a-full", "parsimon-eval/matrix_a_full.txt", "A", "workload/spatials/cluster_a.json",
     "database cluster"),
    ("b-full", "parsimon-eval/matrix_b_full.txt", "B", "workload/spatials/cluster_b.json",
     "web cluster"),
    ("c-full", "parsimon-eval/matrix_c_full.txt", "C", "workload/spatials/cluster_c.json",
     "Hadoop cluster"),
    ("a-32rack", "parsimon-eval/matrix_a_32rack.txt", "A",
     "workload/spatials/cluster_a_2_16.json", "database cluster"),
    ("b-32rack", "parsimon-eval/matrix_b_32rack.txt", "B",
     "workload/spatials/cluster_b_2_16.json", "web cluster"),
    ("c-32rack", "parsimon-eval/matrix_c_32rack.txt", "C",
     "workload/spatials/cluster_c_2_16.json", "Hadoop cluster"),
]

# Totals and intra-rack counts of the full matrices as stated in
# ../shared/data/parsimon-eval/README.md; the conversion must reproduce them.
FULL_EXPECTED = {
    "a-full": (47876518, 2820),
    "b-full": (1694856402, 2371375),
    "c-full": (88501013, 7703385),
}


class ConvertError(Exception):
    pass


def fail(path, line, msg):
    raise ConvertError(f"{path}:{line}: {msg}" if line else f"{path}: {msg}")


def parse_source(path, lines):
    """Returns 'repo @ commit : path' from the shared file's first line."""
    first = lines[0] if lines else ""
    m = re.match(r"# source: (\S+) @ ([0-9a-f]{40}) : (\S+)\s*$", first)
    if m:
        return f"{m.group(1)} @ {m.group(2)} : {m.group(3)}"
    m = re.match(r"# source: (\S+) path (\S+) \(commit ([0-9a-f]{40})\)", first)
    if m:
        return f"{m.group(1)} @ {m.group(3)} : {m.group(2)}"
    fail(path, 1, "no recognisable '# source:' line")


def read_lines(path):
    with open(path, encoding="ascii") as f:
        return f.read().splitlines()


def convert_cdf(shared, out, name, rel, desc):
    src = os.path.join(shared, rel)
    lines = read_lines(src)
    source = parse_source(src, lines)
    rows = []
    prev = None
    for no, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        tok = s.split()
        if len(tok) != 2:
            fail(src, no, f"expected 2 fields, found {len(tok)}")
        try:
            x, p = float(tok[0]), float(tok[1])
        except ValueError:
            fail(src, no, f"non-numeric field in '{s}'")
        if x < 0 or not 0 <= p <= 100:
            fail(src, no, f"size {x} or percent {p} out of range")
        if prev and (x < prev[0] or p < prev[1]):
            fail(src, no, "CDF decreases")
        rows.append(tok)
        prev = (x, p)
    if len(rows) < 2 or float(rows[-1][1]) != 100.0 or float(rows[0][1]) != 0.0:
        fail(src, 0, "CDF must start at percent 0 and end at 100")
    mean = 0.0
    for (x0, p0), (x1, p1) in zip(rows, rows[1:]):
        mean += (float(x0) + float(x1)) / 2 * (float(p1) - float(p0)) / 100
    dst = os.path.join(out, "sizes", name + ".txt")
    with open(dst, "w", encoding="ascii") as f:
        f.write("# tailor size cdf v1\n")
        f.write(f"# name: {name}\n")
        f.write(f"# description: {desc}\n")
        f.write(f"# source: {source}\n")
        f.write("# columns: size_bytes cumulative_percent (0..100); "
                "sampled by inverse transform with linear interpolation\n")
        for tok in rows:
            f.write(f"{tok[0]} {tok[1]}\n")
    print(f"sizes/{name}.txt: {len(rows)} points, max {rows[-1][0]} B, "
          f"trapezoid mean {mean:,.1f} B")


def read_matrix(path):
    """Returns (header dict, rows of ints). Header keys: nr_pods, nr_racks, dim,
    idx2name (list), layout (list of (pod, first, last)) for full files."""
    lines = read_lines(path)
    hdr = {"source": parse_source(path, lines)}
    rows = []
    for no, raw in enumerate(lines, 1):
        s = raw.strip()
        if s.startswith("#"):
            m = re.match(r"# nr_pods (\d+) nr_racks (\d+) dim (\d+)$", s)
            if m:
                hdr["nr_pods"], hdr["nr_racks"], hdr["dim"] = map(int, m.groups())
            if s.startswith("# idx2name "):
                hdr["idx2name"] = s.split()[2:]
            if s.startswith("# layout:"):
                hdr["layout"] = [(p, int(a), int(b)) for p, a, b in
                                 re.findall(r"([0-9a-f]{8}) (\d+)-(\d+) \(\d+ racks\)", s)]
            continue
        if not s:
            continue
        try:
            row = [int(t) for t in s.split()]
        except ValueError:
            fail(path, no, "non-integer entry")
        if any(v < 0 for v in row):
            fail(path, no, "negative entry")
        rows.append((no, row))
    for key in ("nr_pods", "nr_racks", "dim", "idx2name"):
        if key not in hdr:
            fail(path, 0, f"header lacks {key}")
    dim = hdr["dim"]
    if len(rows) != dim:
        fail(path, 0, f"expected {dim} rows, found {len(rows)}")
    for no, row in rows:
        if len(row) != dim:
            fail(path, no, f"expected {dim} entries, found {len(row)}")
    return hdr, [r for _, r in rows]


def check_source(path, hdr, srcpath):
    if hdr["source"] != f"{PARSIMON} @ {PARSIMON_COMMIT} : {srcpath}":
        fail(path, 1, f"source '{hdr['source']}' is not {srcpath} at the expected commit")


def totals(m):
    total = sum(sum(r) for r in m)
    diag = sum(m[i][i] for i in range(len(m)))
    return total, diag


def pct(diag, total):
    return 100.0 * diag / total if total else 0.0


def write_matrix(out, name, desc, source, m, pods):
    dst = os.path.join(out, "matrices", name + ".txt")
    with open(dst, "w", encoding="ascii") as f:
        f.write("# tailor rack matrix v1\n")
        f.write(f"# name: {name}\n")
        f.write(f"# description: {desc}\n")
        f.write(f"# source: {source}\n")
        f.write("# entry [i][j] = relative traffic from rack i to rack j "
                "(sampled packet counts)\n")
        f.write(f"racks {len(m)}\n")
        f.write(f"pods {len(pods)}\n")
        for k, (first, last) in enumerate(pods):
            f.write(f"pod {k} racks {first}-{last}\n")
        for row in m:
            f.write(" ".join(str(v) for v in row) + "\n")


def convert_full(shared, out, name, rel, letter, srcpath, kind):
    src = os.path.join(shared, rel)
    hdr, m = read_matrix(src)
    check_source(src, hdr, srcpath)
    nr = hdr["nr_racks"]
    layout = hdr.get("layout")
    if not layout or len(layout) != hdr["nr_pods"]:
        fail(src, 0, "missing or inconsistent '# layout' line")
    expect_first = 0
    for _, first, last in layout:
        if first != expect_first or last < first:
            fail(src, 0, "layout ranges are not contiguous from 0")
        expect_first = last + 1
    if expect_first != nr:
        fail(src, 0, f"layout covers {expect_first} racks, header says {nr}")
    # Padding (indices >= nr_racks) must be all zero before it is dropped.
    for i in range(hdr["dim"]):
        for j in range(hdr["dim"]):
            if (i >= nr or j >= nr) and m[i][j]:
                fail(src, 0, f"padding entry [{i}][{j}] = {m[i][j]} is not zero")
    total_all, _ = totals(m)
    kept = [row[:nr] for row in m[:nr]]
    total, diag = totals(kept)
    if total != total_all:
        fail(src, 0, "dropping padding changed the total")
    want = FULL_EXPECTED[name]
    if (total, diag) != want:
        fail(src, 0, f"total/intra-rack {total}/{diag} differ from README {want[0]}/{want[1]}")
    sizes = "/".join(str(b - a + 1) for _, a, b in layout)
    desc = (f"Matrix {letter} ({kind}), full size: {len(layout)} pods with {sizes} racks in "
            f"index order ({nr} racks; the source's all-zero padding to {hdr['dim']} dropped); "
            f"Roy et al. SIGCOMM'15 Meta trace as used by Parsimon; total {total:,}, "
            f"intra-rack {diag:,} ({pct(diag, total):.4f}%), as the parsimon-eval README states")
    write_matrix(out, name, desc, hdr["source"], kept, [(a, b) for _, a, b in layout])
    print(f"matrices/{name}.txt: {nr} racks, {len(layout)} pods ({sizes}), total {total:,}, "
          f"intra-rack {diag:,} ({pct(diag, total):.4f}%) [README: {want[0]:,} / {want[1]:,}]")
    return hdr, m


def convert_32(shared, out, name, rel, letter, srcpath, kind, full):
    """The 32-rack files' rows are the full matrix restricted to the 32 kept
    racks in ascending full-matrix index order (the README's caveat); check it
    and derive the two pod ranges from the full layout."""
    src = os.path.join(shared, rel)
    hdr, m = read_matrix(src)
    check_source(src, hdr, srcpath)
    if hdr["nr_racks"] != 32 or hdr["dim"] != 32 or hdr["nr_pods"] != 2:
        fail(src, 0, "expected 2 pods x 16 racks, dim 32")
    fhdr, fm = full
    index = {n: i for i, n in enumerate(fhdr["idx2name"])}
    try:
        idx = sorted(index[n] for n in hdr["idx2name"])
    except KeyError as e:
        fail(src, 0, f"rack {e} not in the full matrix")
    sub = [[fm[i][j] for j in idx] for i in idx]
    if sub != m:
        fail(src, 0, "rows are not the full matrix restricted to its racks in index order")
    pod_of = {}
    for p, a, b in fhdr["layout"]:
        for i in range(a, b + 1):
            pod_of[i] = p
    pods_seq = [pod_of[i] for i in idx]
    if len(set(pods_seq[:16])) != 1 or len(set(pods_seq[16:])) != 1 or \
            pods_seq[0] == pods_seq[16]:
        fail(src, 0, "racks 0-15 and 16-31 are not two whole pods")
    total, diag = totals(m)
    desc = (f"Matrix {letter} ({kind}), 2 pods x 16 racks downsample used in Parsimon's "
            f"sensitivity analysis (fig_8); rows are the full matrix {letter} "
            f"restricted to 32 racks in ascending index order, so racks 0-15 are one pod and "
            f"16-31 the other (the source's stored rack and pod labels do not match its rows "
            f"and are not carried); total {total:,}, intra-rack {diag:,} "
            f"({pct(diag, total):.2f}%)")
    write_matrix(out, name, desc, hdr["source"], m, [(0, 15), (16, 31)])
    print(f"matrices/{name}.txt: 32 racks = full {letter} rows {idx[0]}..{idx[-1]} "
          f"(pods {pods_seq[0]}, {pods_seq[16]}), total {total:,}, "
          f"intra-rack {diag:,} ({pct(diag, total):.2f}%)")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared", "data"))
    ap.add_argument("--out", default=os.path.join(root, "data"))
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "sizes"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "matrices"), exist_ok=True)
    try:
        for name, rel, desc in SIZES:
            convert_cdf(args.shared, args.out, name, rel, desc)
        full = {}
        for name, rel, letter, srcpath, kind in MATRICES:
            if name.endswith("-full"):
                full[letter] = convert_full(args.shared, args.out, name, rel, letter, srcpath,
                                            kind)
            else:
                convert_32(args.shared, args.out, name, rel, letter, srcpath, kind,
                           full[letter])
    except (ConvertError, OSError) as e:
        print(f"convert_shared_data: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
