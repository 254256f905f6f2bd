#!/usr/bin/env python3
"""mutation-test.py - does a wrong line turn the fast tests red?

Deterministic mutants of lib/ (and app/) C files: relational operators
flipped or loosened, && and || swapped, binary + and - swapped, integer
constants off by one, if-conditions negated, simple statements dropped,
returned booleans inverted. Each mutant is applied alone to a scratch copy
of the tree (never the checkout), rebuilt there, and the fast tests mapped
to its file run with a time bound. A mutant is

  killed     a test failed (or crashed) on it,
  timeout    a test ran past its bound (a hang: counted as killed),
  survived   every mapped test passed: a gap, or an equivalent mutant,
  stillborn  it did not compile (not counted),
  equivalent listed in tools/mutation-equivalent.txt (not counted).

score = (killed + timeout) / (killed + timeout + survived).

Usage:
  tools/mutation-test.py [options] [FILE...]      # default: the core areas
  tools/mutation-test.py --list lib/proto/spate_proto.c # mutants only, no build
  tools/mutation-test.py --changed main           # files changed since main

Options: --seed N (sample order), --per-file N (sample size, 0 = all),
--budget S (stop starting mutants after S seconds), --only ID,ID (those
mutants, e.g. to check that a new test kills a survivor), --work DIR (scratch,
reused between runs), --tests a,b (override the mapped tests), --report F
(append the survivors' diffs and the table as Markdown), --json F (every
mutant's result), --nice N (default 10), --sanitize (ASan + UBSan build).
Mutant ids hash the file, the operator and the original line's text (not
its number) and leave out the module folder, so they survive edits elsewhere
and moves between folders; the equivalent list uses them.
"""

import argparse
import difflib
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The fast tests: unit executables (tests/unit/test_NAME) and the codec
# tests. Each entry: name -> (build target, argv relative to the build dir).
FAST = {
    'codec': ('tests/unit/test_codec', ['tests/unit/test_codec']),
    'proto': ('tests/proto/test_proto', ['tests/proto/test_proto']),
    'protocol-doc': ('tests/proto/test_protocol_doc',
                     ['tests/proto/test_protocol_doc', '@SRC@/docs/protocol.md']),
}
for _t in ['stream', 'tables', 'matcher', 'balance', 'rein', 'drt', 'category', 'journal', 'journal_io',
           'access', 'peer', 'peer_auth', 'keyword', 'hist', 'conf', 'ivx', 'buckets', 'alloc', 'mprein']:
    FAST[_t] = ('tests/unit/test_' + _t, ['tests/unit/test_' + _t])
# app/ (spated's files) without a port: tests/app/test_app_NAME
for _t in ['config', 'params', 'control', 'ctl_cmd', 'rx', 'cluster', 'counters', 'module', 'tx', 'neigh',
           'ring', 'notify', 'workers', 'cluster_proto']:
    FAST['app_' + _t] = ('tests/app/test_app_' + _t, ['tests/app/test_app_' + _t])
# test_rein's category part alone (the whole of it takes a minute)
FAST['rein-drt_ivx'] = ('tests/unit/test_rein', ['tests/unit/test_rein', 'drt_ivx'])
# its small workloads (every engine, edges, schema, many names; no 20,000+
# sub runs): most mutants die here in seconds, survivors still meet all of it
FAST['rein-quick'] = ('tests/unit/test_rein', ['tests/unit/test_rein', 'quick'])

