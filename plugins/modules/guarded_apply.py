#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``guarded_apply`` action (plugins/action/guarded_apply.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: guarded_apply
short_description: Apply a change that may cut the management connection, with automatic rollback
version_added: 0.1.0
description:
  - For changes that can strand a host, such as restarting the WireGuard interface or the network of
    a host Ansible reaches through that tunnel. In the spirit of LuCI's apply-with-rollback.
  - Copies O(files) into a private directory of this run on the target (C(/var/run/tunnelfix-rollback/NAME.RUNID),
    mode 0700, RUNID a new random id per run; the copies hold keys and are never read back to the controller,
    only their sha256 is). It refuses
    to work in a C(/var/run/tunnelfix-rollback) that is a symlink, or not a directory owned by the
    connecting user with mode 0700, and refuses a path of O(files) that exists but is not a regular file
    (a directory, a FIFO, a symlink to a directory or to nothing).
  - One run at a time per O(name) and host. Before the snapshot the run takes the guard, the directory
    C(/var/run/tunnelfix-rollback/NAME.lock) (C(mkdir), atomic, no C(flock) needed), and holds it until its
    confirm, its discard or its revert. A second run meanwhile fails naming the holder run, how long ago it
    took the guard and what it is doing, and changes nothing. A run never reads, replaces or deletes another
    run's snapshot, and a rollback is verified against this run's own snapshot.
  - A guard is stale, and taken over with a warning, when its holder's directory is gone, its revert has run,
    or it took its snapshot and never armed a revert within 3600 s (the run is then taken to be gone; its
    directory is kept, it may hold the only copy of the files as they were). An armed or running revert is
    never taken over; one whose deadline has passed names the directories to check and remove.
  - Arms a revert B(before) it applies anything. With systemd a transient timer
    (C(systemd-run --on-active), unit C(tunnelfix-rollback-NAME-RUNID)); without it (OpenWrt, BusyBox)
    a detached C(sleep) in its own session (C(setsid)). When it fires it stops an O(apply) still
    running (its process group), copies the files back and runs O(restore).
  - Starts O(apply) detached (its own session, output to a file), so it completes even when the
    connection that started it is cut, and returns at once.
  - Then resets the connection and tries to reach the host, each attempt with a connect timeout of
    O(connect_timeout_s), until O(reconnect_timeout_s). The first connection that gets through
    confirms the change (disarms the revert, removes the snapshot) and the task reports C(changed).
  - >-
    When no connection gets through, it waits for the revert's deadline (O(rollback_timeout_s)), reaches
    the host again, compares the files' sha256 with the snapshot's (both computed on the target) and
    fails the host with C(change rolled back: not reachable within N s after apply; FILES restored,
    sha256 identical) (C(apply still running after N s) when the host answered but the apply had not
    finished). An O(apply) that exits non-zero is rolled back at once (the revert runs detached on the
    target and the controller polls until it is done). docs/rollback.md lists every message and what to do.
  - The result never holds O(apply), O(restore) or their text; WireGuard keys in their outputs are
    replaced by C(<redacted>). The command that carries them is sent on standard input, not on the
    command line C(-vvv) prints.
  - O(state=snapshot) only takes the snapshot, so a change made by other tasks (C(tunnelfix.fleet.uci),
    a template) can be guarded by a later O(state=applied) with O(use_snapshot=true), whose O(files)
    must be the snapshot's, in the same order. The snapshot task records its run id and sha256 in the host
    fact C(tunnelfix_rollback_snapshots) (by name, its C(run_id) and C(sha256)), where the later task finds them.
    O(state=discarded) removes this run's unused snapshot (nothing to apply after all) and gives the guard back.
  - Python-free (plain POSIX sh). Needs C(sha256sum), C(cp), C(mv) and C(setsid) or systemd on the target.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  name:
    description:
      - Names the guard (one run at a time per name and host; its directories and timer unit); C([A-Za-z0-9_.-]),
        at most 64 characters.
    type: str
    default: default
  state:
    description:
      - C(applied) snapshots (unless O(use_snapshot)), arms the revert, applies, confirms or reports the rollback.
      - C(snapshot) takes the guard and only copies O(files); C(discarded) removes this run's snapshot when it is not
        armed, and gives the guard back.
    type: str
    choices: [applied, snapshot, discarded]
    default: applied
  files:
    description:
      - Absolute paths of regular files the revert puts back (a file that did not exist is removed again).
      - No path twice (after normalising C(//) and C(.)), no newline, carriage return or NUL.
    type: list
    elements: str
    default: []
  apply:
    description:
      - The shell command that applies the change, for example C(ifup wg0) or C(systemctl restart wg-quick@wg0).
        Required for O(state=applied), not blank.
      - Not logged (C(no_log)) and never returned.
    type: str
  restore:
    description:
      - The shell command the revert runs after putting the files back. Defaults to O(apply); not blank.
      - Not logged (C(no_log)) and never returned.
    type: str
  use_snapshot:
    description:
      - Use the snapshot an earlier O(state=snapshot) task of the same O(name) took in this run (the fact
        C(tunnelfix_rollback_snapshots), or O(run_id)), instead of taking one now. Without one nothing is applied.
      - O(files) must equal that snapshot's files in the same order, or nothing is applied.
    type: bool
    default: false
  run_id:
    description:
      - The run whose snapshot O(use_snapshot) and O(state=discarded) use (C(run_id) in the result of the
        O(state=snapshot) task), 8-32 lowercase hex digits.
      - Default is the one the last O(state=snapshot) task of this O(name) on this host recorded in the fact
        C(tunnelfix_rollback_snapshots).
    type: str
  rollback_timeout_s:
    description: Seconds after arming at which the revert fires unless confirmed, 10-3600.
    type: int
    default: 90
  reconnect_timeout_s:
    description:
      - Seconds after arming during which the controller tries to reach the host to confirm. At least
        O(connect_timeout_s) and less than O(rollback_timeout_s) minus O(connect_timeout_s), so a confirm
        cannot meet the revert.
    type: int
    default: 60
  connect_timeout_s:
    description: Connect timeout of each attempt (ssh C(ConnectTimeout), and C(ServerAliveInterval=1) with that many probes), 1-60.
    type: int
    default: 5
  diff_before:
    description:
      - What O(apply) changes, before it (one line per setting, such as C(eth0 rx-gro-list) and its state), shown under C(--diff)
        when the change is confirmed or, in check mode, would be made. guarded_apply cannot tell it from a shell command.
      - Needs O(diff_after). WireGuard keys in it are replaced by C(<redacted>).
    type: str
  diff_after:
    description: The same settings as O(diff_before), after O(apply).
    type: str
attributes:
  check_mode:
    support: full
    details: Reports what would be applied and does nothing on the target.
  diff_mode:
    support: partial
    details: Shows O(diff_before) and O(diff_after) for a confirmed change or, in check mode, the change it would make.
  platform:
    platforms: posix
seealso:
  - name: LuCI apply with rollback
    description: The same idea in OpenWrt's web interface (rpcd session apply/confirm).
    link: https://openwrt.org/docs/guide-developer/ubus/uci
notes:
  - The per-attempt timeouts use the ssh connection's options; other connections (podman, local) are
    never cut by the apply and confirm at the first attempt.
  - A revert armed by a controller that died is not lost, it fires on the target at its deadline.
"""

EXAMPLES = r"""
- name: Restart WireGuard on a hub reached through its own tunnel, rolled back unless it comes back
  tunnelfix.fleet.guarded_apply:
    name: wg0
    files: [/etc/wireguard/wg0.conf]
    apply: systemctl restart wg-quick@wg0
    rollback_timeout_s: 90
    reconnect_timeout_s: 60

- name: Snapshot the network config before a uci change on a router reached through wg0
  tunnelfix.fleet.guarded_apply:
    name: wg0
    state: snapshot
    files: [/etc/config/network]

- name: Change the peer's endpoint port
  tunnelfix.fleet.uci:
    config: network
    section: "@wireguard_wg0[0]"
    option: endpoint_port
    value: "51821"

- name: Bring wg0 up again; the old /etc/config/network and ifup come back unless the router is reachable
  tunnelfix.fleet.guarded_apply:
    name: wg0
    files: [/etc/config/network]
    use_snapshot: true
    apply: ifup wg0
"""

RETURN = r"""
confirmed:
  description: Whether the host was reached after the apply and the revert disarmed.
  returned: state=applied
  type: bool
  sample: true
rolled_back:
  description: Whether the revert ran (None when the host could not be reached to find out).
  returned: state=applied
  type: bool
  sample: false
elapsed_s:
  description: Seconds from arming to the confirm, or to the verified rollback.
  returned: state=applied
  type: float
  sample: 4.2
timer:
  description: How the revert was armed, C(systemd) (transient timer unit) or C(sleep) (detached sleeper).
  returned: state=applied, when the launch was answered
  type: str
  sample: sleep
sha256:
  description: The files' sha256 at snapshot time (C(absent) for a file that did not exist).
  returned: state=snapshot
  type: dict
run_id:
  description: The run's id (16 hex digits), part of its directory C(/var/run/tunnelfix-rollback/NAME.RUNID) and timer unit.
  returned: state=snapshot, state=applied, and state=discarded when there was a snapshot of this run
  type: str
  sample: 3f9c2a7b1d0e4c58
snapshot_dir:
  description: The run's directory on the target.
  returned: state=snapshot
  type: str
  sample: /var/run/tunnelfix-rollback/wg0.3f9c2a7b1d0e4c58
holder_run_id:
  description: The run that holds the guard, when this one was refused because another run is changing the host.
  returned: when refused
  type: str
  sample: 9a0b1c2d3e4f5061
ansible_facts:
  description: The fact C(tunnelfix_rollback_snapshots) (by name, the C(run_id) and C(sha256)) for a later O(use_snapshot) task.
  returned: state=snapshot
  type: dict
sha256_before:
  description: This run's snapshot's sha256 per file (as the controller got it when the snapshot was taken), after a rollback.
  returned: when rolled back
  type: dict
sha256_after:
  description: The files' sha256 on the target after the rollback.
  returned: when rolled back
  type: dict
files_identical:
  description: Whether every file is byte-identical to its snapshot after the rollback.
  returned: when rolled back
  type: bool
  sample: true
restore_rc:
  description: Exit code of O(restore) in the revert.
  returned: when rolled back
  type: int
  sample: 0
msg:
  description:
    - "What happened, for example C(change rolled back: not reachable within 30 s after apply; /etc/config/network restored, sha256 identical)."
    - "Or C(change rolled back: apply still running after 30 s; ...), C(change rolled back: the apply exited with rc=N (OUTPUT); ...),
      C(change not confirmed: REASON; the host is still not reachable N s after apply (its revert was due after N s)),
      C(change not confirmed: REASON; the rollback state on the host is 'STATE' N s after apply). See docs/rollback.md."
  returned: failure, check mode
  type: str
"""
