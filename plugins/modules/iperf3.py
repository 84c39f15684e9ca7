#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``iperf3`` action (plugins/action/iperf3.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: iperf3
short_description: Measure a path with an iperf3 client and check the result against thresholds
version_added: 0.1.0
description:
  - Runs C(iperf3 -c SERVER -J) on the target host and parses the client's JSON (only the
    client's JSON carries both sides' numbers; see iperf3 issue 1410).
  - Python-free, so it works on OpenWrt routers (BusyBox) as well as on Linux hosts. It is an
    action plugin that runs C(command -v iperf3) and the iperf3 client as plain commands over
    the connection and parses and judges the JSON on the controller. It looks up C(iperf3), C(timeout) and
    C(iperf3 --version) in one execution, then runs the test in one more (per busy retry).
  - Returns receiver and sender bits_per_second, retransmits (null when iperf3 does not report
    them, never 0), UDP lost_percent and jitter_ms, the congestion control used and the iperf3
    version.
  - The iperf3 server accepts one test at a time; "the server is busy running a test" and other
    transient control-channel errors are retried with exponential backoff and random jitter, so
    a fleet does not retry in lock-step.
  - An iperf3 JSON C(error) is a failure with iperf3's message, never a 0 bit/s result.
  - With iperf3 3.1 or later on the target the client asks for the server's own output (C(--get-server-output)). From
    a server run with C(--json) (M(tunnelfix.fleet.iperf3_server) does) that is its JSON, whose counts and version are
    returned (RV(server_version), RV(server_lost_packets), RV(server_packets)).
  - A result that cannot be true is returned with RV(valid) false and every reason in RV(invalid_reason), and fails any
    threshold given - a UDP test that counted no packet, more packets lost than counted or a negative count, only the
    first interval carrying data (a stuck server, in the client's or the server's intervals), C(nan)/C(-nan) where
    iperf3 printed a number (named so; iperf3 before 3.1.2), loss outside 0-100, a server that reported an error, or
    client and server counts that disagree.
  - UDP loss is null, never 0, when iperf3 cannot vouch for it (RV(lost_unknown_reason) says why) - where the client
    sends and the server runs iperf3 before 3.14 (or of unknown version) while the client runs 3.14 or later (the
    client then reports the server's losses as 0; esnet/iperf issues 1984, 2055), or the client runs iperf3 before
    3.14 with O(omit_s) (the omitted seconds' losses are counted too; esnet/iperf issue 1489). O(max_lost_percent)
    then fails.
  - A long UDP test gets C(--udp-counters-64bit) (iperf3 3.1 or later) when it may send more than 2^28 datagrams,
    the rate (O(bitrate), else 1 Mbit/s; 0 is unlimited) times O(omit_s) + O(duration_s) times O(parallel), over
    1000-byte datagrams. A 32-bit datagram count wraps after 2^31. An hour at about 600 Mbit/s per stream gets them.
  - Never reports changed.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  server:
    description: Address or name of the iperf3 server (C(-c)).
    type: str
    required: true
  port:
    description: Server port (C(-p)).
    type: int
    default: 5201
  protocol:
    description: C(tcp) or C(udp) (C(-u)).
    type: str
    choices: [tcp, udp]
    default: tcp
  reverse:
    description: Server sends, this host receives (C(-R)).
    type: bool
    default: false
  parallel:
    description: Number of parallel streams (C(-P)), 1-128.
    type: int
    default: 1
  duration_s:
    description: Test length in seconds (C(-t)), 1-3600.
    type: int
    default: 10
  omit_s:
    description: Seconds at the start left out of the result (C(-O)), to skip slow start.
    type: int
    default: 0
  bitrate:
    description:
      - Target bitrate (C(-b)), bits per second as a number or with k/M/G/T (C(150M), C(1.5G)).
      - For UDP iperf3's own default is 1 Mbit/s.
    type: str
  congestion_control:
    description: TCP congestion control for this test only (C(-C)), for example C(bbr).
    type: str
  bind_address:
    description: Local address to bind (C(-B)).
    type: str
  connect_timeout_ms:
    description: Control connection timeout in milliseconds (C(--connect-timeout)).
    type: int
    default: 5000
  min_bits_per_second:
    description:
      - Fail when the receiver's bits_per_second is below this. A number of bits per second or
        a string with k/M/G/T (C(150M), C(1.5G)).
    type: raw
  max_lost_percent:
    description: Fail when UDP lost_percent is above this (0-100).
    type: float
  max_retransmits:
    description: Fail when TCP retransmits are above this. Ignored (with a warning) when iperf3 does not report retransmits.
    type: int
  busy_retries:
    description: How many times to retry a transient error such as "server is busy".
    type: int
    default: 5
  busy_backoff_s:
    description: Base of the exponential backoff in seconds; each wait is random in [0, base*2^attempt], at most 30 s.
    type: float
    default: 2.0
  start_delay_s:
    description:
      - Seconds to wait before the test (0-600), on the controller after iperf3 is found. The flows of one
        measurement slot (role C(tunnel_measure)) start apart by a seeded delay, so they do not all slow-start at once.
    type: float
    default: 0
notes:
  - Supports check mode by not running the test (result C(skipped)); the options are still
    checked and C(iperf3) is still looked up on the target.
  - Unit for every rate is bits per second (decimal prefixes, like iperf3's rate options).
  - Needs only a POSIX shell (BusyBox C(ash) will do) and C(iperf3) on the target's C(PATH); no
    Python. The waits between busy retries happen on the controller.
attributes:
  check_mode:
    support: full
    details: Checks the options and looks up iperf3; does not run the test.
  diff_mode:
    support: none
  platform:
    platforms: posix
seealso:
  - name: iperf3 JSON output fields
    description: Fields of C(iperf3 -J) and how they differ by version (3.7 duplicate bidir keys, UDP sums before 3.11).
    link: https://github.com/esnet/iperf
"""

EXAMPLES = r"""
- name: Single TCP flow from this host to the hub must reach 32 Mbit/s
  tunnelfix.fleet.iperf3:
    server: 10.44.0.1
    duration_s: 15
    min_bits_per_second: 32M

- name: UDP at 20 Mbit/s, at most 2 % loss
  tunnelfix.fleet.iperf3:
    server: 10.44.0.1
    protocol: udp
    bitrate: 20M
    max_lost_percent: 2

- name: Download direction with BBR for this test only
  tunnelfix.fleet.iperf3:
    server: 10.44.0.1
    reverse: true
    congestion_control: bbr
  register: download
"""

RETURN = r"""
bits_per_second:
  description: Receiver bits per second (the goodput of the test).
  returned: success
  type: float
  sample: 37412000.0
receiver_bits_per_second:
  description: Bits per second measured by the receiving side.
  returned: success
  type: float
sender_bits_per_second:
  description: Bits per second sent by the sending side.
  returned: success
  type: float
retransmits:
  description: TCP retransmits of the sender; null when iperf3 does not report them (not 0).
  returned: success
  type: int
  sample: 412
lost_percent:
  description:
    - UDP datagrams lost, percent; null for TCP.
    - Null, not 0, for UDP when iperf3 cannot vouch for the loss (see RV(lost_unknown_reason)).
  returned: success
  type: float
lost_packets:
  description: UDP datagrams lost (null for TCP, and when the loss is unknown).
  returned: success
  type: int
packets:
  description: UDP datagrams counted by the receiver (the server's count as the client reports it; null for TCP).
  returned: success
  type: int
lost_unknown_reason:
  description: Why a UDP loss is null although the test ran (iperf3 versions of client and server, C(--omit)); null otherwise.
  returned: success
  type: str
  sample: >-
    the server runs iperf3 3.12, which sends no omitted counts (before 3.14), and iperf3 3.16 on the client then
    reports the loss the server counted as 0 or miscounts it (esnet/iperf#1984, #2055); the server itself counted
    412 of 9137 datagrams lost
server_version:
  description: The server's iperf3 version, from its own JSON (C(--get-server-output), a server run with C(--json)); null without it.
  returned: success
  type: str
  sample: "3.12"
server_lost_packets:
  description: UDP datagrams the server itself counted lost, when the client sent and the server's JSON came back; else null.
  returned: success
  type: int
server_packets:
  description: UDP datagrams the server itself counted, when the client sent and the server's JSON came back; else null.
  returned: success
  type: int
udp_counters_64bit:
  description: Whether the client ran with C(--udp-counters-64bit) (a long UDP test, iperf3 3.1 or later).
  returned: when the test ran
  type: bool
jitter_ms:
  description: UDP jitter in milliseconds; null for TCP.
  returned: success
  type: float
mean_rtt_ms:
  description: Mean RTT of the sending streams under load (TCP, Linux tcp_info), ms; null for UDP or when this side only received (reverse).
  returned: success
  type: float
  sample: 52.4
start_epoch_s:
  description: When the test started, Unix seconds on the client's clock (iperf3's C(start.timestamp.timesecs)); null if not reported.
  returned: success
  type: int
  sample: 1796041290
sender_congestion_control:
  description: Congestion control the sender used (iperf3 >= 3.? reports it), or null.
  returned: success
  type: str
  sample: bbr
bits_per_second_human:
  description: C(bits_per_second) for people, three significant digits.
  returned: success
  type: str
  sample: 37.4 Mbit/s
protocol:
  description: C(TCP) or C(UDP), as iperf3 reports it.
  returned: success
  type: str
  sample: TCP
direction:
  description:
    - C(client_to_server) or C(server_to_client) (from C(reverse)) when the test did not run.
    - After a test, the direction iperf3 reports (C(test_start.reverse)); C(bidirectional) for C(--bidir).
  returned: always
  type: str
version:
  description: iperf3 version that ran the test.
  returned: success
  type: str
  sample: "3.12"
valid:
  description:
    - False when the result cannot be true; see RV(invalid_reason). Such a result fails any threshold given.
    - Out of range (negative or >100 % loss, NaN, zero duration), no UDP packet counted, more lost than counted, only
      the first interval with data (stuck server), C(nan)/C(-nan) in the output, a server error, client and server
      counts that disagree, or the server's own JSON parsed as a client's.
  returned: success
  type: bool
invalid_reason:
  description: Why C(valid) is false, every reason joined with "; ", or null.
  returned: success
  type: str
  sample: >-
    only the first of the client's 10 intervals carried data (0.00-1.00 s, 131072 bytes), every later one 0 bytes: a
    stuck server (esnet/iperf#1363) or a path that stopped, so the average is no rate
attempts:
  description: Test runs made, including busy retries.
  returned: always
  type: int
server:
  description: Server and port tested.
  returned: always
  type: str
  sample: 10.44.0.1:5201
skipped:
  description: True in check mode, where the test is not run.
  returned: check mode
  type: bool
retryable:
  description: Whether iperf3's error was a transient one (server busy); it was retried C(busy_retries) times.
  returned: when iperf3 reported an error
  type: bool
cmd:
  description: The iperf3 client argv that failed.
  returned: when iperf3 reported an error or printed no usable JSON
  type: list
  elements: str
  sample: [/usr/bin/iperf3, -c, 10.44.0.1, -p, "5201", -J, -t, "10", -P, "1", --connect-timeout, "5000", --get-server-output]
rc:
  description: Exit code of the iperf3 client that failed.
  returned: when iperf3 reported an error or printed no usable JSON
  type: int
stderr:
  description: Standard error of the iperf3 client whose output could not be read.
  returned: when iperf3 printed no usable JSON
  type: str
"""
