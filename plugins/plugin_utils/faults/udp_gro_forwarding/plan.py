# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the role udp_gro_forwarding does on a host, from the ``udp_gro`` facts: the one decision its fault shares.

Pure functions, no I/O. ``udp_gro_plan(facts, device)`` says whether the host is one the fix is
for (IP forwarding on, a WireGuard or TUN tunnel up, Linux 6.2 or later), which NIC it changes
(the default-route NIC of the facts; ``device``, the role's option, may only name one of those),
which features it sets and to what, and the shell commands ``guarded_apply`` runs: the apply
(``ethtool -K``, then the gateway must answer a ping again within the timeout, else the apply
fails and the revert runs at once) and ``restore`` (the features back as they were). The
fault (``rule.py``) fires exactly where this plan has a change, and its ``Fault.plan``
(``udp_gro_plan_lines``) is this plan's changes as ``ethtool -K`` lines: the role (through the
``udp_gro_forwarding_plan`` filter, plugins/filter/udp_gro.py) applies the plan the fault computed. How
the role re-applies it on interface events is ``hook_probe.py``'s.
"""

from __future__ import annotations

import re
import shlex

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import is_true, role_setting
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.reads import udp_gro_facts
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import RULE as INTERFACE_NAME_RULE, is_interface_name
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.udp_gro import GRO, GRO_LIST, UDP_GRO_FORWARDING, at_least

# udp_gro_forwarding's defaults (its meta/argument_specs.yml, generated into role_specs.py)
FIX_DEFAULTS = role_defaults("udp_gro_forwarding")
KERNEL_MIN = (6, 2)
# the tunnel kinds (parse/tunnel_links.py) that carry an exit node's or subnet router's traffic: in-kernel WireGuard,
# and TUN (Tailscale, wireguard-go, OpenVPN), whose UDP segmentation offload Linux 6.2 added
TUNNEL_KINDS = ("wireguard", "tun")
UP_OPERSTATES = ("UP", "UNKNOWN")
# the states the fix wants, in the order ethtool -K gets them (Tailscale's recommendation)
WANTED = ((UDP_GRO_FORWARDING, "on"), (GRO_LIST, "off"))
_ADDRESS = re.compile(r"^[0-9A-Fa-f.:]{2,45}$")


def _version_text(version):
    return ".".join(str(part) for part in version)


def up_tunnels(facts) -> list:
    """``[(name, kind)]`` of the up WireGuard and TUN tunnels in the ``udp_gro`` facts, by name."""
    return [(name, tunnel.get("kind")) for name, tunnel in sorted((facts.get("tunnels") or {}).items())
            if isinstance(tunnel, dict) and tunnel.get("kind") in TUNNEL_KINDS and tunnel.get("operstate") in UP_OPERSTATES]


def left_alone(facts):
    """Why the fix is not for this host (forwarding off, no tunnel up, a kernel before 6.2), None when it is, or
    ``""`` when the facts cannot tell (a fact not read). The fault's coverage says the same in its words."""
    ip_forward = facts.get("ip_forward")
    if isinstance(ip_forward, int) and not isinstance(ip_forward, bool) and ip_forward < 1:
        return "IP forwarding is off (net.ipv4.ip_forward=%d): not an exit node or subnet router" % ip_forward
    if isinstance(facts.get("tunnels"), dict) and not up_tunnels(facts):
        return "no WireGuard or TUN tunnel is up"
    newer = at_least(facts.get("kernel_version"), KERNEL_MIN)
    if newer is False:
        return "kernel %s is older than %s (TUN devices take UDP GSO from Linux 6.2 on)" % (
            facts.get("kernel_release"), _version_text(KERNEL_MIN))
    if not isinstance(ip_forward, int) or isinstance(ip_forward, bool) or not isinstance(facts.get("tunnels"), dict) or newer is None:
        return ""
    return None


def feature_changes(features) -> dict:
    """``{feature: wanted state}`` for the WANTED features this NIC shows otherwise and can change (not ``[fixed]``).

    ``{"rx-udp-gro-forwarding": "off", "rx-gro-list": "on"}`` -> both; ``"off [fixed]"`` -> left out.
    """
    out = {}
    for name, wanted in WANTED:
        state = (features or {}).get(name)
        if isinstance(state, str) and state.split()[0] != wanted and "[fixed]" not in state:
            out[name] = wanted
    return out


def changeable(features) -> dict:
    """``{feature: wanted state}`` for every WANTED feature this NIC shows and can change: what a re-apply hook sets."""
    return {name: wanted for name, wanted in WANTED
            if isinstance((features or {}).get(name), str) and "[fixed]" not in features[name]}


