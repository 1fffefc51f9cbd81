#!/usr/bin/env python3
"""tests/systemd/seccomp_exec.py UNIT -- CMD...: exec CMD under the seccomp side of UNIT's sandbox.

Where systemd is not PID 1 the unit cannot be started, so test_sandbox.sh rebuilds its sandbox
by hand; this is the seccomp part, read from the unit itself so that it follows the unit:
SystemCallFilter= (groups expanded by systemd-analyze, the same tables systemd uses),
SystemCallErrorNumber=, RestrictAddressFamilies=, RestrictNamespaces=yes,
MemoryDenyWriteExecute=yes and LockPersonality=yes, through libseccomp (ctypes) for the native
architecture only (SystemCallArchitectures=native). An approximation of systemd's own filters,
not a copy: close enough to show which system calls the daemon needs.
"""
import ctypes
import errno
import os
import subprocess
import sys

ACT_ALLOW = 0x7FFF0000
CMP_EQ, CMP_MASKED_EQ = 4, 7
NS_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | \
    0x40000000 | 0x00000080
PROT_WRITE, PROT_EXEC = 2, 4
FAMILIES = {"AF_UNIX": 1, "AF_LOCAL": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16,
            "AF_PACKET": 17}


def act_errno(e):
    return 0x00050000 | (e & 0xFFFF)


class ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]


def service_settings(path):
    """[Service] key -> list of values, in file order."""
    out, section = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line
                continue
            if section == "[Service]" and "=" in line:
                k, v = line.split("=", 1)
                out.setdefault(k.strip(), []).append(v.strip())
    return out


def syscall_groups():
    """@group -> its members (names and @groups), from `systemd-analyze syscall-filter`."""
    text = subprocess.run(["systemd-analyze", "syscall-filter"], check=True,
                          capture_output=True, text=True).stdout
    groups, cur = {}, None
    for line in text.splitlines():
        if line.startswith("@"):
            cur = groups.setdefault(line.strip(), set())
        elif cur is not None and line.strip() and not line.strip().startswith("#"):
            cur.add(line.strip())
    return groups


def expand(item, groups, seen):
    if not item.startswith("@"):
        return {item}
    if item in seen:
        return set()
    seen.add(item)
    if item not in groups:
        sys.exit(f"unknown system call group {item}")
    names = set()
    for member in groups[item]:
        names |= expand(member, groups, seen)
    return names


def allowed_syscalls(values):
    groups, allow = syscall_groups(), set()
    for v in values:
        deny = v.startswith("~")
        names = set()
        for item in v.lstrip("~").split():
            names |= expand(item, groups, set())
        allow = allow - names if deny else allow | names
    return allow


def main():
    argv = sys.argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        sys.exit("usage: seccomp_exec.py UNIT -- CMD...")
    cfg = service_settings(argv[0])
    cmd = argv[2:]
    lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(ArgCmp)]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]

    err = cfg.get("SystemCallErrorNumber", ["EPERM"])[-1]
    ctx = lib.seccomp_init(act_errno(getattr(errno, err)))
    if not ctx:
        sys.exit("seccomp_init failed")

    def rule(action, name, *cmps):
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:	# not a system call of this architecture
            return
        arr = (ArgCmp * max(len(cmps), 1))(*[ArgCmp(*c) for c in cmps])
        r = lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), arr)
        if r < 0:
            sys.exit(f"seccomp rule for {name}: {os.strerror(-r)}")

    allow = allowed_syscalls(cfg.get("SystemCallFilter", []))
    if not allow:
        sys.exit("the unit has no SystemCallFilter= allow list")
    special = {}
    if cfg.get("RestrictNamespaces", ["no"])[-1] == "yes":
        for name in ("unshare", "setns"):
            special[name] = []	# denied
        special["clone"] = [(0, CMP_MASKED_EQ, NS_FLAGS, 0)]
        rule(act_errno(errno.ENOSYS), "clone3")	# its flags cannot be inspected
        special["clone3"] = None
    if cfg.get("MemoryDenyWriteExecute", ["no"])[-1] == "yes":
        wx = PROT_WRITE | PROT_EXEC
        special["mmap"] = [(2, CMP_MASKED_EQ, wx, 0), (2, CMP_MASKED_EQ, wx, PROT_WRITE),
                           (2, CMP_MASKED_EQ, wx, PROT_EXEC)]
        special["mprotect"] = [(2, CMP_MASKED_EQ, PROT_EXEC, 0)]
        special["pkey_mprotect"] = [(2, CMP_MASKED_EQ, PROT_EXEC, 0)]
    if cfg.get("LockPersonality", ["no"])[-1] == "yes":
        special["personality"] = [(0, CMP_EQ, 0xFFFFFFFF, 0), (0, CMP_EQ, 0, 0)]
    fams = " ".join(cfg.get("RestrictAddressFamilies", [])).split()
    if fams and not fams[0].startswith("~"):
        special["socket"] = [(0, CMP_EQ, FAMILIES[f], 0) for f in fams]
    for name in sorted(allow):
        if name in special:
            for c in special[name] or []:
                rule(ACT_ALLOW, name, c)
        else:
            rule(ACT_ALLOW, name)
    r = lib.seccomp_load(ctx)	# also sets no_new_privs
    if r < 0:
        sys.exit(f"seccomp_load: {os.strerror(-r)}")
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
