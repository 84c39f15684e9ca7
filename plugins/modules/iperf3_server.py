#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``iperf3_server`` action (plugins/action/iperf3_server.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: iperf3_server
short_description: Start a one-test iperf3 server that alone owns its port, or stop it (python-free)
version_added: 0.2.0
description:
  - O(state=started) checks with C(ss -Hltnp) that nothing listens on O(port); when something does, it fails at once
    naming the port and the process, and starts nothing - a client would otherwise measure, or hang on, that other
    server.
  - Else it starts C(timeout TIMEOUT_S iperf3 --server --one-off --json --bind BIND --port PORT) in the background (in
    its own session where C(setsid) exists) and waits up to 10 s until the port listens, then checks that the listener
    is that iperf3 (its pid, or its parent's, is the one started). Returns C(pid) and C(start_time), which
    O(state=stopped) takes.
  - With C(--json) a client run with C(--get-server-output) (M(tunnelfix.fleet.iperf3) does) receives the server's own
    JSON, with its counts and its iperf3 version. A server that ends before it listens fails naming iperf3's error.
  - O(state=stopped) ends that server if it still runs (it ends by itself after one test or O(timeout_s)); never fails
    for a server that is gone.
  - It stops only what is provably the server started - the process O(pid) if it still started at O(start_time). A pid
    the kernel has given to another process since (an admin's own C(iperf3 -s) included) is left alone, and a warning
    names the pid and that process's name. Nothing is matched by command line.
  - One remote execution each; Python is not needed on the hub.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  state:
    description: Start a server, or stop the one O(pid) names.
    type: str
    choices: [started, stopped]
    default: started
  bind:
    description: The address the server binds to (the hub's tunnel address). Required with O(state=started).
    type: str
  port:
    description: The TCP port, 1-65535. Required with O(state=started).
    type: int
  timeout_s:
    description: Seconds after which the server ends even without a client, 1-86400.
    type: int
    default: 600
  pid:
    description: The C(pid) O(state=started) returned. Required with O(state=stopped).
    type: int
  start_time:
    description:
      - The C(start_time) O(state=started) returned. Required with O(state=stopped).
      - The process's start time in clock ticks after boot (field 22 of C(/proc/PID/stat)); with O(pid) it names one
        process, never a later one that got the same pid.
    type: int
notes:
  - Needs C(ss) (iproute2), C(timeout), C(mktemp), C(awk) and C(iperf3) on the hub, and its C(/proc); C(setsid) where
    present.
  - Check mode starts nothing and reports skipped.
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Start the hub's server for this peer's test
  tunnelfix.fleet.iperf3_server:
    bind: 10.44.0.1
    port: 5201
    timeout_s: 300
  delegate_to: hub
  register: server

- name: Stop it after the test
  tunnelfix.fleet.iperf3_server:
    state: stopped
    pid: "{{ server.pid }}"
    start_time: "{{ server.start_time }}"
  delegate_to: hub
"""

RETURN = r"""
pid:
  description: The started server's wrapper (C(timeout)) pid; stopping it ends iperf3 too.
  returned: success
  type: int
  sample: 4711
start_time:
  description: That wrapper's start time, clock ticks after boot (field 22 of C(/proc/PID/stat)); O(state=stopped) takes it.
  returned: success
  type: int
  sample: 2515960
stop:
  description:
    - What O(state=stopped) found. C(stopped) - the server ended; C(gone) - it had ended already; C(not_ours) - the pid
      is another process now, left alone (with a warning); C(running) - it still ran 3 s after SIGTERM (with a warning;
      it ends after O(timeout_s)).
  returned: when stopped
  type: str
  sample: stopped
port:
  description: The port it listens on.
  returned: when started
  type: int
  sample: 5201
bind:
  description: The address it listens on.
  returned: when started
  type: str
  sample: 10.44.0.1
listeners:
  description: The C(ss -Hltnp) line of the listening socket.
  returned: when started
  type: str
  sample: 'LISTEN 0 4096 10.44.0.1:5201 0.0.0.0:* users:(("iperf3",pid=4712,fd=3))'
"""
