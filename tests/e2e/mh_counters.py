"""mh_counters.py - the multi-host tests' counter checks. read():
multihost.sh and multihost-fronts.sh, every host's counters (the lines
"HOST JSON" mh_stats_all prints), one summary line a host of the
counters of interest that moved, and the counters that must stay at 0
on every host (a refused or unknown frame, a category nobody knows, no
memory for a message). host(): the fault tests (multihost-match-kill,
-front-kill, -link-down), one host's counters, all the keys of interest
shown, the ones that must stay at 0 checked. Each test adds its own
checks to `bad`; verdict(bad) is the exit status."""
import json
import os

MUST_STAY_ZERO = ("peer_bad", "peer_unknown_host", "peer_unsupported", "peer_handoff_bad",
                  "cat_unknown", "msg_no_memory")


def read(text, keys):
    """The counters by host, and what is wrong with them already."""
    st = {}
    for line in text.splitlines():
        if line.strip():
            h, js = line.split(" ", 1)
            st[h] = json.loads(js)
    bad = []
    for h, c in st.items():
        print("  %s: " % h + " ".join("%s=%d" % (k, c.get(k, 0)) for k in keys if c.get(k, 0)))
        for k in MUST_STAY_ZERO:
            if c.get(k, 0):
                bad.append("%s: %s=%d" % (h, k, c[k]))
    return st, bad


def host(label, js, keys, zero=(), prefix=""):
    """One host's counters (its JSON line): a summary line "  LABEL: k=v ..."
    of every key (0 too), and what is wrong already: each `zero` counter
    that moved, as "PREFIXk=v"."""
    c = json.loads(js)
    print("  %s: " % label + " ".join("%s=%d" % (k, c.get(k, 0)) for k in keys))
    return c, ["%s%s=%d" % (prefix, k, c[k]) for k in zero if c.get(k, 0)]


def total(st, k):
    """A counter summed over the hosts."""
    return sum(c.get(k, 0) for c in st.values())


def verdict(bad):
    """The exit status: 1 (after saying what) when anything is wrong."""
    if bad:
        print("  WRONG: " + "; ".join(bad))
        note_wrong(bad)
    return 1 if bad else 0


def note_wrong(bad):
    """What is wrong, also to $E2E_WRONG (common.sh's fail() repeats it)."""
    path = os.environ.get("E2E_WRONG")
    if path:
        with open(path, "a") as f:
            f.write("; ".join(bad) + "\n")
