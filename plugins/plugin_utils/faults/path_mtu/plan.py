# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PMTU fault's plan: what the fixing role would change, per platform, from the facts and the record (pure).

Where the tunnel's MTU is written:

- OpenWrt (netifd): ``uci set network.<wg>.mtu=N`` (the interface section's ``mtu``), and an explicit MSS clamp on the
  tunnel's traffic as a fw4 include: fw4's own ``mtu_fix`` clamps in mangle forward from the ingress device's MTU and
  goes wrong under mwan3/pbr (openwrt/openwrt #12112), so the rule names the tunnel (``oifname``/``iifname``) and the
  MSS itself (MTU - 40 IPv4, MTU - 60 IPv6: IP and TCP headers), in ``fix.MSS_CLAMP_DIR`` (fw4 loads
  /usr/share/nftables.d/chain-post/<chain>/*.nft into the end of that chain of its table).
- wg-quick: ``MTU = N`` in the ``[Interface]`` section of /etc/wireguard/<if>.conf (wg(8)).
- systemd-networkd: ``MTUBytes=N`` in the ``[NetDev]`` section of the interface's .netdev (systemd.netdev(5)).

One decision: the plan is ``fix.fix_plan``, the function the role applies (roles/wireguard_mtu/tasks/mtu.yml through
the ``wireguard_mtu_plan`` filter), called here on the facts turned into the shape of the role's own read
(``facts_reading``) with the tunnels the findings give the role (``fix_tunnels``: ``Fault.fix_vars``); the lines are
its ``changes``. The role reads fresher data (its read runs at remediate time), but decides with the same function.

A host's plan is ``[]`` when every tunnel was measured and none is found (converged), a found tunnel's MTU is already
the one to set (the IPv6 floor), or its path is too narrow for any MTU the fix sets (``rule.judge``: ``too_narrow``;
the finding names no MTU, remediate does not run the role for it); None when the facts cannot tell (no record: a path
MTU is measured; a tunnel with peers no valid ladder judged; the role reads other directories than the facts listed)
or ``fix_plan`` refuses, as the role would (a Linux tunnel no file of the facts configures or that two .netdev files
configure, an OpenWrt one that is not in uci).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import is_true, role_setting, wireguard_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.fix import fix_plan, tcp_mtu_probing_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import host_facts, link_mtus, tunnels
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.rule import black_holes, entries, judgements, smaller_mtu
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import role_defaults

FIX_DEFAULTS = role_defaults("wireguard_mtu")
TUNNELS_VAR = "wireguard_mtu_tunnels"


def pmtu_fix_vars(evidence):
    """The role's variables from one finding: ``{"wireguard_mtu_tunnels": {interface: set_mtu_bytes}}``; None when the
    finding names no smaller MTU to set (the path is too narrow for any, or the tunnel is already at the IPv6 floor)."""
    mtu = smaller_mtu(evidence.get("set_mtu_bytes"), evidence.get("tunnel_mtu_bytes"))
    if mtu is None or not evidence.get("interface"):
        return None
    return {TUNNELS_VAR: {evidence["interface"]: mtu}}


def facts_reading(view) -> dict:
    """The host's facts in the shape of the role's own read (``fix.parse_reading``), so ``fix.fix_plan`` decides on them::

        {"interfaces": {"wg0": {"live_mtu_bytes": 1420, "ipv6_inside": False, "uci_proto": "wireguard"|None,
                                "uci_mtu": "1420"|None, "clamp_file_sha256": None,   # not in the facts: to be written
                                "clamp_kept_lines": None,   # /etc/sysupgrade.conf is not in the facts: its line to be added
                                "configs": [{"kind": "wg-quick", "path": "/etc/wireguard/wg0.conf", "mtu": "1420"}]}},
         "nft_rc": None, "nft_rules": None, "tcp_mtu_probing": None, "tcp_mtu_probing_file_sha256": None}   # not in the facts: unknown

    ``live_mtu_bytes`` from ``link_mtu``; ``ipv6_inside`` from ``reads.tunnels``; OpenWrt: ``uci_proto`` "wireguard" for a
    uci interface (``in_uci``: merge_wireguard keeps proto wireguard only), ``uci_mtu`` its written ``mtu``; Linux:
    ``configs`` the files of ``wireguard.configs`` that configure the interface (wg-quick, or a .netdev with Kind=wireguard),
    each's ``mtu`` the live MTU (the facts do not read the file's setting: the one the file set at the tunnel's last start;
    the role reads the file itself, so where the file holds the new MTU already it changes only what differs).
    """
    facts, platform = host_facts(view)
    mtus, known = link_mtus(facts) or {}, tunnels(view)
    configs = (facts.get("wireguard") or {}).get("configs") or []
    interfaces = {}
    for name, info in wireguard_interfaces(facts).items():
        live = None if mtus.get(name) is None else str(mtus.get(name))
        entry = {"live_mtu_bytes": mtus.get(name), "ipv6_inside": (known.get(name) or {}).get("ipv6_inside"),
                 "uci_proto": None, "uci_mtu": None, "clamp_file_sha256": None, "clamp_kept_lines": None, "configs": []}
        if platform == "openwrt":
            written = (info.get("options") or {}).get("mtu")
            entry["uci_proto"] = "wireguard" if info.get("in_uci") else None
            entry["uci_mtu"] = None if written is None else str(written)
        else:
            # the facts do not read a file's MTU setting: taken as the live MTU (what the file set at the last start)
            entry["configs"] = [{"kind": config.get("kind"), "path": config.get("path"), "mtu": live} for config in configs
                                if config.get("interface") == name and config.get("wireguard")
                                and config.get("kind") in ("wg-quick", "netdev")]
        interfaces[name] = entry
    return {"interfaces": interfaces, "nft_rc": None, "nft_rules": None, "tcp_mtu_probing": None, "tcp_mtu_probing_file_sha256": None}


def _dirs(facts, role_vars):
    """``(config_dir, networkd_dir)`` the role reads, or None when the facts listed other directories (they cannot tell)."""
    wanted = tuple(str(role_setting(role_vars, option, FIX_DEFAULTS)).rstrip("/") or "/"
                   for option in ("wireguard_mtu_config_dir", "wireguard_mtu_networkd_dir"))
    read = (facts.get("wireguard") or {}).get("config_dirs") or {}
    listed = (read.get("wg_quick", FIX_DEFAULTS["wireguard_mtu_config_dir"]), read.get("networkd", FIX_DEFAULTS["wireguard_mtu_networkd_dir"]))
    if tuple(str(path).rstrip("/") or "/" for path in listed) != wanted:
        return None
    return wanted


def fix_tunnels(view) -> dict:
    """``{interface: MTU}`` the role is given on this host: ``pmtu_fix_vars`` (``Fault.fix_vars``) of each finding of the
    rule, or None when the facts cannot tell (a tunnel with peers no valid ladder judged: unknown, not converged)."""
    known, judged_by_name = tunnels(view), judgements(view)
    for name in known:
        if known[name]["peers"] and not any(verdict["judged"] for _entry, verdict in judged_by_name.get(name, [])):
            return None
    wanted = {}
    for evidence, _text in black_holes(None, view, {}):
        wanted.update((pmtu_fix_vars(evidence) or {}).get(TUNNELS_VAR) or {})
    return wanted


def pmtu_plan(view, role_vars):
    """What the fixing role would change on this host (module doc): ``fix.fix_plan``'s ``changes`` for the tunnels the
    findings name, decided on ``facts_reading``, with ``role_vars``' ``wireguard_mtu_tcp_mtu_probing`` (``fix.tcp_mtu_probing_plan``
    decides it: the facts do not read ``net.ipv4.tcp_mtu_probing`` nor its file, so on Linux both lines show whenever the
    option is on, and the role, deciding with the same function on its own read, changes only what differs); ``[]``, or
    None (no record, a tunnel not judged, a refusal, other dirs)."""
    if not entries(view):
        return None
    wanted = fix_tunnels(view)
    if wanted is None:
        return None
    facts, platform = host_facts(view)
    probing = is_true(role_setting(role_vars, "wireguard_mtu_tcp_mtu_probing", FIX_DEFAULTS))
    reading = facts_reading(view)
    if not wanted:   # no tunnel to change: the role's directories do not matter
        return tcp_mtu_probing_plan(probing, platform, reading)["changes"]
    dirs = _dirs(facts, role_vars) if platform == "linux" else ("/etc/wireguard", "/etc/systemd/network")
    if dirs is None:
        return None
    try:
        planned = fix_plan(wanted, platform, reading, *dirs, tcp_mtu_probing=probing)
    except ValueError:   # an MTU the role's option check refuses
        return None
    return None if planned["errors"] else planned["changes"]