# File -> the fast tests that exercise it, cheapest and most direct first
# (a run stops at the first red one). Areas group files in the report.
AREAS = {
    'codec': {
        'lib/proto/spate_proto.c': ['codec', 'proto', 'protocol-doc', 'peer'],
        'lib/proto/spate_types.c': ['codec', 'proto', 'stream', 'keyword', 'tables', 'matcher'],
    },
    'journal': {
        'lib/store/spate_journal.c': ['journal', 'journal_io'],
    },
    'categories': {
        'lib/engines/drt/drt_category.c': ['category', 'drt', 'rein-drt_ivx', 'tables'],
        'lib/engines/drt/drt_ftab.c': ['category', 'drt', 'tables'],
    },
    'engine drt': {
        'lib/engines/drt/engine_drt.c': ['alloc', 'category', 'drt', 'tables', 'matcher'],
        'lib/engines/drt/drt_cluster.c': ['alloc', 'drt', 'category', 'balance', 'matcher'],
        'lib/engines/drt/drt_balance.c': ['balance', 'drt'],
        'lib/engines/drt/drt_geo.c': ['drt', 'alloc'],
    },
    'engines rein': {
        'lib/engines/rein/engine_rein.c': ['alloc', 'rein-quick', 'tables', 'rein'],
        'lib/engines/rein/rein_core.c': ['alloc', 'rein-quick', 'tables', 'rein'],
        'lib/engines/rein/engine_mprein.c': ['alloc', 'mprein', 'rein-quick', 'rein'],
        'lib/engines/rein/rein_skiplist.c': ['buckets', 'rein-quick', 'rein'],
        'lib/engines/rein/rein_sortlist.c': ['buckets', 'rein-quick', 'rein'],
    },
    'engines grid, kdtree, brute': {
        'lib/engines/grid/engine_grid.c': ['alloc', 'tables', 'matcher'],
        'lib/engines/kdtree/engine_kdtree.c': ['alloc', 'tables', 'matcher'],
        'lib/engines/brute/engine_brute.c': ['alloc', 'tables', 'matcher', 'rein-quick'],
        'lib/matcher/spate_engine.c': ['alloc', 'tables', 'conf', 'matcher', 'rein-quick'],
        'lib/matcher/spate_schema.c': ['conf', 'category', 'rein-quick', 'matcher'],
    },
    'ivx': {
        'lib/engines/ivx/engine_ivx.c': ['ivx', 'rein-quick', 'tables', 'rein'],
        'lib/engines/ivx/ivx_index.c': ['ivx', 'rein-drt_ivx', 'rein-quick', 'tables', 'rein', 'alloc'],
    },
    'matching': {
        'lib/matcher/spate_matcher.c': ['alloc', 'matcher', 'tables', 'keyword', 'rein-quick'],
        'lib/matcher/spate_dict.c': ['alloc', 'tables', 'matcher', 'keyword'],
        'lib/matcher/spate_idmap.c': ['alloc', 'tables', 'drt', 'matcher'],
    },
    'streams': {
        'lib/stream/spate_stream.c': ['stream', 'tables'],
    },
    'access': {
        'lib/auth/spate_auth.c': ['access', 'protocol-doc'],
        'lib/auth/spate_ratelimit.c': ['access'],
    },
    'peer': {
        'lib/peer/spate_peer.c': ['peer', 'peer_auth', 'proto'],
        'lib/peer/spate_peer_chan.c': ['peer'],
        'lib/peer/spate_peer_map.c': ['peer'],
        'lib/auth/spate_peer_auth.c': ['peer_auth', 'peer'],
    },
    'config': {
        'lib/conf/spate_conf.c': ['conf'],
        'lib/engines/drt/drt_params.c': ['category', 'drt', 'balance', 'tables', 'conf'],
    },
    'stats': {
        'lib/util/spate_hist.c': ['hist'],
    },
    # app/: built with the daemon (DPDK); the tests start no port
    'app': {
        'app/config/config.c': ['app_config'],
        'app/config/ops_conf.c': ['app_config', 'app_control'],
        'app/control/control.c': ['app_control'],
        'app/control/ctl_out.c': ['app_counters', 'app_control'],
        'app/infra/counters.c': ['app_counters', 'app_rx'],
        'app/net/stage_rx.c': ['app_rx'],
        'app/net/net_rx.c': ['app_rx'],
        'app/infra/ring_out.c': ['app_ring', 'app_rx'],
        'app/net/tx_out.c': ['app_rx', 'app_cluster'],
        'app/cluster/stage_cluster.c': ['app_cluster', 'app_workers'],
        'app/cluster/cluster_proto.c': ['app_cluster_proto', 'app_cluster'],
        'app/cluster/cluster_place.c': ['app_cluster', 'app_workers'],
        'app/cluster/cluster_hold.c': ['app_cluster', 'app_workers'],
        # spated calls it from link_module.c only; app_workers drives it
        'app/cluster/cluster_failover.c': ['app_workers', 'app_cluster'],
        'app/config/spated_params.c': ['app_params', 'app_config', 'app_control'],
        'app/control/ctl_params.c': ['app_control', 'app_ctl_cmd'],
        'app/control/ctl_cmd.c': ['app_ctl_cmd', 'app_control'],
        'app/infra/module.c': ['app_module', 'app_ctl_cmd'],
        'app/net/notify.c': ['app_notify', 'app_cluster', 'app_tx'],
        'app/net/stage_tx.c': ['app_tx'],
        'app/net/net_tx.c': ['app_tx'],
        'app/net/neigh.c': ['app_neigh', 'app_tx'],
        'app/infra/pl_msg.c': ['app_cluster'],
    },
}
FILE_TESTS = {f: t for a in AREAS.values() for f, t in a.items()}
FILE_AREA = {f: a for a, fs in AREAS.items() for f in fs}
DEFAULT_TESTS = ['codec', 'proto', 'journal', 'drt', 'tables']


