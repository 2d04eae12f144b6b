#!/usr/bin/env python3
"""Writes a flow file (HPCC ns-3 format, `workload.type: file`) of Poisson flow arrivals in which every
host sends only to hosts under other leaves of a leaf-spine fabric, so that all traffic crosses the
spines: the traffic of LetFlow's testbed experiments (Vanini et al., NSDI 2017, section 5: "we configure
the clients under each leaf to only send to servers under the other leaf").

The load is a fraction of the bisection without failures, as in the paper: each leaf offers
load x spines x rate across the fabric, shared evenly by its hosts. Flow sizes come from a CDF file
(lines "size_bytes cumulative_percent", linear between points, as netasic's workload.cdf files).

    scripts/cross_leaf_flows.py --leaves 2 --spines 2 --hosts-per-leaf 4 --rate-gbps 40 --load 0.5 \\
        --duration-us 50000 --cdf configs/cdf/WebSearch_distribution.txt --seed 1 > flows.txt

Hosts are numbered leaf by leaf (host h is under leaf h // hosts-per-leaf), as netasic's leaf_spine
generator numbers them. Python 3 standard library only.
"""
import argparse
import bisect
import random
import sys


def read_cdf(path):
    points = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            if len(fields) != 2:
                sys.exit(f"{path}:{n}: a CDF line needs 2 fields 'size_bytes cumulative_percent', found {len(fields)}")
            try:
                size, pct = float(fields[0]), float(fields[1])
            except ValueError:
                sys.exit(f"{path}:{n}: size and percent must be numbers, got '{line}'")
            if points and (size < points[-1][0] or pct < points[-1][1]):
                sys.exit(f"{path}:{n}: sizes and percents must not decrease")
            points.append((size, pct))
    if len(points) < 2 or points[-1][1] != 100:
        sys.exit(f"{path}: a CDF needs at least 2 points and must end at 100 percent")
    return points


def sampler(points, rng):
    pcts = [p for _, p in points]

    def draw():
        u = rng.uniform(0, 100)
        i = max(1, bisect.bisect_left(pcts, u))
        (s0, p0), (s1, p1) = points[i - 1], points[i]
        size = s0 if p1 == p0 else s0 + (s1 - s0) * (u - p0) / (p1 - p0)
        return max(1, int(round(size)))
    return draw


def mean_size(points):
    return sum((s0 + s1) / 2 * (p1 - p0) / 100 for (s0, p0), (s1, p1) in zip(points, points[1:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--leaves", type=int, required=True)
    ap.add_argument("--spines", type=int, required=True)
    ap.add_argument("--hosts-per-leaf", type=int, required=True)
    ap.add_argument("--rate-gbps", type=float, required=True, help="leaf-spine link rate")
    ap.add_argument("--load", type=float, required=True, help="fraction of the bisection without failures")
    ap.add_argument("--duration-us", type=float, required=True, help="window of flow arrivals")
    ap.add_argument("--cdf", required=True, help="flow-size CDF file")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.leaves < 2 or a.spines < 1 or a.hosts_per_leaf < 1:
        ap.error("needs at least 2 leaves, 1 spine and 1 host per leaf")
    if not 0 < a.load <= 1 or a.rate_gbps <= 0 or a.duration_us <= 0:
        ap.error("--load must be in (0, 1]; --rate-gbps and --duration-us positive")
    points = read_cdf(a.cdf)
    rng = random.Random(a.seed)
    draw = sampler(points, rng)
    bytes_per_s = a.load * a.spines * a.rate_gbps * 1e9 / 8 / a.hosts_per_leaf
    arrivals_per_s = bytes_per_s / mean_size(points)
    hosts = a.leaves * a.hosts_per_leaf
    flows = []
    for src in range(hosts):
        leaf = src // a.hosts_per_leaf
        others = [h for h in range(hosts) if h // a.hosts_per_leaf != leaf]
        t = rng.expovariate(arrivals_per_s)
        while t < a.duration_us * 1e-6:
            flows.append((t, src, rng.choice(others), draw()))
            t += rng.expovariate(arrivals_per_s)
    flows.sort()
    out = [str(len(flows))]
    out += [f"{src} {dst} 3 100 {size} {t:.9f}" for t, src, dst, size in flows]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
