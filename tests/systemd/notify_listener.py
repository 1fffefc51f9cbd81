#!/usr/bin/env python3
"""tests/systemd/notify_listener.py: the service manager's end of sd_notify, for the tests.

Binds an AF_UNIX datagram socket, creates the --bound file only once it is bound (so the daemon
started after that cannot lose its first datagram), and appends every datagram to LOG as one JSON
line: {"t": monotonic seconds, "sent": when the sender sent it, "pid": sender, "uid": sender,
"msg": text}. "t" is when this listener read it; "sent" is the kernel's own stamp of the send
(SO_TIMESTAMPNS), on the same monotonic clock, so a listener that a loaded machine kept from
running does not make a steady sender look late. The sender's pid comes from SCM_CREDENTIALS, as
systemd's NotifyAccess=main check uses it. With --on-ready, a command runs the moment READY=1
arrives (its output goes to --on-ready-out), to see what the kernel holds when the daemon says it
is ready. Exits after --timeout seconds at the latest.
"""
import argparse
import json
import os
import socket
import struct
import subprocess
import time

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux's value; Python 3.11 lacks it


def main():
    p = argparse.ArgumentParser()
    p.add_argument("socket")
    p.add_argument("log")
    p.add_argument("--bound", required=True)
    p.add_argument("--on-ready")
    p.add_argument("--on-ready-out")
    p.add_argument("--timeout", type=float, default=60)
    a = p.parse_args()

    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind(a.socket)
    # like /run/systemd/notify: an unprivileged (DynamicUser=) daemon must be able to send
    os.chmod(a.socket, 0o777)
    with open(a.bound + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(a.bound + ".tmp", a.bound)

    deadline = time.monotonic() + a.timeout
    with open(a.log, "a", buffering=1) as log:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            s.settimeout(left)
            try:
                data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12) + socket.CMSG_SPACE(16))
            except socket.timeout:
                break
            t = time.monotonic()
            late = 0.0  # how long ago the kernel took it from the sender (its clock is real time)
            pid = uid = None
            for level, kind, d in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid, uid, _ = struct.unpack("3i", d[:12])
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(d) >= 16:
                    sec, ns = struct.unpack("qq", d[:16])
                    late = max(0.0, time.time() - (sec + ns / 1e9))
            msg = data.decode(errors="replace")
            rec = {"t": t, "sent": t - late, "pid": pid, "uid": uid, "msg": msg}
            log.write(json.dumps(rec) + "\n")
            if a.on_ready and "READY=1" in msg.split("\n"):
                out = subprocess.run(a.on_ready, shell=True, capture_output=True, text=True,
                                     timeout=10)
                with open(a.on_ready_out + ".tmp", "w") as f:
                    f.write(out.stdout + out.stderr)
                os.rename(a.on_ready_out + ".tmp", a.on_ready_out)
                a.on_ready = None


if __name__ == "__main__":
    main()