# ---------------------------------------------------------------- lexing
def code_mask(src):
    """One bool per character: True where it is C code (not a comment, a
    string or char literal, or a preprocessor line)."""
    mask = [True] * len(src)
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and c in ' \t':
            i += 1
            continue
        if line_start and c == '#':  # preprocessor line, with continuations
            j = i
            while j < n:
                if src[j] == '\n' and src[j - 1] != '\\':
                    break
                j += 1
            for k in range(i, j):
                mask[k] = False
            i = j
            continue
        line_start = c == '\n'
        if src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                mask[k] = False
            i = j
            continue
        if src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            for k in range(i, j):
                mask[k] = False
            i = j
            continue
        if c in '"\'':
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            for k in range(i, min(j + 1, n)):
                mask[k] = False
            i = j + 1
            continue
        i += 1
    return mask


def in_function(src):
    """One bool per character: inside a function body (brace depth >= 1 and
    the outermost brace opened after a ')'), so that initialisers of tables
    and struct definitions are left alone."""
    mask = code_mask(src)
    inside = [False] * len(src)
    depth, fn = 0, False
    last = ''
    for i, c in enumerate(src):
        if mask[i]:
            if c == '{':
                if depth == 0:
                    fn = last == ')'
                depth += 1
            elif c == '}':
                depth -= 1
                if depth == 0:
                    fn = False
            if not c.isspace():
                last = c
        inside[i] = fn and depth >= 1
    return inside


# ---------------------------------------------------------------- mutants
class Mutant:
    def __init__(self, path, op, start, end, new, src):
        self.path, self.op, self.start, self.end, self.new = path, op, start, end, new
        ls = src.rfind('\n', 0, start) + 1
        le = src.find('\n', end)
        le = len(src) if le < 0 else le
        self.line = src.count('\n', 0, start) + 1
        self.before = src[ls:le]
        self.after = src[ls:start] + new + src[end:le]
        col = start - ls - (len(self.before) - len(self.before.lstrip()))
        # the id names the file as top folder + file name ("lib/x.c"):
        # ids made before the files moved into module folders still hold
        name = path.split('/')[0] + '/' + os.path.basename(path)
        key = '%s|%s|%s|%d|%s' % (name, op, self.before.strip(), col, new)
        self.id = hashlib.sha1(key.encode()).hexdigest()[:10]

    def apply(self, src):
        return src[:self.start] + self.new + src[self.end:]

    def diff(self):
        return '%s:%d [%s] %s\n  - %s\n  + %s' % (
            self.path, self.line, self.op, self.id, self.before.strip(), self.after.strip())


ROR = {'<': ['<=', '>='], '<=': ['<', '>'], '>': ['>=', '<='], '>=': ['>', '<'],
       '==': ['!='], '!=': ['==']}
TOKEN = re.compile(r'<<=|>>=|<<|>>|->|\+\+|--|&&|\|\||[<>=!]=|[-+*/%&|^<>]=?|'
                   r'0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|\S')
STMT = re.compile(r'^(\s*)([A-Za-z_][\w.\[\]>-]*\s*(\(|=[^=]|\+=|-=|\|=|&=|\+\+|--)).*;\s*$')
DECL_START = re.compile(r'^\s*(return|break|continue|goto|case|default|else|do|'
                        r'if|for|while|switch|const|static|struct|enum|union|'
                        r'unsigned|signed|int|char|bool|float|double|void|long|'
                        r'short|size_t|uint\w*|int\w*|u?int\d+_t)\b')


