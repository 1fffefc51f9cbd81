#!/usr/bin/env python3
"""tests/webui/lan_clients.py: LAN clients against the web UI, for test_http_lan.sh.

guess PORT CAFILE N GOOD_USER:PASS: N wrong passwords from 127.0.0.2 on one kept-alive TLS
  connection, while a good client on 127.0.0.3 (a process of its own) asks /api/status
  every 20 ms with the right one; prints "codes C1,C2,...", "retry_after MIN MAX", "good N MEDIAN_MS MAX_MS FAILS"
  (the good client's first request, with its TLS handshake, is not timed).
hold PORT ADDRS CONNS SECONDS: ADDRS x CONNS connections (from 127.0.1.1...) that each ask
  /api/history and never read (a 1 KiB receive buffer); holds them SECONDS, prints
  "held N", then reads each reply's head and prints "codes 200:N 503:M" and
  "retry_after_503 K" (how many 503s said Retry-After: 1).
"""
import base64
import http.client
import multiprocessing
import socket
import ssl
import sys
import threading
import time


def tls(cafile):
    ctx = ssl.create_default_context(cafile=cafile)
    return ctx


def auth(cred):
    return {"Authorization": "Basic " + base64.b64encode(cred.encode()).decode()}


def good_client(port, cafile, good, ready, stop, out):
    """Its own process, so the guesser's work does not delay its clock."""
    ctx = tls(cafile)
    times, fails = [], 0
    c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=5,
                                    source_address=("127.0.0.3", 0))
    # the TLS handshake and the first (slow) crypt before the clock starts
    c.request("GET", "/api/status", headers=auth(good))
    c.getresponse().read()
    ready.set()
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            c.request("GET", "/api/status", headers=auth(good))
            r = c.getresponse()
            r.read()
            if r.status != 200:
                fails += 1
        except (OSError, http.client.HTTPException):
            fails += 1
            c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=5,
                                            source_address=("127.0.0.3", 0))
        times.append(time.monotonic() - t0)
        time.sleep(0.02)
    out.put((times, fails))


def guess(port, cafile, n, good):
    ctx = tls(cafile)
    stop, ready, out = multiprocessing.Event(), multiprocessing.Event(), multiprocessing.Queue()
    g = multiprocessing.Process(target=good_client, args=(port, cafile, good, ready, stop, out))
    g.start()
    ready.wait(10)
    time.sleep(0.1)
    codes, retry = [], []
    c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10,
                                    source_address=("127.0.0.2", 0))
    user = good.split(":")[0]
    for i in range(n):
        try:
            c.request("GET", "/api/status", headers=auth("%s:wrong%d" % (user, i)))
            r = c.getresponse()
            r.read()
            codes.append(r.status)
            if r.status == 429:
                retry.append(int(r.getheader("Retry-After", "-1")))
        except (OSError, http.client.HTTPException):
            codes.append(0)
            c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10,
                                            source_address=("127.0.0.2", 0))
    time.sleep(0.2)
    stop.set()
    good_times, good_fails = out.get(timeout=20)
    g.join()
    print("codes " + ",".join(str(x) for x in codes))
    print("retry_after %d %d" % (min(retry or [-1]), max(retry or [-1])))
    good_times.sort()
    print("good %d %.1f %.1f %d" % (len(good_times),
                                    1000 * good_times[len(good_times) // 2] if good_times else 99,
                                    1000 * max(good_times or [99]), good_fails))


def hold(port, addrs, conns, seconds):
    socks = []
    lock = threading.Lock()
    req = b"GET /api/history?link=wan&direction=egress HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    def one_address(a):
        for _ in range(conns):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            s.bind(("127.0.1.%d" % (a + 1), 0))
            s.settimeout(60)	# a SYN the full backlog dropped is sent again, 1, 3, 7 s on
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(req)
                with lock:
                    socks.append(s)
            except OSError:
                s.close()

    # an address a thread: a connect that waits for the server's accept holds up only its own
    threads = [threading.Thread(target=one_address, args=(a,)) for a in range(addrs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("held %d" % len(socks), flush=True)
    time.sleep(seconds)
    # only now read: each reply's status line
    codes, retry = {}, 0
    for s in socks:
        try:
            s.settimeout(1)
            head = s.recv(512).decode("ascii", "replace")
            code = head.split(" ")[1] if " " in head else "none"
            if code == "503" and "\r\nRetry-After: 1\r\n" in head:
                retry += 1
        except OSError:
            code = "none"
        codes[code] = codes.get(code, 0) + 1
        s.close()
    print("codes " + " ".join("%s:%d" % kv for kv in sorted(codes.items())), flush=True)
    print("retry_after_503 %d" % retry, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "guess":
        guess(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "hold":
        hold(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
