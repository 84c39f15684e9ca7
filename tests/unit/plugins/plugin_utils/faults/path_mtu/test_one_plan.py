# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One plan for fault and role: per host state, the lines remediate shows (``Fault.plan`` on the facts) are what the
role would change (``fix.fix_plan`` on its own read of the same host, given the finding's ``fix_vars``); None on both
sides where the role refuses (it would fail, naming the option) or the facts cannot tell."""

from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.fix import TCP_MTU_PROBING_FILE, fix_plan, parse_reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.rule import black_holes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import BY_ID

PMTU = BY_ID["path_mtu_black_hole"]
ROLE = Path(__file__).resolve().parents[6] / "roles" / "wireguard_mtu"
WG_QUICK = {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick"}
NETDEV = {"path": "/etc/systemd/network/50-wg0.netdev", "kind": "netdev"}
NETDEV_2 = {"path": "/etc/systemd/network/60-wg0.netdev", "kind": "netdev"}
CLAMP = "/usr/share/nftables.d/chain-post/mangle_forward/tunnelfix-mss-wg0.nft"
MARK = "@@tunnelfix-mtu"
PROBING = {"wireguard_mtu_tcp_mtu_probing": True}
PROBING_LINE = "net.ipv4.tcp_mtu_probing=1, live and in /etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf"


def host(platform="linux", tunnel_mtu=1420, path_mtu=1400, configs=(WG_QUICK,), allowed_ips=("10.77.0.0/24",),
         addresses=(), written_mtu=None, in_uci=True, probing=0, role_vars=None):
    """One host state, read by both sides (``addresses``: the tunnel's own; on Linux the facts do not read them)."""
    return dict(platform=platform, tunnel_mtu=tunnel_mtu, path_mtu=path_mtu, configs=list(configs), allowed_ips=list(allowed_ips),
                addresses=list(addresses), written_mtu=written_mtu, in_uci=in_uci, probing=probing, role_vars=role_vars or {})


def facts_view(pmtu, state):
    """What diagnose holds for the host: its facts and the ladder record."""
    if state["platform"] == "openwrt":
        view = pmtu.openwrt_view(tunnel_mtu=state["tunnel_mtu"], in_uci=state["in_uci"], written_mtu=state["written_mtu"],
                                 addresses=state["addresses"])
        view["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["allowed_ips"] = state["allowed_ips"]
    else:
        configs = [dict(config, interface="wg0", wireguard=True, peers=[],   # the facts read wg-quick's Address = lines only
                        addresses=state["addresses"] if config["kind"] == "wg-quick" else None) for config in state["configs"]]
        view = pmtu.linux_view(tunnel_mtu=state["tunnel_mtu"], allowed_ips=state["allowed_ips"], configs=configs)
    return pmtu.measured(view, outer=pmtu.path_ladder(4, pmtu.ENDPOINT, state["path_mtu"], 1500))


def role_read(state):
    """The role's own read of the same host (``fix.read_command``'s output)."""
    lines = ["%s mtu wg0" % MARK, str(state["tunnel_mtu"]), "%s ipv6 wg0" % MARK]
    if state["platform"] == "linux":
        lines += ["3: wg0    inet6 %s scope global \\       valid_lft forever preferred_lft forever" % address
                  for address in state["addresses"] if ":" in address]
    lines += state["allowed_ips"]
    if state["platform"] == "openwrt":
        lines += ["%s uci wg0" % MARK] + (["wireguard"] if state["in_uci"] else [])
        lines += ["%s ucimtu wg0" % MARK] + ([state["written_mtu"]] if state["written_mtu"] else [])
        lines += ["%s uciaddr wg0" % MARK, " ".join(state["addresses"]), "%s nft" % MARK, "%s nft-rc 1" % MARK]
    else:
        lines += ["%s config wg0" % MARK] + ["%s %s" % (config["kind"], config["path"]) for config in state["configs"]]
        lines += ["%s probing" % MARK, str(state["probing"])]
    return "\n".join(lines) + "\n"


def role_changes(view, state):
    """What the role changes, run as remediate runs it: with the finding's fix_vars, on its own read; None: it refuses."""
    tunnels = {}
    for evidence, _text in black_holes("h", view, {}):
        tunnels.update((PMTU.fix_vars(evidence) or {}).get("wireguard_mtu_tunnels") or {})
    probing = bool(state["role_vars"].get("wireguard_mtu_tcp_mtu_probing"))   # tasks/main.yml: tcp_mtu_probing.yml on Linux
    if not tunnels and not (probing and state["platform"] == "linux"):
        return []
    try:
        planned = fix_plan(tunnels, state["platform"], parse_reading(role_read(state)), tcp_mtu_probing=probing)
    except ValueError:
        return None
    return None if planned["errors"] else planned["changes"]


STATES = {
    "linux wg-quick": (host(), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"]),
    "linux .netdev": (host(configs=(NETDEV,)), ["/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1340 (now 1420)"]),
    "linux wg-quick and a .netdev": (host(configs=(NETDEV, WG_QUICK)), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"]),
    "linux two .netdev files": (host(configs=(NETDEV, NETDEV_2)), None),
    "linux no file": (host(configs=()), None),
    "linux converged": (host(tunnel_mtu=1340), []),
    "linux path 636, the floor fits": (host(path_mtu=636), ["/etc/wireguard/wg0.conf: [Interface] MTU = 576 (now 1420)"]),
    "linux path 600, under the floor": (host(path_mtu=600), []),       # found, no MTU: the role is not run
    # IPv6 inside: the rule and the role ask reads.carries_ipv6; the facts read a wg-quick file's Address = lines
    "linux wg-quick, IPv6 address, IPv4 AllowedIPs, path 1300": (
        host(path_mtu=1300, addresses=("10.77.0.2/24", "fd77::2/64")), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1280 (now 1420)"]),
    "linux wg-quick, IPv4 only, path 1300": (
        host(path_mtu=1300, addresses=("10.77.0.2/24",)), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1240 (now 1420)"]),
    "linux .netdev, IPv6 address, path 1300": (     # the facts cannot see the .network's Address=: the floor holds
        host(path_mtu=1300, configs=(NETDEV,), addresses=("fd77::2/64",)),
        ["/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1280 (now 1420)"]),
    "linux .netdev, IPv4 only, path 1300": (        # unknown: conservative, 1280 (the role accepts it all the same)
        host(path_mtu=1300, configs=(NETDEV,), addresses=("10.77.0.2/24",)),
        ["/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1280 (now 1420)"]),
    "openwrt mtu unset": (host("openwrt", addresses=("10.77.0.2/24",)), [
        "network.wg0.mtu: unset (1420 in use) -> '1340'",
        "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP]),
    "openwrt mtu written": (host("openwrt", written_mtu="1420", addresses=("10.77.0.2/24",)), [
        "network.wg0.mtu: '1420' -> '1340'",
        "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP]),
    "openwrt not in uci": (host("openwrt", in_uci=False), None),
    "openwrt ipv6 address, path 1300": (host("openwrt", path_mtu=1300, addresses=("10.77.0.2/24", "fd77::2/64")), [
        "network.wg0.mtu: unset (1420 in use) -> '1280'",
        "write %s: clamp TCP MSS of wg0 to 1240 (IPv4) / 1220 (IPv6) both ways" % CLAMP]),
    "openwrt converged": (host("openwrt", tunnel_mtu=1340), []),
    # wireguard_mtu_tcp_mtu_probing: the role's tcp_mtu_probing.yml, on Linux only, whatever the tunnels
    "linux, tcp_mtu_probing on": (host(role_vars=PROBING), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)", PROBING_LINE]),
    "linux converged, tcp_mtu_probing on": (host(tunnel_mtu=1340, role_vars=PROBING), [PROBING_LINE]),
    "openwrt, tcp_mtu_probing on": (host("openwrt", tunnel_mtu=1340, role_vars=PROBING), []),
}


@pytest.mark.parametrize("state, lines", STATES.values(), ids=list(STATES))
def test_the_faults_plan_is_what_the_role_changes(pmtu, state, lines):
    view = facts_view(pmtu, state)
    assert PMTU.plan(view, state["role_vars"]) == lines
    assert role_changes(view, state) == lines


def test_the_plan_shows_tcp_mtu_probing_the_facts_do_not_read(pmtu):
    """The facts do not read net.ipv4.tcp_mtu_probing: with the option on the plan names it even where it is already 1
    (the role's own read then changes nothing live; it still keeps the file)."""
    state = host(tunnel_mtu=1340, probing=1, role_vars={"wireguard_mtu_tcp_mtu_probing": "yes"})
    assert PMTU.plan(facts_view(pmtu, state), state["role_vars"]) == [PROBING_LINE]
    assert fix_plan({}, "linux", parse_reading(role_read(state)), tcp_mtu_probing=True)["changes"] == []
    assert PMTU.plan(facts_view(pmtu, state), {"wireguard_mtu_tcp_mtu_probing": False}) == []


def test_the_probing_file_is_the_roles():
    role_vars = yaml.safe_load((ROLE / "vars" / "main.yml").read_text(encoding="utf-8"))
    assert role_vars["__wireguard_mtu_sysctl_file"] == TCP_MTU_PROBING_FILE
