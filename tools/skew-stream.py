#!/usr/bin/env python3
"""skew-stream.py FILE F - move a fraction F of the events of a Spate
stream file (in place) into a hot box: the westmost eighth of
fast-stream.py's extent, at the same latitudes. The categories there then
take most of the matching (Fig. 7's skewed workload). Deterministic: the
events moved are drawn with a fixed seed (7). Used by pipeline-bench.sh
--skew and multihost-bench.sh."""
import random
import sys

LON0, LON1 = -125.0, -66.0  # fast-stream.py's extent


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n")[0])
    path, f = sys.argv[1], float(sys.argv[2])
    rnd = random.Random(7)
    out = []
    for line in open(path):
        c = line.rstrip("\n").split("\t")
        if c[0] == "event" and rnd.random() < f:
            x = (float(c[2]) - LON0) / (LON1 - LON0)
            c[2] = "%.6f" % (LON0 + x * (LON1 - LON0) / 8)
        out.append("\t".join(c) + "\n")
    open(path, "w").write("".join(out))


if __name__ == "__main__":
    main()
