#!/usr/bin/env python
"""Userspace WAN emulator for WireGuard's outer UDP: fixed one-way delay plus seeded random loss.

The lab kernel has no netem, so the "internet" between the NAT router and the hub is this relay
(it runs in the tf-wan container, started by lab/up.sh as tunnelfix-wan-relay.service):

    client (nat's masqueraded peer)  --UDP-->  --listen ADDR:PORT      (the peer's Endpoint)
                                               relay: delay + loss
                                               one upstream socket per client, bound to
                                               --upstream-bind, connected to --target  --> hub

* Every datagram of at least --loss-min-bytes is dropped with probability --loss-percent
  (random.Random(--seed), so a run is reproducible for the same packet sequence); every datagram
  not dropped is sent on after exactly --delay-ms (each direction; --delay-up-ms /
  --delay-down-ms override one side). With the default of 1000 bytes the loss hits full-size
  packets (TCP data segments, which is what limits a loss-based congestion control) but not
  handshakes, keepalives, ACKs or pings, so a reachability test measures the NAT mapping rather
  than the dice: six pings through 1 % loss each way would all pass only 89 % of the time.
* The relay keeps its client -> upstream-socket mapping forever. It never expires anything, so
  the only mapping in the path that can time out is the NAT router's kernel conntrack entry.
  This is deliberate: it is the fault the lab reproduces.
* The delay is constant per direction, so packets leave in arrival order: a FIFO (deque) per
  direction is an exact timer queue with O(1) cost per packet. select() sleeps with microsecond
  resolution until the oldest packet is due.
* No rate limit here: the bottleneck is a tbf qdisc on the NAT router, so it stays known.

Counters are printed to stdout (the journal) every --stats-interval seconds when traffic moved.
Python 3 standard library only.
"""

import argparse
import collections
import os
import random
import select
import signal
import socket
import sys
import time

SOCKET_BUFFER_BYTES = 4 * 1024 * 1024  # absorbs bursts without adding unplanned loss
MAX_DATAGRAM_BYTES = 65535