def gro_off(features) -> bool:
    """Whether GRO itself is off on the NIC (``generic-receive-offload: off``): UDP GRO forwarding works inside GRO."""
    state = (features or {}).get(GRO)
    return isinstance(state, str) and state.split()[0] == "off"


def ethtool_command(device, states) -> str:
    """``ethtool -K eth0 rx-udp-gro-forwarding on rx-gro-list off`` for ``states`` (``{feature: on|off}``), quoted."""
    return shlex.join(["ethtool", "-K", device] + [word for item in states.items() for word in item])


def gateway_wait(device, gateway, timeout_s) -> str:
    """sh that pings ``gateway`` through ``device`` once a second until it answers (exit 0) or ``timeout_s`` pass (exit 1,
    saying so): BusyBox and iputils ``ping`` alike (``-c 1 -W 1 -I DEV``; ``-I`` makes an IPv6 link-local gateway work)."""
    ping = shlex.join(["ping", "-c", "1", "-W", "1", "-I", device, gateway])
    said = shlex.quote("the gateway %s did not answer through %s within %d s" % (gateway, device, int(timeout_s)))
    return ("end=$(($(date +%%s) + %d)); until %s >/dev/null 2>&1; do "
            "if [ \"$(date +%%s)\" -ge \"$end\" ]; then echo %s; exit 1; fi; sleep 1; done" % (int(timeout_s), ping, said))


def _gateway(nic):
    gateways = nic.get("gateways") or {}
    for family in ("inet", "inet6"):
        gateway = gateways.get(family)
        if isinstance(gateway, str) and _ADDRESS.match(gateway):
            return gateway
    return None


