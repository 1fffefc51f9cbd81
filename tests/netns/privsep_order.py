#!/usr/bin/env python3
# tests/netns/privsep_order.py STRACE_FILE: from `strace -f -tt` of a gatewayd (with clone,
# clone3, fork, vfork, execve, prctl, setresuid, seccomp, accept4, accept, read, recvfrom,
# recvmsg traced), whether every web process (a process the launcher, the one that names
# itself "gatewayd-weblaunch", forked and that executes nothing: a helper does) and each of
# its threads accepted a connection and read a client's bytes only after that process's
# setresuid to a uid other than 0 and its seccomp filter were in place. Prints one
# "web PID: ..." line per process and "bad: ..." lines; exits 0 when every web process held,
# 1 otherwise, 2 when there is no web process at all.
import re
import sys

LINE = re.compile(r'^(\d+)\s+(\d\d):(\d\d):(\d\d)\.(\d+)\s+(.*)$')
CALL = re.compile(r'^(\w+)\((.*)$')
RESUMED = re.compile(r'^<\.\.\. (\w+) resumed>(.*)$')
RESULT = re.compile(r'\)\s+=\s+(-?\d+|\?)')


def parse(path):
    """(tid, time, name, args, result) per completed call; a call strace split in two is
    joined and timed at its completion."""
    pending = {}
    for raw in open(path, errors='replace'):
        m = LINE.match(raw.rstrip('\n'))
        if not m:
            continue
        tid = int(m.group(1))
        t = (int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4))
             + int(m.group(5)) / 10 ** len(m.group(5)))
        rest = m.group(6)
        r = RESUMED.match(rest)
        if r:
            name, args = pending.pop(tid, (r.group(1), ''))
            text = args + r.group(2)
        else:
            c = CALL.match(rest)
            if not c:
                continue
            name, text = c.group(1), c.group(2)
            if text.endswith('<unfinished ...>'):
                pending[tid] = (name, text[:-len('<unfinished ...>')])
                continue
        res = RESULT.search(text)
        val = res.group(1) if res else '?'
        yield tid, t, name, text, (int(val) if val not in ('?',) else None)


def clock(t, none=''):
    """Seconds since midnight as strace -tt prints them."""
    if t is None:
        return none
    return '%02d:%02d:%09.6f' % (t // 3600, t % 3600 // 60, t % 60)


def main():
    calls = list(parse(sys.argv[1]))
    group = {}          # tid -> thread group (the process's first tid)
    parent = {}         # group -> the group that forked it
    launchers = set()   # groups that named themselves gatewayd-weblaunch
    execs = set()       # groups that executed a program (helpers)
    dropped = {}        # group -> time of its setresuid to a non-root uid
    filtered = {}       # group -> time its seccomp filter was in
    accepted = {}       # group -> set of fds accept returned
    first = {}          # group -> time of its first accept
    bad = []
    # who is who first: a process is known as a web process from its fork on
    for tid, t, name, args, res in calls:
        g = group.setdefault(tid, tid)
        if name in ('clone', 'clone3', 'fork', 'vfork') and res and res > 0:
            # a thread joins its creator's group; a process is a group of its own
            group[res] = g if 'CLONE_THREAD' in args else res
            if 'CLONE_THREAD' not in args:
                parent[res] = g
        elif name == 'prctl' and '"gatewayd-weblau"' in args:	# strace cuts it at 15
            launchers.add(g)
        elif name == 'execve':
            execs.add(g)
    # the web processes: what the launcher forked and that executes nothing
    web = {g for g, p in parent.items() if p in launchers and g not in execs}
    for tid, t, name, args, res in calls:
        g = group[tid]
        if name == 'setresuid' and res == 0:
            uid = args.split(',')[0].strip()
            if uid != '0':
                dropped.setdefault(g, t)
        elif name == 'seccomp' and 'SECCOMP_SET_MODE_FILTER' in args and 'len=' in args \
                and res == 0:
            filtered.setdefault(g, t)
        if g not in web:
            continue
        if name in ('accept4', 'accept') and res is not None and res >= 0:
            first.setdefault(g, t)
            accepted.setdefault(g, set()).add(res)
            if g not in dropped or g not in filtered:
                bad.append('web %d: thread %d accepted a connection at %s before %s' % (
                    g, tid, clock(t), 'setresuid' if g not in dropped else 'the filter'))
        elif name in ('read', 'recvfrom', 'recvmsg') and res is not None and res > 0:
            fd = int(re.match(r'\s*(\d+)', args).group(1)) if re.match(r'\s*\d+', args) else -1
            if fd in accepted.get(g, set()) and (g not in dropped or g not in filtered):
                bad.append('web %d: thread %d read a client\'s bytes at %s before it was '
                           'all in place' % (g, tid, clock(t)))
    if not web:
        print('bad: no web process in the trace')
        return 2
    for g in sorted(web):
        threads = sorted(tid for tid, gg in group.items() if gg == g)
        print('web %d (%d threads): setresuid %s, filter %s, first accept %s' % (
            g, len(threads), clock(dropped.get(g), 'never'), clock(filtered.get(g), 'never'),
            clock(first.get(g), 'none')))
        if g not in dropped or g not in filtered:
            bad.append('web %d: never %s' % (g, 'dropped' if g not in dropped else 'filtered'))
    for b in bad:
        print('bad: ' + b)
    return 1 if bad else 0


sys.exit(main())