def parse_hostport(text):
    """'203.0.113.1:51820' -> ('203.0.113.1', 51820)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected ADDRESS:PORT, got {text!r}")
    return host, int(port)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--listen", type=parse_hostport, required=True,
                        help="client-facing ADDRESS:PORT (the WireGuard Endpoint clients use)")
    parser.add_argument("--target", type=parse_hostport, required=True,
                        help="upstream ADDRESS:PORT (the hub's WireGuard ListenPort)")
    parser.add_argument("--upstream-bind", default="0.0.0.0",
                        help="local address for the per-client upstream sockets")
    parser.add_argument("--delay-ms", type=float, default=25.0,
                        help="one-way delay in milliseconds, both directions")
    parser.add_argument("--delay-up-ms", type=float, default=None,
                        help="client -> target delay in milliseconds (default: --delay-ms)")
    parser.add_argument("--delay-down-ms", type=float, default=None,
                        help="target -> client delay in milliseconds (default: --delay-ms)")
    parser.add_argument("--loss-percent", type=float, default=1.0,
                        help="random loss per datagram and direction, 0-100")
    parser.add_argument("--loss-min-bytes", type=int, default=1000,
                        help="only datagrams of at least this many bytes can be lost (0: all)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the loss generator")
    parser.add_argument("--max-queue", type=int, default=50000,
                        help="packets held per direction before tail drop")
    parser.add_argument("--stats-interval", type=float, default=10.0,
                        help="seconds between counter lines (0 disables them)")
    args = parser.parse_args(argv)
    for name in ("delay_ms", "delay_up_ms", "delay_down_ms"):
        value = getattr(args, name)
        if value is not None and value < 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0, got {value}")
    if args.loss_min_bytes < 0:
        parser.error(f"--loss-min-bytes must be >= 0, got {args.loss_min_bytes}")
    if not 0 <= args.loss_percent <= 100:
        parser.error(f"--loss-percent must be 0-100, got {args.loss_percent}")
    return args


def tune_buffers(sock):
    """Large socket buffers; the *FORCE variants ignore net.core.*mem_max (needs CAP_NET_ADMIN)."""
    for force, plain in ((33, socket.SO_RCVBUF), (32, socket.SO_SNDBUF)):  # SO_RCVBUFFORCE, SO_SNDBUFFORCE
        try:
            sock.setsockopt(socket.SOL_SOCKET, force, SOCKET_BUFFER_BYTES)
        except OSError:
            sock.setsockopt(socket.SOL_SOCKET, plain, SOCKET_BUFFER_BYTES)


class Direction:
    """One direction of the path: its delay, its FIFO of pending packets and its counters."""

    def __init__(self, name, delay_s, max_queue):
        self.name = name
        self.delay_s = delay_s
        self.max_queue = max_queue
        self.queue = collections.deque()  # (due_monotonic, sock, payload, address or None)
        self.received = self.lost = self.sent = self.send_errors = self.overflow = 0
        self.peak_queue = 0

    def push(self, now, sock, payload, address):
        if len(self.queue) >= self.max_queue:
            self.overflow += 1
            return
        self.queue.append((now + self.delay_s, sock, payload, address))
        if len(self.queue) > self.peak_queue:
            self.peak_queue = len(self.queue)

    def flush(self, now):
        """Send every packet that is due; return seconds until the next one (None if empty)."""
        queue = self.queue
        while queue:
            due, sock, payload, address = queue[0]
            if due > now:
                return due - now
            queue.popleft()
            try:
                if address is None:
                    sock.send(payload)
                else:
                    sock.sendto(payload, address)
                self.sent += 1
            except OSError:  # ENOBUFS, ECONNREFUSED from an earlier ICMP error, unreachable
                self.send_errors += 1
        return None

    def counters(self):
        return (f"{self.name}: received={self.received} lost={self.lost} sent={self.sent} "
                f"send_errors={self.send_errors} overflow={self.overflow} "
                f"peak_queue={self.peak_queue}")


class Relay:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.loss = args.loss_percent / 100.0
        self.loss_min_bytes = args.loss_min_bytes
        up_ms = args.delay_ms if args.delay_up_ms is None else args.delay_up_ms
        down_ms = args.delay_ms if args.delay_down_ms is None else args.delay_down_ms
        self.up = Direction("up", up_ms / 1000.0, args.max_queue)
        self.down = Direction("down", down_ms / 1000.0, args.max_queue)
        self.listen = self._socket()
        # Bind even before the address exists (IP_FREEBIND), so unit start order does not matter.
        self.listen.setsockopt(socket.SOL_IP, 15, 1)  # IP_FREEBIND
        self.listen.bind(args.listen)
        self.upstream_by_client = {}  # client address -> connected upstream socket (never expires)
        self.client_by_fd = {}  # upstream socket fileno -> client address
        self.readers = [self.listen]
        self.buffer = bytearray(MAX_DATAGRAM_BYTES)

    @staticmethod
    def _socket():
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setblocking(False)
        tune_buffers(sock)
        return sock

    def _upstream_for(self, client):
        sock = self.upstream_by_client.get(client)
        if sock is None:
            sock = self._socket()
            sock.setsockopt(socket.SOL_IP, 15, 1)  # IP_FREEBIND
            sock.bind((self.args.upstream_bind, 0))
            sock.connect(self.args.target)
            self.upstream_by_client[client] = sock
            self.client_by_fd[sock.fileno()] = client
            self.readers.append(sock)
            print(f"new client {client[0]}:{client[1]} -> upstream "
                  f"{sock.getsockname()[0]}:{sock.getsockname()[1]}", flush=True)
        return sock

    def _drain(self, sock, now):
        """Read every queued datagram from one socket and schedule (or drop) it."""
        buf = self.buffer
        from_client = sock is self.listen
        direction = self.up if from_client else self.down
        while True:
            try:
                size, address = sock.recvfrom_into(buf)
            except BlockingIOError:
                return
            except OSError:  # ICMP error reported on a connected upstream socket; keep going
                continue
            direction.received += 1
            if size >= self.loss_min_bytes and self.rng.random() < self.loss:
                direction.lost += 1
                continue
            payload = bytes(buf[:size])
            if from_client:
                direction.push(now, self._upstream_for(address), payload, None)
            else:
                direction.push(now, self.listen, payload, self.client_by_fd[sock.fileno()])

    def run(self):
        interval = self.args.stats_interval
        next_stats = time.monotonic() + interval
        last_report = None
        monotonic = time.monotonic
        print(f"relaying {self.args.listen[0]}:{self.args.listen[1]} -> "
              f"{self.args.target[0]}:{self.args.target[1]} delay up={self.up.delay_s * 1000:g}ms "
              f"down={self.down.delay_s * 1000:g}ms loss={self.args.loss_percent:g}% "
              f"seed={self.args.seed}", flush=True)
        while True:
            now = monotonic()
            waits = [w for w in (self.up.flush(now), self.down.flush(now)) if w is not None]
            timeout = min(waits) if waits else 1.0
            if interval > 0:
                timeout = max(0.0, min(timeout, next_stats - now))
            ready = select.select(self.readers, [], [], timeout)[0]
            now = monotonic()
            for sock in ready:
                self._drain(sock, now)
            if interval > 0 and now >= next_stats:
                next_stats = now + interval
                report = (self.up.counters(), self.down.counters())
                if report != last_report:
                    print(" | ".join(report), flush=True)
                    last_report = report


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        os.nice(-10)  # scheduling delay shows up as extra latency; best effort only
    except OSError:
        pass
    Relay(args).run()


if __name__ == "__main__":
    main()
