#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Documentation of the python-free ``bridge_offload`` action (plugins/action/bridge_offload.py); no module code."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: bridge_offload
short_description: Turn gso/tso/gro off (or on) on a bridge and all its ports, or on a tunnel device, python-free
version_added: 0.1.0
description:
  - Sets offload features with C(ethtool -K) on a Linux bridge and on every port listed under
    C(/sys/class/net/BRIDGE/brif/). No Python is needed on the target; this is an action plugin
    that runs C(ls) and C(ethtool) over the connection and reads their output on the controller,
    so it works on OpenWrt routers and on any Linux host alike.
  - At most two remote executions per call. The first reads everything in one POSIX sh script
    (BusyBox ash, dash, bash) - the port listing, then C(ethtool -k) of every port it lists and of
    the bridge - framed by marker lines, and all decisions are made on the controller. Only when a
    feature must change (and not in check mode) a second script runs every C(ethtool -K) and reads
    every device again. The scripts need C(mktemp -d) and a writable C(/tmp).
  - Reads C(ethtool -k) of each device first and runs C(ethtool -K DEV gso off tso off ...) only
    for the features that are in the other state and not C([fixed]). Features shown C([fixed])
    cannot be changed by the kernel; they are left alone and listed in RV(skipped_fixed).
  - Ports are changed before the bridge, because the kernel recomputes a bridge's features from
    its ports. After a change every device is read again; a feature that still has the wrong
    state is a failure. Every C(ethtool -K) runs; the first that failed is reported.
  - Reports C(changed) only when a feature really changed state. The diff has one line per device and
    wanted feature, C(DEVICE FEATURE) then C(on) or C(off), before and after.
  - With O(tunnel) instead of O(bridge) it sets the features of that one device, and only when the device is a
    layer-3 tunnel - a TUN in tun mode (wireguard-go, tailscaled, OpenVPN), in-kernel WireGuard, GRE, IPIP, SIT, ...
    as C(ip -d -j link show dev DEVICE) reports it (C(linkinfo.info_kind), the reader tunnel_facts and
    openwrt_facts use), or, where C(ip) has no C(-j), as sysfs shows it (C(tun_flags) with IFF_TUN,
    C(DEVTYPE=wireguard) in C(uevent)). A physical NIC, a bridge, a veth, a TAP or any other device is refused
    before anything changes.
  - The setting is runtime-only. It is lost when the bridge or tunnel is re-created and a bridge's can come
    back when ports are added or removed; the role C(tunnelfix.fleet.bridge_gso_off) persists it.
author:
  - tunnelfix.fleet developers (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
options:
  bridge:
    description:
      - The bridge, for example C(br-lan). It must exist on the target and be a bridge.
      - Exactly one of O(bridge) and O(tunnel) is required.
    type: str
  tunnel:
    description:
      - A layer-3 tunnel device, for example C(tailscale0) or C(wg0). It must exist on the target and be a tunnel
        (see the description); anything else is refused. Only this device is changed.
      - Exactly one of O(bridge) and O(tunnel) is required.
    type: str
    version_added: 0.2.0
  features:
    description:
      - Features to set, as ethtool's short names (C(gso), C(tso), C(gro), C(lro), C(sg), ...) or as the
        long names C(ethtool -k) prints (C(generic-segmentation-offload), C(rx-gro-list)).
      - A feature a device's C(ethtool -k) does not list (a kernel or ethtool without it, such as C(ufo) since Linux 4.14)
        is left alone on that device and listed in RV(devices) as C(absent). A name that is neither one of ethtool's
        short names (or its long form) nor listed by any device is a typo, and the task fails naming it and the devices.
    type: list
    elements: str
    default: [gso, tso, gro]
  state:
    description: C(off) turns the features off, C(on) turns them back on.
    type: str
    choices: ["off", "on"]
    default: "off"
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
notes:
  - Needs a POSIX shell, C(ls) and C(ethtool) on the target (OpenWrt C(opkg install ethtool)).
  - Tailscale subnet routers (shared case 12) have a narrower fix, C(TS_TUN_DISABLE_TCP_GRO=1) for
    tailscaled; this module is the general one.
seealso:
  - name: ethtool(8)
    description: The -k and -K options and the feature names.
    link: https://man7.org/linux/man-pages/man8/ethtool.8.html
"""

EXAMPLES = r"""
- name: gso, tso and gro off on br-lan and its ports
  tunnelfix.fleet.bridge_offload:
    bridge: br-lan

- name: Only tso off on br0
  tunnelfix.fleet.bridge_offload:
    bridge: br0
    features: [tso]

- name: tso and gso off on the tunnel device tailscale0 (refused if it is not a tunnel)
  tunnelfix.fleet.bridge_offload:
    tunnel: tailscale0
    features: [tso, gso]

- name: Back to the kernel's defaults for gso and tso
  tunnelfix.fleet.bridge_offload:
    bridge: br-lan
    features: [gso, tso]
    state: "on"
"""

RETURN = r"""
bridge:
  description: The bridge.
  returned: success, with O(bridge)
  type: str
  sample: br-lan
ports:
  description: The bridge's ports, sorted.
  returned: success, with O(bridge)
  type: list
  elements: str
  sample: [lan1, lan2]
tunnel:
  description: The tunnel device.
  returned: success, with O(tunnel)
  type: str
  sample: tailscale0
kind:
  description: The tunnel's kind, C(linkinfo.info_kind) of C(ip -d -j link show) (C(tun), C(wireguard), C(gre), ...).
  returned: success, with O(tunnel)
  type: str
  sample: tun
state:
  description: The wanted state, C(off) or C(on).
  returned: success
  type: str
  sample: "off"
commands:
  description: The C(ethtool -K) commands run (or that would run in check mode).
  returned: success
  type: list
  elements: str
  sample: ["ethtool -K lan1 gso off tso off", "ethtool -K br-lan gso off tso off gro off"]
devices:
  description: Per device (ports and bridge, or the tunnel), the long feature names C(changed) (or to change in check mode),
    C(skipped_fixed), C(already) in the wanted state, and C(absent) (not in the device's C(ethtool -k), left alone).
  returned: success
  type: dict
  sample: {"lan1": {"changed": ["tcp-segmentation-offload"], "skipped_fixed": [], "already": ["generic-receive-offload"],
                    "absent": []}}
skipped_fixed:
  description: Devices with features in the other state that are C([fixed]) and were left alone; empty when none.
  returned: success
  type: dict
  sample: {"lan1": ["generic-receive-offload"]}
msg:
  description: Which C([fixed]) features, and which features a device does not have, were left alone, when there are
    any; the reason on failure.
  returned: when features were skipped, and on failure
  type: str
refused:
  description: Features C(ethtool -K) did not change, per device.
  returned: failure after ethtool -K
  type: dict
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
