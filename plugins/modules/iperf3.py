#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run an iperf3 client test, parse its JSON and judge it against thresholds."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: iperf3
short_description: Measure a path with an iperf3 client and check the result against thresholds
version_added: 0.1.0
description:
  - Runs C(iperf3 -c SERVER -J) on the target host and parses the client's JSON (only the
    client's JSON carries both sides' numbers; see iperf3 issue 1410).
  - Returns receiver and sender bits_per_second, retransmits (null when iperf3 does not report
    them, never 0), UDP lost_percent and jitter_ms, the congestion control used and the iperf3
    version.
  - The iperf3 server accepts one test at a time; "the server is busy running a test" and other
    transient control-channel errors are retried with exponential backoff and random jitter, so
    a fleet does not retry in lock-step.
  - An iperf3 JSON C(error) is a failure with iperf3's message, never a 0 bit/s result.
  - Never reports changed.
author:
  - tunnelfix.fleet developers
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
notes:
  - Supports check mode by not running the test (result C(skipped)).
  - Unit for every rate is bits per second (decimal prefixes, like iperf3's rate options).
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
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
  description: UDP datagrams lost, percent; null for TCP.
  returned: success
  type: float
jitter_ms:
  description: UDP jitter in milliseconds; null for TCP.
  returned: success
  type: float
sender_congestion_control:
  description: Congestion control the sender used (iperf3 >= 3.? reports it), or null.
  returned: success
  type: str
  sample: bbr
direction:
  description: C(client_to_server) or C(server_to_client) (from C(reverse), not from iperf3's sender flag).
  returned: always
  type: str
version:
  description: iperf3 version that ran the test.
  returned: success
  type: str
  sample: "3.12"
valid:
  description: False when the result is out of range (negative or >100 % loss, NaN, zero duration); see C(invalid_reason).
  returned: success
  type: bool
attempts:
  description: Test runs made, including busy retries.
  returned: always
  type: int
server:
  description: Server and port tested.
  returned: always
  type: str
  sample: 10.44.0.1:5201
"""

import random
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tunnelfix.fleet.plugins.module_utils._bitrate import (
    format_bits_per_second,
    to_bits_per_second,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._iperf3 import (
    Iperf3Error,
    parse_iperf3_json,
)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._iperf3_judge import judge_iperf3

MAX_BACKOFF_S = 30.0

ARGUMENT_SPEC = {
    "server": {"type": "str", "required": True},
    "port": {"type": "int", "default": 5201},
    "protocol": {"type": "str", "choices": ["tcp", "udp"], "default": "tcp"},
    "reverse": {"type": "bool", "default": False},
    "parallel": {"type": "int", "default": 1},
    "duration_s": {"type": "int", "default": 10},
    "omit_s": {"type": "int", "default": 0},
    "bitrate": {"type": "str"},
    "congestion_control": {"type": "str"},
    "bind_address": {"type": "str"},
    "connect_timeout_ms": {"type": "int", "default": 5000},
    "min_bits_per_second": {"type": "raw"},
    "max_lost_percent": {"type": "float"},
    "max_retransmits": {"type": "int"},
    "busy_retries": {"type": "int", "default": 5},
    "busy_backoff_s": {"type": "float", "default": 2.0},
}

RANGES = {
    "port": (1, 65535),
    "parallel": (1, 128),
    "duration_s": (1, 3600),
    "omit_s": (0, 600),
    "connect_timeout_ms": (1, 600000),
    "busy_retries": (0, 50),
    "busy_backoff_s": (0, 60),
    "max_lost_percent": (0, 100),
    "max_retransmits": (0, 2 ** 31),
}


def check_params(params):
    """Range and format checks; returns (min_bits_per_second or None, error message or None)."""
    if not (params["server"] or "").strip():
        return None, "server must name the iperf3 server, got %r" % (params["server"],)
    for name, (low, high) in RANGES.items():
        value = params[name]
        if isinstance(value, bool) or (value is not None and not low <= value <= high):
            return None, "%s must be %s-%s, got %s" % (name, low, high, value)
    if params["bitrate"] is not None:
        try:
            to_bits_per_second(params["bitrate"])
        except ParseError as exc:
            return None, "bitrate: %s" % exc
    minimum = None
    if params["min_bits_per_second"] is not None:
        try:
            minimum = to_bits_per_second(params["min_bits_per_second"])
        except ParseError as exc:
            return None, "min_bits_per_second: %s" % exc
    return minimum, None


def option_context(params):
    """' (with bind_address=..., congestion_control=...)' for the options that can cause an error."""
    given = ["%s=%s" % (name, params[name]) for name in ("bind_address", "congestion_control", "bitrate")
             if params[name]]
    return " (with %s)" % ", ".join(given) if given else ""


def build_argv(iperf3, params):
    argv = [iperf3, "-c", params["server"], "-p", str(params["port"]), "-J",
            "-t", str(params["duration_s"]), "-P", str(params["parallel"]),
            "--connect-timeout", str(params["connect_timeout_ms"])]
    if params["omit_s"]:
        argv += ["-O", str(params["omit_s"])]
    if params["protocol"] == "udp":
        argv.append("-u")
    if params["reverse"]:
        argv.append("-R")
    if params["bitrate"] is not None:
        argv += ["-b", str(int(to_bits_per_second(params["bitrate"])))]
    if params["congestion_control"]:
        argv += ["-C", params["congestion_control"]]
    if params["bind_address"]:
        argv += ["-B", params["bind_address"]]
    return argv


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    server = "%s:%s" % (params["server"], params["port"])
    direction = "server_to_client" if params["reverse"] else "client_to_server"
    result = {"changed": False, "server": server, "direction": direction, "attempts": 0}

    minimum, error = check_params(params)
    if error:
        module.fail_json(msg=error, **result)
    iperf3 = module.get_bin_path("iperf3")
    if not iperf3:
        module.fail_json(msg="iperf3 is not installed on this host: install the iperf3 package", **result)
    if module.check_mode:
        module.exit_json(skipped=True, msg="check mode: iperf3 test not run", **result)

    argv = build_argv(iperf3, params)
    while True:
        result["attempts"] += 1
        rc, out, err = module.run_command(argv)
        try:
            measured = parse_iperf3_json(out)
            break
        except Iperf3Error as exc:
            if exc.retryable and result["attempts"] <= params["busy_retries"]:
                ceiling = min(MAX_BACKOFF_S, params["busy_backoff_s"] * 2 ** (result["attempts"] - 1))
                time.sleep(random.uniform(0, ceiling))
                continue
            module.fail_json(msg="iperf3 to %s failed after %d attempt(s): %s%s"
                             % (server, result["attempts"], exc.message, option_context(params)),
                             retryable=exc.retryable, cmd=argv, rc=rc, **result)
        except ParseError as exc:
            module.fail_json(msg="iperf3 to %s: %s" % (server, exc), cmd=argv, rc=rc,
                             stderr=err, **result)

    result.update(measured)
    result["bits_per_second"] = measured["receiver_bits_per_second"]
    result["bits_per_second_human"] = format_bits_per_second(measured["receiver_bits_per_second"])
    verdict = judge_iperf3(measured, minimum, params["max_lost_percent"], params["max_retransmits"])
    for warning in verdict["warnings"]:
        module.warn(warning)
    if verdict["failures"]:
        module.fail_json(
            msg="iperf3 to %s (%s, %s, %d stream(s)): %s"
                % (server, direction, measured["protocol"], params["parallel"], "; ".join(verdict["failures"])),
            **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