def balanced(s):
    return s.count('(') == s.count(')') and '{' not in s and '}' not in s


def mutants_of(path, src):
    mask = code_mask(src)
    body = in_function(src)
    out = []
    prev = ''  # previous code token
    for m in TOKEN.finditer(src):
        a, b, t = m.start(), m.end(), m.group()
        if not mask[a]:
            continue
        if body[a]:
            if t in ROR:
                for r in ROR[t]:
                    out.append(Mutant(path, 'ror', a, b, r, src))
            elif t == '&&':
                out.append(Mutant(path, 'lcr', a, b, '||', src))
            elif t == '||':
                out.append(Mutant(path, 'lcr', a, b, '&&', src))
            elif t in ('+', '-') and (re.match(r'[\w)\]]', prev) or prev[-1:].isdigit()):
                out.append(Mutant(path, 'aor', a, b, '-' if t == '+' else '+', src))
            elif re.fullmatch(r'\d+[uUlL]*', t) and prev not in ('[',):
                num = re.match(r'\d+', t).group()
                suf = t[len(num):]
                v = int(num, 8 if num.startswith('0') and len(num) > 1 else 10)
                out.append(Mutant(path, 'const+1', a, b, str(v + 1) + suf, src))
                if v > 0:
                    out.append(Mutant(path, 'const-1', a, b, str(v - 1) + suf, src))
            elif t in ('true', 'false') and prev == 'return':
                out.append(Mutant(path, 'retbool', a, b, 'false' if t == 'true' else 'true', src))
            elif t in ('if', 'while'):
                j = b
                while j < len(src) and src[j].isspace():
                    j += 1
                if j < len(src) and src[j] == '(':
                    depth, k = 0, j
                    while k < len(src):
                        if mask[k]:
                            depth += src[k] == '('
                            depth -= src[k] == ')'
                            if depth == 0:
                                break
                        k += 1
                    cond = src[j + 1:k]
                    out.append(Mutant(path, 'negate', j, k + 1, '(!(' + cond + '))', src))
        prev = t
    # dropped statements: one-line calls, assignments, increments
    pos = 0
    for ln in src.splitlines(keepends=True):
        s = ln.rstrip('\n')
        st = pos + len(s) - len(s.lstrip())
        if s.strip() and body[st] and mask[st] and STMT.match(s) and not DECL_START.match(s) \
                and balanced(s):
            out.append(Mutant(path, 'drop', st, pos + len(s), ';', src))
        pos += len(ln)
    # unique by id (the same text twice on a line gets distinct columns)
    seen, uniq = set(), []
    for mu in out:
        if mu.id not in seen:
            seen.add(mu.id)
            uniq.append(mu)
    return uniq


def load_equivalent(path):
    eq = {}
    if os.path.exists(path):
        for ln in open(path):
            ln = ln.split('#', 1)[0].strip()
            if ln:
                parts = ln.split(None, 2)
                eq[parts[0]] = parts[2] if len(parts) > 2 else ''
    return eq


# ---------------------------------------------------------------- running
def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def prepare(work, nice, sanitize, daemon):
    """A scratch copy of the tracked tree (with local edits) and a build
    (build-san/ with ASan + UBSan when asked: memory mutants die there;
    build-app/ with spated when app/ files are mutated)."""
    src = os.path.join(work, 'src')
    files = sh(['git', '-C', TOP, 'ls-files', '-z', '--cached', '--others', '--exclude-standard']).stdout.split('\0')
    for f in files:
        if not f:
            continue
        a, b = os.path.join(TOP, f), os.path.join(src, f)
        if not os.path.isfile(a):
            continue
        if os.path.exists(b) and open(a, 'rb').read() == open(b, 'rb').read():
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        # copy, not copy2: the file's time must be now, or ninja may keep
        # an object built from a newer-looking older (mutated) version
        shutil.copy(a, b)
    shared = os.path.join(work, 'shared')  # tests look beside the checkout
    if not os.path.exists(shared) and os.path.isdir(os.path.join(TOP, '..', 'shared')):
        os.symlink(os.path.realpath(os.path.join(TOP, '..', 'shared')), shared)
    build = os.path.join(work, ('build-app' if daemon else 'build') + ('-san' if sanitize else ''))
    if not os.path.exists(os.path.join(build, 'build.ninja')):
        opts = ['-Db_sanitize=address,undefined', '-Db_lundef=false'] if sanitize else []
        r = sh(['nice', '-n', str(nice), 'meson', 'setup', build, src,
                '-Ddaemon=' + ('enabled' if daemon else 'disabled'), '-Dman=disabled'] + opts)
        if r.returncode:
            sys.exit('meson setup failed:\n' + r.stdout)
    return src, build