def udp_gro_plan(facts, device="", gateway_timeout_s=30) -> dict:
    """The role's plan for one host from its ``udp_gro`` facts (tunnel_facts' or openwrt_facts')::

        {"state": "change" | "converged" | "left_alone",
         "reason": why left alone or converged, else None,
         "device": "eth0", "kernel_release": "6.6.73", "tunnels": ["tailscale0"],
         "features": {"rx-udp-gro-forwarding": "off", "rx-gro-list": "off", "generic-receive-offload": "on"},
         "changes": {"rx-udp-gro-forwarding": "on"},          # what ethtool -K changes now
         "hook_states": {"rx-udp-gro-forwarding": "on", "rx-gro-list": "off"},   # what the re-apply hook sets
         "hook_command": "ethtool -K eth0 rx-udp-gro-forwarding on rx-gro-list off",
         "gateway": "192.0.2.1" | None,                      # the default route's gateway through that NIC
         "ethtool": "ethtool -K eth0 rx-udp-gro-forwarding on",   # guarded_apply's apply, with gateway_check after it
         "gateway_check": "end=$(($(date +%s) + 30)); until ping ... done" | None,
         "restore": "ethtool -K eth0 rx-udp-gro-forwarding off",  # guarded_apply's restore
         "diff": {"before": "eth0 rx-udp-gro-forwarding: off\n",  # what --diff shows (guarded_apply's
                  "after": "eth0 rx-udp-gro-forwarding: on\n"}}   # diff_before/diff_after), None unless a change

    ``left_alone``: forwarding off, no tunnel up, or a kernel before 6.2 (``device`` and the rest
    None). ``converged``: nothing to change on that NIC (both features as wanted or ``[fixed]``,
    or GRO itself off, which the fix does not turn on). ``gateway_check`` (``gateway_wait``) is
    None without a gateway (an on-link default such as PPP) or with ``gateway_timeout_s`` 0.

    Raises ValueError naming the option and value when ``device`` is not a NIC a default route of
    the main table leaves through (a wrong or stale inventory value: the role never touches another
    NIC), and saying why when the facts cannot tell what to change: a fact not read, no
    default-route NIC, ethtool missing or failing, a host with two default-route NICs and no
    ``device``.
    """
    if not isinstance(facts, dict):
        raise ValueError("expected the udp_gro facts of tunnel_facts or openwrt_facts (a dict), got %r" % (facts,))
    if not isinstance(device, str) or (device and not is_interface_name(device)):
        raise ValueError("udp_gro_forwarding_device must be an interface name (%s) or empty for the default-route NIC, got %r"
                         % (INTERFACE_NAME_RULE, device))
    reason = left_alone(facts)
    if reason == "":
        raise ValueError("the facts cannot tell whether this host forwards through a tunnel on Linux 6.2 or later: %s"
                         % (facts.get("note") or "a fact was not read"))
    base = {"state": "left_alone", "reason": reason, "device": None, "kernel_release": facts.get("kernel_release"),
            "tunnels": [name for name, _kind in up_tunnels(facts)], "features": None, "changes": {}, "hook_states": {},
            "hook_command": None, "gateway": None, "ethtool": None, "gateway_check": None, "restore": None, "diff": None}
    if reason:
        return base
    nics = [nic for nic in facts.get("nics") or [] if isinstance(nic, dict) and nic.get("device")]
    names = [nic["device"] for nic in nics]
    if not nics:
        raise ValueError("the default-route NIC is unknown: %s" % (facts.get("note") or "no default route"))
    if device and device not in names:
        raise ValueError("udp_gro_forwarding_device=%s is not the default-route NIC of this host (%s): the role changes "
                         "no other NIC; leave it empty or name that NIC" % (device, ", ".join(names)))
    if not device and len(nics) > 1:
        raise ValueError("this host has %d default-route NICs (%s): choose one with udp_gro_forwarding_device"
                         % (len(nics), ", ".join(names)))
    nic = nics[names.index(device)] if device else nics[0]
    features = nic.get("features")
    if not isinstance(features, dict):
        raise ValueError("the offload features of %s could not be read: %s" % (
            nic["device"], nic.get("ethtool_error") or facts.get("note") or "ethtool -k gave nothing"))
    if UDP_GRO_FORWARDING not in features:
        raise ValueError("ethtool -k %s does not show %s (an ethtool older than the kernel's feature)" % (
            nic["device"], UDP_GRO_FORWARDING))
    plan = dict(base, device=nic["device"], features=features, gateway=_gateway(nic))
    if gro_off(features):
        reason = ("GRO is off on %s (generic-receive-offload): UDP GRO forwarding works inside GRO, and the fix does not "
                  "turn GRO on" % nic["device"])
        return dict(plan, state="converged", reason=reason)
    states = changeable(features)
    plan.update(hook_states=states, hook_command=ethtool_command(nic["device"], states) if states else None)
    changes = feature_changes(features)
    if not changes:
        return dict(plan, state="converged", reason="%s already has %s" % (
            nic["device"], ", ".join("%s %s" % (name, features.get(name)) for name, _wanted in WANTED if name in features)))
    restore = {name: features[name].split()[0] for name in changes}
    check = gateway_wait(nic["device"], plan["gateway"], gateway_timeout_s) if plan["gateway"] and int(gateway_timeout_s) > 0 else None
    return dict(plan, state="change", changes=changes, ethtool=ethtool_command(nic["device"], changes), gateway_check=check,
                restore=ethtool_command(nic["device"], restore), diff=change_diff(nic["device"], restore, changes))


def udp_gro_plan_lines(view, role_vars):
    """What udp_gro_forwarding would change live: ``ethtool -K NIC FEATURE on|off`` for each feature the NIC shows
    otherwise and can change. ``[]`` where the host does not forward, has no WireGuard or TUN tunnel up or runs a
    kernel before 6.2 (the role leaves it alone), or where nothing is to change and persisting is off; None when
    nothing is to change and persisting is on (the facts do not read the hook the role writes), without the facts, or
    when the role would fail (udp_gro_forwarding_device not a default-route NIC, features not read). Whether the role
    runs at all is the opt-in's (udp_gro_forwarding_enable), not the plan's."""
    facts = udp_gro_facts(view)
    if not facts:
        return None
    try:
        plan = udp_gro_plan(facts, role_setting(role_vars, "udp_gro_forwarding_device", FIX_DEFAULTS) or "")
    except ValueError:
        return None
    if plan["state"] == "left_alone":
        return []
    lines = ["ethtool -K %s %s %s" % (plan["device"], name, state) for name, state in plan["changes"].items()]
    persist = is_true(role_setting(role_vars, "udp_gro_forwarding_persist", FIX_DEFAULTS))
    return lines or (None if persist else [])


def change_diff(device, before, after) -> dict:
    """The ``--diff`` text of an ``ethtool -K`` change: ``{"before": "eth0 rx-gro-list: on\\n", "after": "eth0 rx-gro-list:
    off\\n"}``, one ``device feature: state`` line per feature changed (``before``/``after``: ``{feature: on|off}``),
    as bridge_offload's diff writes them."""
    return {side: "".join("%s %s: %s\n" % (device, name, states[name]) for name in after)
            for side, states in (("before", before), ("after", after))}
