# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One plan for fault and role: per host state, the lines remediate shows (``Fault.plan`` on the facts) are what the
role would change (its own plan task, the ``wireguard_mtu_plan`` filter over ``fix.fix_plan``, on its own read of the same
host, given the finding's ``fix_vars``); None on both sides where the role refuses (it would fail, naming the option) or
the facts cannot tell. The role's own expressions (tasks/main.yml's include, tasks/mtu.yml's plan and the ``when:`` of its
net.ipv4.tcp_mtu_probing steps) are evaluated here as Jinja, so a step that decides for itself shows up as a difference."""

from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from jinja2.nativetypes import NativeEnvironment

from ansible_collections.tunnelfix.fleet.plugins.filter.wireguard_mtu import wireguard_mtu_plan
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.fix import (
    TCP_MTU_PROBING_CONTENT, TCP_MTU_PROBING_FILE, mss_clamp_rules)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.rule import black_holes
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import BY_ID

PMTU = BY_ID["path_mtu_black_hole"]
ROLE = Path(__file__).resolve().parents[6] / "roles" / "wireguard_mtu"
WG_QUICK = {"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick"}
NETDEV = {"path": "/etc/systemd/network/50-wg0.netdev", "kind": "netdev"}
NETDEV_2 = {"path": "/etc/systemd/network/60-wg0.netdev", "kind": "netdev"}
CLAMP = "/usr/share/nftables.d/chain-post/mangle_forward/tunnelfix-mss-wg0.nft"
KEEP_LINE = "/etc/sysupgrade.conf: keep %s across sysupgrade (the clamp of wg0)" % CLAMP
MARK = "@@tunnelfix-mtu"
PROBING = {"wireguard_mtu_tcp_mtu_probing": True}
LIVE_LINE = "net.ipv4.tcp_mtu_probing=1 live"
FILE_LINE = "write /etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf: net.ipv4.tcp_mtu_probing = 1"
FILE_SHA256 = "6bcb6ed1080224fed0ea04a4d63481c4a3bff486bfec539727f50b42a17805b9"   # sha256sum of TCP_MTU_PROBING_CONTENT
JINJA = NativeEnvironment()
JINJA.filters.update({"tunnelfix.fleet.wireguard_mtu_plan": wireguard_mtu_plan,
                      "bool": lambda value: str(value).strip().lower() in ("1", "true", "yes", "on")})


CLAMP_1340_SHA256 = "c4f1d159c255bd1e3e5f1c943d83cd0375dfacafefd527b08cf61d9c0d2536f1"   # sha256sum of the clamp include of wg0 at 1340
LIVE = "live"   # file_mtu: the file sets the MTU the tunnel has (the facts' assumption: the file set it at the last start)


def host(platform="linux", tunnel_mtu=1420, path_mtu=1400, configs=(WG_QUICK,), allowed_ips=("10.77.0.0/24",),
         addresses=(), written_mtu=None, in_uci=True, probing=0, probing_file=None, role_vars=None,
         live_mtu=None, file_mtu=LIVE, clamp_file=None, clamp_live=None, live_addresses=None, listed=True, kept=0):
    """One host state, read by both sides (``addresses``: the tunnel's configured ones; on Linux the facts read only a
    wg-quick file's; ``live_addresses``: the device's as it runs, by default the configured ones, which both sides read
    live, the facts with ``ip -j addr show`` (``listed``: False when that listing failed: the facts fall back to the
    configured ones), the role with ``ip -o -6 addr show dev wg0``;
    ``probing``/``probing_file``: net.ipv4.tcp_mtu_probing and the SHA-256 of the role's sysctl.d file, None: absent).
    What only the role reads: ``live_mtu`` (its read's live MTU when it is not the facts' ``tunnel_mtu``: changed by hand
    since diagnose), ``file_mtu`` (each config file's MTU setting: ``LIVE``, None for none, or the text), ``clamp_file``
    (the SHA-256 of the clamp include, None: absent), ``clamp_live`` (the MTU whose clamp rules are live, None: none)
    and ``kept`` (the lines of /etc/sysupgrade.conf naming the include, None: no such file)."""
    return dict(platform=platform, tunnel_mtu=tunnel_mtu, path_mtu=path_mtu, configs=list(configs), allowed_ips=list(allowed_ips),
                addresses=list(addresses), written_mtu=written_mtu, in_uci=in_uci, probing=probing, probing_file=probing_file,
                role_vars=role_vars or {}, live_mtu=tunnel_mtu if live_mtu is None else live_mtu,
                file_mtu=file_mtu, clamp_file=clamp_file, clamp_live=clamp_live, listed=listed, kept=kept,
                live_addresses=[address for address in (addresses if live_addresses is None else live_addresses) if ":" in address])


def facts_view(pmtu, state):
    """What diagnose holds for the host: its facts and the ladder record."""
    live_ipv6 = {"lo": ["::1/128"], "wg0": state["live_addresses"]} if state["listed"] else None
    if state["platform"] == "openwrt":
        view = pmtu.openwrt_view(tunnel_mtu=state["tunnel_mtu"], in_uci=state["in_uci"], written_mtu=state["written_mtu"],
                                 addresses=state["addresses"], live_ipv6=live_ipv6)
        view["openwrt"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["allowed_ips"] = state["allowed_ips"]
    else:
        configs = [dict(config, interface="wg0", wireguard=True, peers=[],   # the facts read wg-quick's Address = lines only
                        addresses=state["addresses"] if config["kind"] == "wg-quick" else None) for config in state["configs"]]
        view = pmtu.linux_view(tunnel_mtu=state["tunnel_mtu"], allowed_ips=state["allowed_ips"], configs=configs, live_ipv6=live_ipv6)
    return pmtu.measured(view, outer=pmtu.path_ladder(4, pmtu.ENDPOINT, state["path_mtu"], 1500))


def role_read(state):
    """The role's own read of the same host (``fix.read_command``'s output)."""
    lines = ["%s mtu wg0" % MARK, str(state["live_mtu"]), "%s ipv6 wg0" % MARK]
    lines += ["3: wg0    inet6 %s scope global \\       valid_lft forever preferred_lft forever" % address
              for address in state["live_addresses"]]
    lines += state["allowed_ips"]
    if state["platform"] == "openwrt":
        lines += ["%s uci wg0" % MARK] + (["wireguard"] if state["in_uci"] else [])
        lines += ["%s ucimtu wg0" % MARK] + ([state["written_mtu"]] if state["written_mtu"] else [])
        lines += ["%s uciaddr wg0" % MARK, " ".join(state["addresses"]), "%s clampfile wg0" % MARK]
        lines += ["%s  -" % state["clamp_file"]] if state["clamp_file"] else []
        lines += ["%s keep wg0" % MARK] + ([str(state["kept"])] if state["kept"] is not None else [])
        lines += ["%s nft" % MARK] + ["%s # handle %d" % (rule, 10 + index)
                                      for index, rule in enumerate(mss_clamp_rules("wg0", state["clamp_live"]) if state["clamp_live"] else [])]
        lines += ["%s nft-rc %d" % (MARK, 0 if state["clamp_live"] else 1)]
    else:
        lines += ["%s config wg0" % MARK]
        for config in state["configs"]:
            written = str(state["live_mtu"]) if state["file_mtu"] == LIVE else state["file_mtu"]
            lines += ["%s %s" % (config["kind"], config["path"])] + ([] if written is None else ["mtu " + written])
        lines += ["%s probing" % MARK, str(state["probing"]), "%s probing-file" % MARK]
        lines += ["%s  -" % state["probing_file"]] if state["probing_file"] else []
    return "\n".join(lines) + "\n"


def tasks(name):
    """A task file of the role, its blocks flattened: ``[(task, the when: of it and of the blocks around it)]``."""
    def walk(items, outer):
        for task in items:
            whens = outer + (task.get("when") if isinstance(task.get("when"), list) else [task["when"]] if "when" in task else [])
            if "block" in task:
                yield from walk(task["block"] + task.get("rescue", []), whens)
            else:
                yield task, whens
    return list(walk(yaml.safe_load((ROLE / "tasks" / name).read_text(encoding="utf-8")), []))


def holds(whens, variables):
    return all(JINJA.compile_expression(str(when))(**variables) for when in whens)


def role_run(view, state):
    """The role run as remediate runs it (the finding's fix_vars, the role's defaults, its own read of the host):
    ``(plan, names of the net.ipv4.tcp_mtu_probing steps of tasks/mtu.yml that run)``; ``(None, [])`` where mtu.yml is
    not included."""
    tunnels = {}
    for evidence, _text in black_holes("h", view, {}):
        tunnels.update((PMTU.fix_vars(evidence) or {}).get("wireguard_mtu_tunnels") or {})
    variables = dict(yaml.safe_load((ROLE / "defaults" / "main.yml").read_text(encoding="utf-8")), **state["role_vars"])
    variables.update(wireguard_mtu_tunnels=tunnels, __wireguard_mtu_platform={"platform": state["platform"]},
                     __wireguard_mtu_read={"stdout": role_read(state)}, ansible_check_mode=False)
    include = [whens for task, whens in tasks("main.yml") if task.get("ansible.builtin.include_tasks") == "mtu.yml"]
    assert len(include) == 1
    if not holds(include[0], variables):
        return None, []
    planning = [task for task, _whens in tasks("mtu.yml") if "__wireguard_mtu_plan" in task.get("ansible.builtin.set_fact", {})]
    assert len(planning) == 1
    plan = JINJA.from_string(planning[0]["ansible.builtin.set_fact"]["__wireguard_mtu_plan"]).render(**variables)
    variables["__wireguard_mtu_plan"] = plan
    steps = [(task, whens) for task, whens in tasks("mtu.yml")
             if "tunnelfix.fleet.sysctl_live" in task or "tcp_mtu_probing" in str(task.get("tunnelfix.fleet.plain_file", {}))]
    assert len(steps) == 2
    return plan, [task["name"] for task, whens in steps if holds(whens, variables)]


WRITES = {"tunnelfix.fleet.uci": "uci", "tunnelfix.fleet.wg_config_mtu": "file"}


def role_writes(view, state):
    """The write steps of tasks/mtu.yml that run, per item of their loop: ``[(step, interface)]`` (``uci``: network.IF.mtu,
    ``file``: the wg-quick/.netdev file, ``clamp``: the clamp include, ``keep``: its line in /etc/sysupgrade.conf), with
    the guarded live change as ``("live", None)``;
    ``(plan, [])`` where mtu.yml is not included."""
    plan, _steps = role_run(view, state)
    if plan is None:
        return None, []
    variables = dict(yaml.safe_load((ROLE / "defaults" / "main.yml").read_text(encoding="utf-8")), **state["role_vars"])
    variables.update(__wireguard_mtu_platform={"platform": state["platform"]}, __wireguard_mtu_plan=plan, ansible_check_mode=False)
    ran = []
    for task, whens in tasks("mtu.yml"):
        step = next((WRITES[key] for key in WRITES if key in task), None)
        if "tunnelfix.fleet.plain_file" in task and "clamp" in str(task["tunnelfix.fleet.plain_file"]):
            step = "keep" if "keep" in str(task["tunnelfix.fleet.plain_file"]) else "clamp"
        if step is not None:
            assert task["loop"] == "{{ __wireguard_mtu_plan.tunnels }}"
            ran += [(step, item["interface"]) for item in plan["tunnels"] if holds(whens, dict(variables, item=item))]
        elif task.get("tunnelfix.fleet.guarded_apply", {}).get("apply") and holds(whens, variables):
            ran.append(("live", None))
    return plan, ran


def role_changes(view, state):
    """What the role changes: its plan's lines; None: it refuses (the filter raises, or the plan has errors)."""
    try:
        plan, _steps = role_run(view, state)
    except AnsibleFilterError:
        return None
    if plan is None:
        return []
    return None if plan["errors"] else plan["changes"]


STATES = {
    "linux wg-quick": (host(), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"]),
    "linux .netdev": (host(configs=(NETDEV,)), ["/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1340 (now 1420)"]),
    "linux wg-quick and a .netdev": (host(configs=(NETDEV, WG_QUICK)), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"]),
    "linux two .netdev files": (host(configs=(NETDEV, NETDEV_2)), None),
    "linux no file": (host(configs=()), None),
    "linux converged": (host(tunnel_mtu=1340), []),
    "linux path 636, the floor fits": (host(path_mtu=636), ["/etc/wireguard/wg0.conf: [Interface] MTU = 576 (now 1420)"]),
    "linux path 600, under the floor": (host(path_mtu=600), []),       # found, no MTU: the role is not run
    # IPv6 inside: the rule and the role ask reads.carries_ipv6, each on the live device (the facts' link_ipv6, the role's
    # ip -o -6 addr show dev wg0); its configured addresses only where the facts' listing lacks it
    "linux wg-quick, IPv6 address, IPv4 AllowedIPs, path 1300": (
        host(path_mtu=1300, addresses=("10.77.0.2/24", "fd77::2/64")), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1280 (now 1420)"]),
    "linux wg-quick, IPv4 only, path 1300": (
        host(path_mtu=1300, addresses=("10.77.0.2/24",)), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1240 (now 1420)"]),
    "linux .netdev, IPv6 address, path 1300": (     # the device shows the .network's Address=
        host(path_mtu=1300, configs=(NETDEV,), addresses=("fd77::2/64",)),
        ["/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1280 (now 1420)"]),
    "linux .netdev, IPv4 only, path 1300": (        # the device shows no IPv6: the path's MTU, under the floor
        host(path_mtu=1300, configs=(NETDEV,), addresses=("10.77.0.2/24",)),
        ["/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1240 (now 1420)"]),
    "linux .netdev, IPv4 only, no address listing, path 1300": (   # unknown: conservative, 1280 (the role accepts it)
        host(path_mtu=1300, configs=(NETDEV,), addresses=("10.77.0.2/24",), listed=False),
        ["/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1280 (now 1420)"]),
    "linux .netdev, IPv6 address, no address listing, path 1300": (
        host(path_mtu=1300, configs=(NETDEV,), addresses=("fd77::2/64",), listed=False),
        ["/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1280 (now 1420)"]),
    "linux wg-quick, IPv6 address not on the device, path 1300": (   # the file adds it at the next start: the floor
        host(path_mtu=1300, addresses=("10.77.0.2/24", "fd77::2/64"), live_addresses=()),
        ["/etc/wireguard/wg0.conf: [Interface] MTU = 1280 (now 1420)"]),
    "openwrt mtu unset": (host("openwrt", addresses=("10.77.0.2/24",)), [
        "network.wg0.mtu: unset (1420 in use) -> '1340'",
        "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP, KEEP_LINE]),
    "openwrt mtu written": (host("openwrt", written_mtu="1420", addresses=("10.77.0.2/24",)), [
        "network.wg0.mtu: '1420' -> '1340'",
        "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP, KEEP_LINE]),
    # no /etc/sysupgrade.conf at all (the facts do not read it; the role's block makes the file)
    "openwrt mtu unset, no sysupgrade.conf": (host("openwrt", addresses=("10.77.0.2/24",), kept=None), [
        "network.wg0.mtu: unset (1420 in use) -> '1340'",
        "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP, KEEP_LINE]),
    "openwrt not in uci": (host("openwrt", in_uci=False), None),
    "openwrt uci IPv6 address not on the device, path 1300": (
        host("openwrt", path_mtu=1300, addresses=("10.77.0.2/24", "fd77::2/64"), live_addresses=()), [
            "network.wg0.mtu: unset (1420 in use) -> '1280'",
            "write %s: clamp TCP MSS of wg0 to 1240 (IPv4) / 1220 (IPv6) both ways" % CLAMP, KEEP_LINE]),
    "openwrt ipv6 address, no address listing, path 1300": (
        host("openwrt", path_mtu=1300, addresses=("10.77.0.2/24", "fd77::2/64"), listed=False), [
            "network.wg0.mtu: unset (1420 in use) -> '1280'",
            "write %s: clamp TCP MSS of wg0 to 1240 (IPv4) / 1220 (IPv6) both ways" % CLAMP, KEEP_LINE]),
    "openwrt ipv6 address, path 1300": (host("openwrt", path_mtu=1300, addresses=("10.77.0.2/24", "fd77::2/64")), [
        "network.wg0.mtu: unset (1420 in use) -> '1280'",
        "write %s: clamp TCP MSS of wg0 to 1240 (IPv4) / 1220 (IPv6) both ways" % CLAMP, KEEP_LINE]),
    "openwrt converged": (host("openwrt", tunnel_mtu=1340), []),
    # uci holds the MTU already, the live MTU not yet: no uci line (uci does not change), a live line
    "openwrt mtu written already, not live": (host("openwrt", written_mtu="1340", addresses=("10.77.0.2/24",)), [
        "wg0: live MTU 1420 -> 1340",
        "write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP, KEEP_LINE]),
    # wireguard_mtu_tcp_mtu_probing: tcp_mtu_probing_plan, on Linux only, whatever the tunnels (the facts do not read
    # the sysctl nor its file: where the role would find them set, the lines differ: the test below)
    "linux, tcp_mtu_probing on": (host(role_vars=PROBING), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)",
                                                            LIVE_LINE, FILE_LINE]),
    "linux converged, tcp_mtu_probing on": (host(tunnel_mtu=1340, role_vars=PROBING), [LIVE_LINE, FILE_LINE]),
    "linux converged, tcp_mtu_probing on, not set, a file of other content": (
        host(tunnel_mtu=1340, probing_file="0" * 64, role_vars=PROBING), [LIVE_LINE, FILE_LINE]),
    "openwrt, tcp_mtu_probing on": (host("openwrt", tunnel_mtu=1340, role_vars=PROBING), []),
    "linux converged, tcp_mtu_probing off": (host(tunnel_mtu=1340, probing=0, role_vars={"wireguard_mtu_tcp_mtu_probing": False}), []),
}


@pytest.mark.parametrize("state, lines", STATES.values(), ids=list(STATES))
def test_the_faults_plan_is_what_the_role_changes(pmtu, state, lines):
    view = facts_view(pmtu, state)
    assert PMTU.plan(view, state["role_vars"]) == lines
    assert role_changes(view, state) == lines


@pytest.mark.parametrize("state", [state for state, _lines in STATES.values()], ids=list(STATES))
def test_the_role_runs_a_tcp_mtu_probing_step_exactly_where_its_plan_has_the_line(pmtu, state):
    """The decision is fix.py's alone: tasks/mtu.yml's sysctl_live runs where its plan names the live change, its
    plain_file where it names the file, and neither otherwise (main.yml includes mtu.yml for the option alone too)."""
    plan, steps = role_run(facts_view(pmtu, state), state)
    lines = plan["changes"] if plan else []
    assert ("Set net.ipv4.tcp_mtu_probing=1 now" in steps) is (LIVE_LINE in lines)
    assert ("Keep it across reboots in /etc/sysctl.d" in steps) is (FILE_LINE in lines)
    wanted = bool(state["role_vars"].get("wireguard_mtu_tcp_mtu_probing")) and state["platform"] == "linux"
    assert (LIVE_LINE in lines) is (wanted and state["probing"] != 1)
    assert (FILE_LINE in lines) is (wanted and state["probing_file"] != FILE_SHA256)


@pytest.mark.parametrize("probing, probing_file, steps, lines", [
    (1, FILE_SHA256, [], []),
    (1, None, ["Keep it across reboots in /etc/sysctl.d"], [FILE_LINE]),
    (0, FILE_SHA256, ["Set net.ipv4.tcp_mtu_probing=1 now"], [LIVE_LINE]),
    (2, FILE_SHA256, ["Set net.ipv4.tcp_mtu_probing=1 now"], [LIVE_LINE]),   # 2 (always probe) is not what the role sets
])
def test_the_facts_do_not_read_tcp_mtu_probing_the_role_does(pmtu, probing, probing_file, steps, lines):
    """The facts do not read net.ipv4.tcp_mtu_probing nor its file: with the option on the plan names both even where
    they are in place; the role, deciding with the same function on its own read, changes only what differs."""
    state = host(tunnel_mtu=1340, probing=probing, probing_file=probing_file, role_vars={"wireguard_mtu_tcp_mtu_probing": "yes"})
    assert PMTU.plan(facts_view(pmtu, state), state["role_vars"]) == [LIVE_LINE, FILE_LINE]
    plan, ran = role_run(facts_view(pmtu, state), state)
    assert plan["changes"] == lines and ran == steps
    assert PMTU.plan(facts_view(pmtu, state), {"wireguard_mtu_tcp_mtu_probing": False}) == []


def test_the_role_writes_the_file_the_plan_names():
    step = [task for task, _whens in tasks("mtu.yml") if "tcp_mtu_probing" in str(task.get("tunnelfix.fleet.plain_file", {}))]
    plan = {"tcp_mtu_probing": {"path": TCP_MTU_PROBING_FILE, "content": TCP_MTU_PROBING_CONTENT}}
    rendered = {key: JINJA.from_string(str(value)).render(__wireguard_mtu_plan=plan) for key, value in step[0]["tunnelfix.fleet.plain_file"].items()}
    assert rendered == {"path": TCP_MTU_PROBING_FILE, "content": TCP_MTU_PROBING_CONTENT, "mode": "0644"}


# What only the role reads: the host changed by hand since diagnose (its live MTU, its files, the clamp). The fault's
# plan cannot see it; the role's plan decides on its own read and its steps follow that plan exactly.
ROLE_STATES = {
    # the live MTU is the target already, the wg-quick file sets none: the file is written, nothing live
    "linux live at the target, no MTU = in the file": (
        host(live_mtu=1340, file_mtu=None), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now unset)"]),
    "linux live at the target, MTUBytes=1420 in the .netdev": (
        host(configs=(NETDEV,), live_mtu=1340, file_mtu="1420"), ["/etc/systemd/network/50-wg0.netdev: [NetDev] MTUBytes=1340 (now 1420)"]),
    "linux the file has the target, not live": (host(file_mtu="1340"), ["wg0: live MTU 1420 -> 1340"]),
    "linux no MTU = in the file, 1420 live": (host(file_mtu=None), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now unset, 1420 in use)"]),
    "linux converged since diagnose": (host(live_mtu=1340, file_mtu="1340"), []),
    "linux device down, the file sets 1420": (host(live_mtu="", file_mtu="1420"), ["/etc/wireguard/wg0.conf: [Interface] MTU = 1340 (now 1420)"]),
    "openwrt converged since diagnose": (
        host("openwrt", live_mtu=1340, written_mtu="1340", clamp_file=CLAMP_1340_SHA256, clamp_live=1340, kept=1), []),
    # fixed before the clamp was kept across sysupgrade (0.6.0): only the line is added, nothing live
    "openwrt converged, the clamp not in sysupgrade.conf": (
        host("openwrt", live_mtu=1340, written_mtu="1340", clamp_file=CLAMP_1340_SHA256, clamp_live=1340, kept=0), [KEEP_LINE]),
    "openwrt converged, no sysupgrade.conf": (
        host("openwrt", live_mtu=1340, written_mtu="1340", clamp_file=CLAMP_1340_SHA256, clamp_live=1340, kept=None), [KEEP_LINE]),
    # the user's own line (or ours and theirs) keeps the include: nothing is added
    "openwrt converged, the include named twice in sysupgrade.conf": (
        host("openwrt", live_mtu=1340, written_mtu="1340", clamp_file=CLAMP_1340_SHA256, clamp_live=1340, kept=2), []),
    "openwrt uci and the clamp in place, not live": (
        host("openwrt", written_mtu="1340", clamp_file=CLAMP_1340_SHA256, kept=1),
        ["wg0: live MTU 1420 -> 1340", "load %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP]),
    "openwrt live and the clamp in place, uci not": (
        host("openwrt", live_mtu=1340, written_mtu="1420", clamp_file=CLAMP_1340_SHA256, clamp_live=1340, kept=1),
        ["network.wg0.mtu: '1420' -> '1340'"]),
    "openwrt the clamp file of another MTU, live rules right": (
        host("openwrt", live_mtu=1340, written_mtu="1340", clamp_file="0" * 64, clamp_live=1340, kept=1),
        ["write %s: clamp TCP MSS of wg0 to 1300 (IPv4) / 1280 (IPv6) both ways" % CLAMP]),
}


@pytest.mark.parametrize("state, lines", ROLE_STATES.values(), ids=list(ROLE_STATES))
def test_the_role_plans_what_it_reads_on_the_host(pmtu, state, lines):
    assert role_changes(facts_view(pmtu, state), state) == lines


ALL_STATES = dict(STATES, **ROLE_STATES)


@pytest.mark.parametrize("state", [state for state, _lines in ALL_STATES.values()], ids=list(ALL_STATES))
def test_the_role_writes_exactly_what_its_plan_names(pmtu, state):
    """uci, the clamp include, its line in /etc/sysupgrade.conf and the wg-quick/.netdev file are written where the plan
    has their line, and nowhere else;
    the live change runs where a line names it (a live line, or a uci or file line naming another MTU in use, or a load)."""
    plan, ran = role_writes(facts_view(pmtu, state), state)
    if plan is None or plan["errors"]:
        return
    wanted = []
    for line in plan["changes"]:
        if line.startswith("network.wg0.mtu: "):
            wanted.append(("uci", "wg0"))
        elif line.startswith(("/etc/wireguard/wg0.conf: ", "/etc/systemd/network/")):
            wanted.append(("file", "wg0"))
        elif line.startswith("write %s: " % CLAMP):
            wanted.append(("clamp", "wg0"))
        elif line == KEEP_LINE:
            wanted.append(("keep", "wg0"))
    order = {"uci": 0, "clamp": 1, "keep": 2, "file": 3}
    assert [step for step in ran if step[0] != "live"] == sorted(wanted, key=lambda step: order[step[0]])
    mtu = plan["tunnels"][0]["mtu_bytes"] if plan["tunnels"] else None
    live = plan["tunnels"] != [] and (str(state["live_mtu"]) not in ("", str(mtu))
                                      or (state["platform"] == "openwrt" and state["clamp_live"] != mtu))
    assert (("live", None) in ran) is live
