#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``tcp_tuning`` action (plugins/action/tcp_tuning.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: tcp_tuning
short_description: Read the TCP stack and set TCP sysctls key by key, python-free (OpenWrt)
version_added: 0.1.0
description:
  - The python-free twin of M(tunnelfix.fleet.tunnel_facts) (subsets C(tcp) and C(netns)) and
    M(tunnelfix.fleet.sysctl_live) together, for OpenWrt routers without Python. It is an action plugin that
    runs C(cat), C(test), C(sysctl -w), C(lsmod) and the package manager over the
    connection and reads their output on the controller.
  - Always gathers C(ansible_facts.tunnelfix.tcp) and C(ansible_facts.tunnelfix.netns) in the
    shape tunnel_facts returns, from the same probes. Module states come from C(/sys/module/NAME),
    then C(modinfo -F filename NAME), then the package (C(kmod-tcp-bbr) via C(apk list --installed)
    or C(opkg list-installed)); the container from C(systemd-detect-virt --container), then the
    podman and Docker marker files. A missing tool counts as "not there", never as a failure.
  - One remote execution when nothing must be written, two when something must. Every read (each
    sysctl, the presence of the module and namespace paths, modinfo, the package managers,
    systemd-detect-virt) runs in one
    POSIX sh script (BusyBox ash, dash, bash) framed by marker lines, and all decisions are made on
    the controller. Only when a value differs (and not in check mode) a second script runs the
    C(sysctl -w) of every such key, each followed by its read-back. The scripts need C(mktemp -d)
    and a writable C(/tmp). Works alike on OpenWrt and on Linux hosts (Debian, C(/proc/sys)).
  - For every key in O(values), reads C(/proc/sys), runs C(sysctl -w key=value) when the value
    differs (whitespace-normalised) and reads the key back. The read-back decides, because BusyBox
    C(sysctl) may exit 0 when the kernel refused the value. A key that cannot be set does not fail
    the task; it is reported in RV(not_applied) with a reason (C(absent), C(permission_denied),
    C(read_only), C(invalid), C(unknown)) and a message, exactly as sysctl_live does.
  - procps-ng 4 words a read-only C(/proc/sys) as C(permission denied on key), as it does a user's missing
    right; the read runs C(id -u), and as root that is C(read_only). A congestion control refused with EPERM
    gets the advice to allow it on the container host only where C(tcp_allowed_congestion_control) lacks it.
  - Writes nothing to disk; persist with M(tunnelfix.fleet.plain_file) (role C(tunnelfix.fleet.linux_bbr_fq)).
    O(persist_paths) says beforehand whether those files can be written.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
options:
  values:
    description:
      - Kernel parameters to set, a dict of dotted key (C(net.ipv4.tcp_rmem)) and value. Values are
        compared whitespace-normalised and must not be empty or booleans.
      - Empty (the default) only gathers the facts. Anything but a dict fails naming the value.
    type: raw
    default: {}
  persist_paths:
    description:
      - Absolute paths of files the caller will write once the values are set (a sysctl.d drop-in).
        In the same remote execution as the reads, the nearest existing directory of each gets an empty
        hidden file created and removed at once (in check mode too), so a read-only C(/etc) shows before
        the running kernel changes. RV(persist_failed) lists the ones that cannot be written.
    type: list
    elements: str
    default: []
attributes:
  check_mode:
    support: full
    details: Reports which keys would change; sets nothing.
  diff_mode:
    support: full
  facts:
    support: full
  platform:
    platforms: posix
notes:
  - Needs a POSIX shell, C(cat), C(test) and C(sysctl) (BusyBox has them); C(lsmod), C(apk) and C(opkg) are optional.
  - In a child network namespace (container) C(net.core.default_qdisc) and C(net.core.netdev_max_backlog)
    do not exist; they come back as C(absent) in RV(not_applied) and C(default_qdisc=null) in the facts.
seealso:
  - module: tunnelfix.fleet.tunnel_facts
  - module: tunnelfix.fleet.sysctl_live
"""

EXAMPLES = r"""
- name: Read the TCP stack of a router
  tunnelfix.fleet.tcp_tuning:
  register: tcp

- name: Read it, and whether the drop-in could be written, before changing anything
  tunnelfix.fleet.tcp_tuning:
    persist_paths: [/etc/sysctl.d/60-tunnelfix-bbr-fq.conf]
  register: before
  check_mode: false

- name: Use BBR and larger socket buffers now
  tunnelfix.fleet.tcp_tuning:
    values:
      net.ipv4.tcp_congestion_control: bbr
      net.ipv4.tcp_rmem: 4096 131072 33554432
  register: live

- name: Say what could not be set
  ansible.builtin.debug:
    msg: "{{ live.not_applied | map(attribute='message') }}"
"""

RETURN = r"""
ansible_facts:
  description: C(tunnelfix.tcp) and C(tunnelfix.netns), the shape of M(tunnelfix.fleet.tunnel_facts) (see its RETURN).
  returned: success
  type: dict
  sample:
    tunnelfix:
      tcp:
        congestion_control: reno
        congestion_control_available: [reno, bbr, cubic]
        congestion_control_allowed: [reno, bbr, cubic]
        default_qdisc: null
        tcp_rmem: 4096 131072 6291456
        tcp_wmem: 4096 16384 4194304
        netdev_max_backlog: null
        tcp_bbr_available: true
        tcp_bbr_loadable_module: false
        sch_fq_available: false
        sysctl_dropins: {"/etc/sysctl.d/60-tunnelfix-bbr-fq.conf": {"net.ipv4.tcp_congestion_control": "bbr"}}
        sysctl_boot:
          applied_by: sysctl --system
          files: [/etc/sysctl.d/10-default.conf, /etc/sysctl.d/60-tunnelfix-bbr-fq.conf]
          masked: {}
          links: {}
          effective:
            net.ipv4.tcp_congestion_control: {value: bbr, file: /etc/sysctl.d/60-tunnelfix-bbr-fq.conf, line: 3}
          warnings: []
        tcp_bbr_module_files: []
      netns:
        child_netns: true
        container: podman
applied:
  description: Keys whose value is now in place (already or after this run), with that value.
  returned: success
  type: dict
  sample: {"net.ipv4.tcp_congestion_control": "bbr"}
not_applied:
  description: Keys that could not be set, with C(key), C(value), C(before), C(reason) and C(message).
  returned: success
  type: list
  elements: dict
by_key:
  description: Per key C(before), C(after) (null where absent) and C(status) (C(unchanged), C(changed), or a reason).
  returned: success
  type: dict
persist_failed:
  description:
    - The O(persist_paths) that cannot be written - C(path), C(directory) (the nearest one that exists),
      C(reason) (C(read_only), C(permission_denied), C(unknown)) and C(message). Empty when all can be.
  returned: success
  type: list
  elements: dict
  sample:
    - path: /etc/sysctl.d/60-tunnelfix-bbr-fq.conf
      directory: /etc/sysctl.d
      reason: read_only
      message: >-
        /etc/sysctl.d/60-tunnelfix-bbr-fq.conf cannot be written: /etc/sysctl.d is on a read-only file system
        (sh: 1: cannot create /etc/sysctl.d/.tunnelfix-write-probe: Read-only file system)
cmd:
  description: The command that failed.
  returned: failure
  type: str
rc:
  description: Exit code of the command that failed.
  returned: failure
  type: int
stderr:
  description: Standard error of the command that failed.
  returned: failure
  type: str
"""