def ninja(build, targets, nice):
    return sh(['nice', '-n', str(nice), 'ninja', '-C', build] + targets)


def run_test(build, src, name, bound, nice):
    """0 pass, 1 fail, 2 timeout."""
    argv = [a.replace('@SRC@', src) for a in FAST[name][1]]
    argv[0] = os.path.join(build, argv[0])
    env = dict(os.environ, SPATE_CHECK_FAILFAST='1',
               ASAN_OPTIONS='detect_leaks=1:abort_on_error=0:exitcode=86',
               UBSAN_OPTIONS='halt_on_error=1:exitcode=87')
    p = subprocess.Popen(['nice', '-n', str(nice)] + argv, cwd=build, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        rc = 0 if p.wait(timeout=bound) == 0 else 1
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        rc = 2
    reap_dirs()
    return rc


def reap_dirs(run='/var/run/dpdk', tmp='/tmp'):
    """An app test killed or crashed by a mutant leaves its EAL runtime
    folder (RUN/spate-app-NAME-PID, tests/app/app_eal.h) and its
    temporary folder (TMP/spate-app-NAME-PID-XXXXXX); a normal exit
    removes them. Remove those whose process is gone."""
    for folder, at in ((run, -1), (tmp, -2)):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for n in names:
            parts = n.split('-')
            if not n.startswith('spate-app-') or len(parts) < 3 - at or not parts[at].isdigit():
                continue
            try:
                os.kill(int(parts[at]), 0)
            except ProcessLookupError:
                shutil.rmtree(os.path.join(folder, n), ignore_errors=True)
            except PermissionError:
                pass


SELF_SAMPLE = r"""/* clamp: a < b comment must stay */
#include <stdio.h>
#define LIMIT 10 /* not mutated: preprocessor */
static const int table[3] = { 1, 2, 3 };
const char *label = "x < y && 1";
int clamp(int v)
{
	if (v > LIMIT)
		return LIMIT;
	if (v < 0 && table[0] == 1)
		v = 0;
	return v;
}
"""
SELF_TEST = r"""int clamp(int v);
int main(void)
{
	return clamp(11) != 10 || clamp(-1) != 0 || clamp(5) != 5;
}
"""


def self_test():
    """The generator and the kill check on a tiny library and its test,
    built with cc: nothing mutated in comments, strings, the preprocessor
    or file-scope tables; every mutant the test can see dies, and the
    survivors are exactly the three equivalent ones (v >= LIMIT, v <= 0
    and v < 1 return the same values for every int)."""
    import tempfile
    ms = mutants_of('sample.c', SELF_SAMPLE)
    mask = code_mask(SELF_SAMPLE)
    body = in_function(SELF_SAMPLE)
    bad = [m for m in ms if not mask[m.start] or not body[m.start]]
    assert not bad, 'mutants outside function code: %s' % [m.diff() for m in bad]
    assert all(m.apply(SELF_SAMPLE) != SELF_SAMPLE for m in ms)
    assert len({m.id for m in ms}) == len(ms)
    ops = {m.op for m in ms}
    for op in ('ror', 'lcr', 'const+1', 'const-1', 'negate', 'drop'):
        assert op in ops, 'no %s mutant' % op
    survived = []
    with tempfile.TemporaryDirectory() as d:
        c, t, exe = os.path.join(d, 's.c'), os.path.join(d, 't.c'), os.path.join(d, 's')
        open(t, 'w').write(SELF_TEST)
        for m in ms:
            open(c, 'w').write(m.apply(SELF_SAMPLE))
            if sh(['cc', '-w', '-o', exe, c, t]).returncode:
                continue
            if subprocess.run([exe], timeout=10).returncode == 0:
                survived.append(m)
    got = sorted(m.after.strip() for m in survived)
    print('self-test: %d mutants, %d survived:\n%s' % (len(ms), len(survived),
                                                       '\n'.join(m.diff() for m in survived)))
    want = ['if (v < 0 && table[0] == 1)'.replace('v < 0', 'v < 1'),
            'if (v < 0 && table[0] == 1)'.replace('<', '<='),
            'if (v >= LIMIT)']
    assert got == sorted(want), 'survivors %s, expected %s' % (got, sorted(want))
    self_test_reap()
    print('self-test: ok')
    return 0


def self_test_reap():
    """reap_dirs removes a dead app test's folders, nobody else's."""
    import tempfile
    dead = subprocess.Popen(['true'])
    dead.wait()
    live = os.getpid()
    with tempfile.TemporaryDirectory() as d:
        run, tmp = os.path.join(d, 'run'), os.path.join(d, 'tmp')
        names = {run: ['spate-app-app-workers-%d' % dead.pid, 'spate-app-app-rx-%d' % live,
                       'other-%d' % dead.pid],
                 tmp: ['spate-app-workers-%d-Ab12Cd' % dead.pid,
                       'spate-app-control-%d-Xy34Zw' % live, 'spate-app-old-Qw12Er']}
        for folder, ns in names.items():
            for n in ns:
                os.makedirs(os.path.join(folder, n))
        reap_dirs(run, tmp)
        left = sorted(os.listdir(run) + os.listdir(tmp))
    want = sorted(['spate-app-app-rx-%d' % live, 'other-%d' % dead.pid,
                   'spate-app-control-%d-Xy34Zw' % live, 'spate-app-old-Qw12Er'])
    assert left == want, 'reap_dirs left %s, expected %s' % (left, want)


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('files', nargs='*')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--per-file', type=int, default=25)
    ap.add_argument('--budget', type=float, default=3600)
    ap.add_argument('--work', default=os.path.join(os.environ.get('TMPDIR', '/tmp'),
                                                   'spate-mutation'))
    ap.add_argument('--tests')
    ap.add_argument('--list', action='store_true', help='print the mutants, run nothing')
    ap.add_argument('--only', metavar='ID,ID', help='just these mutants (ids from a report)')
    ap.add_argument('--changed', metavar='BASE')
    ap.add_argument('--report')
    ap.add_argument('--json')
    ap.add_argument('--nice', type=int, default=10)
    ap.add_argument('--sanitize', action='store_true',
                    help='build and run under ASan + UBSan (leaks, over-reads die)')
    ap.add_argument('--factor', type=float, default=4.0,
                    help='a test may take FACTOR x its baseline (+10 s) before it is a hang')
    args = ap.parse_args()

    files = args.files
    if args.changed:
        out = sh(['git', '-C', TOP, 'diff', '--name-only', args.changed, '--', 'lib', 'app'])
        files = [f for f in out.stdout.split() if f.endswith('.c')]
    if not files:
        files = list(FILE_TESTS)
    files = [os.path.relpath(os.path.abspath(f), TOP) if os.path.exists(f) else f for f in files]
    eq = load_equivalent(os.path.join(TOP, 'tools', 'mutation-equivalent.txt'))

    plan = []
    for f in files:
        src = open(os.path.join(TOP, f)).read()
        ms = mutants_of(f, src)
        rng = random.Random('%d:%s' % (args.seed, f))
        rng.shuffle(ms)
        if args.only:
            ms = [m for m in ms if m.id in args.only.split(',')]
        elif args.per_file:
            ms = ms[:args.per_file]
        ms.sort(key=lambda m: (m.start, m.op, m.new))
        plan.append((f, src, ms))
    if args.list:
        for f, _, ms in plan:
            for m in ms:
                print(m.diff() + ('\n  (equivalent: %s)' % eq[m.id] if m.id in eq else ''))
            print('%s: %d mutants' % (f, len(ms)))
        return 0

    t0 = time.time()
    daemon = any(f.startswith('app/') for f, _, _ in plan)
    srcdir, build = prepare(args.work, args.nice, args.sanitize, daemon)
    needed = sorted({t for f, _, _ in plan for t in tests_for(f, args)})
    r = ninja(build, [FAST[t][0] for t in needed], args.nice)
    if r.returncode:
        sys.exit('the unmutated tree does not build:\n' + r.stdout[-3000:])
    base = {}
    for t in needed:  # baseline: every mapped test green, and how long it takes
        s = time.time()
        if run_test(build, srcdir, t, 1200, args.nice) != 0:
            sys.exit('test %s fails on the unmutated tree' % t)
        base[t] = time.time() - s
        print('baseline %-12s %.1f s' % (t, base[t]), flush=True)

    results = []
    stopped = False
    for f, orig, ms in plan:
        path = os.path.join(srcdir, f)
        tests = tests_for(f, args)
        targets = [FAST[t][0] for t in tests]
        for m in ms:
            if time.time() - t0 > args.budget:
                stopped = True
                break
            if m.id in eq:
                results.append((m, 'equivalent', ''))
                continue
            with open(path, 'w') as fh:
                fh.write(m.apply(orig))
            r = ninja(build, targets, args.nice)
            if r.returncode:
                status, by = 'stillborn', ''
            else:
                status, by = 'survived', ''
                for t in tests:
                    rc = run_test(build, srcdir, t, base[t] * args.factor + 10, args.nice)
                    if rc:
                        status, by = ('killed', 'timeout')[rc - 1], t
                        break
            results.append((m, status, by))
            print('%-9s %-12s %s' % (status, by, m.diff() if status == 'survived'
                                     else '%s:%d [%s] %s' % (m.path, m.line, m.op, m.id)),
                  flush=True)
        with open(path, 'w') as fh:
            fh.write(orig)
        if stopped:
            break
    ninja(build, [FAST[t][0] for t in needed], args.nice)  # leave it clean
    table = summarize(results, time.time() - t0, stopped, args)
    print(table)
    if args.report:
        with open(args.report, 'a') as fh:
            fh.write(table + '\n\nSurvivors:\n\n```\n')
            for m, s, _ in results:
                if s == 'survived':
                    fh.write(m.diff() + '\n')
            fh.write('```\n')
    if args.json:
        with open(args.json, 'w') as fh:
            json.dump([{'id': m.id, 'file': m.path, 'line': m.line, 'op': m.op,
                        'before': m.before.strip(), 'after': m.after.strip(),
                        'status': s, 'by': by} for m, s, by in results], fh, indent=1)
    return 0


def tests_for(f, args):
    if args.tests:
        return args.tests.split(',')
    return FILE_TESTS.get(f, DEFAULT_TESTS)


def summarize(results, secs, stopped, args):
    def score(rs):
        k = sum(1 for _, s, _ in rs if s in ('killed', 'timeout'))
        sv = sum(1 for _, s, _ in rs if s == 'survived')
        st = sum(1 for _, s, _ in rs if s == 'stillborn')
        eq = sum(1 for _, s, _ in rs if s == 'equivalent')
        pct = '%.0f %%' % (100.0 * k / (k + sv)) if k + sv else '-'
        return k, sv, st, eq, pct
    lines = ['| file | killed | survived | stillborn | equivalent | score |',
             '|---|---|---|---|---|---|']
    files = []
    for m, _, _ in results:
        if m.path not in files:
            files.append(m.path)
    for f in files:
        lines.append('| %s | %d | %d | %d | %d | %s |' % ((f,) + score([r for r in results if r[0].path == f])))
    areas = []
    for f in files:
        a = FILE_AREA.get(f, 'other')
        if a not in areas:
            areas.append(a)
    for a in areas:
        lines.append('| **%s** | %d | %d | %d | %d | %s |' % (
            (a,) + score([r for r in results if FILE_AREA.get(r[0].path, 'other') == a])))
    lines.append('| **all** | %d | %d | %d | %d | %s |' % score(results))
    lines.append('\nseed %d, %d per file, %.0f s%s%s' % (
        args.seed, args.per_file, secs, ', ASan + UBSan' if args.sanitize else '',
        ' (budget reached: partial)' if stopped else ''))
    return '\n'.join(lines)


if __name__ == '__main__':
    sys.exit(main())
