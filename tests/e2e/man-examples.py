#!/usr/bin/env python3
"""man-examples.py [--pages P,...] MANDIR WORKDIR CLIENT_NETNS [FROM=TO...]:
run the EXAMPLES of every manual page source (MANDIR/*.scd), or of the
pages named (e.g. spate-sub.1), as a user would type them. FROM=TO: a
path of the package (FROM) is at TO here (a scratch root); each FROM in a
command becomes TO. man-examples.py --network lists the network pages:
each expects a spated of its own, fresh, as a user trying the page has
(their subscription ids would collide otherwise).

In an EXAMPLES section, a code block's lines starting with "$ " are
commands: a page's commands run in order in one bash, in a scratch
directory of their own, each checked (a failing command fails the page;
"cmd &" runs in the background, as typed). Pages of the network clients
run in CLIENT_NETNS, where a spated answers at 198.18.0.1:47100. Lines
starting with "# " are root's commands against the system (systemctl):
listed as not run. A code block starting with "spated: {" or "spate: {"
is a configuration: spated --check-config must accept it. Exit status 0
when every page's examples worked; one line per page either way."""
import os
import re
import shlex
import subprocess
import sys

NETWORK_PAGES = {"spate-pub.1", "spate-sub.1", "spate-replay.1", "spate-probe.1"}


def examples(path):
    """(commands, root_commands, configs) of the page's EXAMPLES section."""
    text = open(path).read()
    m = re.search(r"^# EXAMPLES\n(.*?)(?=^# [A-Z]|\Z)", text, re.S | re.M)
    if m is None:
        return None
    cmds, root, confs = [], [], []
    for block in re.findall(r"^```\n(.*?)^```", m.group(1), re.S | re.M):
        lines = block.splitlines()
        if lines and re.match(r"spated?: \{", lines[0]):
            confs.append(block)
            continue
        for line in lines:
            if line.startswith("$ "):
                cmds.append(line[2:])
            elif line.startswith("# "):
                root.append(line[2:])
    return cmds, root, confs


def script(cmds):
    out = ["cd \"$1\""]
    for c in cmds:
        if c.rstrip().endswith("&"):
            out.append(c)
        else:
            out.append("%s || { echo FAILED: %s >&2; exit 1; }" % (c, shlex.quote(c)))
    return "\n".join(out) + "\nwait\n"


def main():
    args = sys.argv[1:]
    if args == ["--network"]:
        print("\n".join(sorted(NETWORK_PAGES)))
        return
    only = None
    if args[:1] == ["--pages"]:
        only = set(args[1].split(","))
        args = args[2:]
    mandir, work, netns = args[:3]
    paths = [a.split("=", 1) for a in args[3:]]
    bad = 0
    names = sorted(n[:-4] for n in os.listdir(mandir) if n.endswith(".scd"))
    if only is not None and not only <= set(names):
        sys.exit("man-examples: no such page: %s" % ", ".join(sorted(only - set(names))))
    for page in names:
        if only is not None and page not in only:
            continue
        name = page + ".scd"
        ex = examples(os.path.join(mandir, name))
        if ex is None or not (ex[0] or ex[2]):
            print("FAIL: %s: no EXAMPLES with a command" % page)
            bad += 1
            continue
        cmds, root, confs = ex
        for old, new in paths:
            cmds = [c.replace(old, new) for c in cmds]
        d = os.path.join(work, page)
        os.makedirs(d, exist_ok=True)
        for i, conf in enumerate(confs):
            f = os.path.join(d, "example-%d.conf" % i)
            open(f, "w").write(conf)
            r = subprocess.run(["spated", "--check-config", "-c", f],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL: %s: example configuration %d refused:\n%s" % (page, i, r.stdout))
                bad += 1
        sh = os.path.join(d, "examples.sh")
        open(sh, "w").write(script(cmds))
        argv = ["bash", sh, d]
        if page in NETWORK_PAGES:
            argv = ["ip", "netns", "exec", netns] + argv
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        note = "; not run (root, systemd): %s" % " | ".join(root) if root else ""
        if r.returncode != 0:
            print("FAIL: %s: its examples failed (exit %d):\n%s%s"
                  % (page, r.returncode, r.stdout[-1500:], r.stderr[-1500:]))
            bad += 1
        else:
            print("ok: %s: %d commands%s%s" % (
                page, len(cmds), ", %d configurations checked" % len(confs) if confs else "", note))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
