# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host views and ladder outputs for the PMTU fault's tests (the fixture ``pmtu``): a Linux peer (wg-quick) and an OpenWrt
router, each with one tunnel to the lab's hub endpoint 10.198.2.2 (the recorded ladders' target); the keys are obviously fake."""

import copy
from types import SimpleNamespace

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.ladder import ICMP_HEADER_BYTES, MIN_PATH_MTU_BYTES
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.reads import ladder_targets, record_entry

HUB_KEY = "H" * 43 + "="
OTHER_KEY = "O" * 43 + "="
ENDPOINT = "10.198.2.2"
HUB_ADDRESS = "10.77.0.1"


def _with_live_ipv6(view, key, live_ipv6):
    """``view`` with the ``link_ipv6`` facts ``{"devices": live_ipv6, "note": None}`` (None: not read, the facts lack it)."""
    if live_ipv6 is not None:
        view[key]["link_ipv6"] = {"devices": live_ipv6, "note": None}
    return view


def linux_view(tunnel_mtu=1420, uplink_mtu=1500, allowed_ips=("10.77.0.0/24",), endpoint=ENDPOINT, configs=None, live_ipv6=None):
    """A Linux peer: wg0 (wg-quick) with one peer, the hub, reached through eth0; ``live_ipv6``: the ``link_ipv6`` devices."""
    if configs is None:
        configs = [{"path": "/etc/wireguard/wg0.conf", "kind": "wg-quick", "interface": "wg0", "wireguard": True,
                    "addresses": ["10.77.0.2/24"], "peers": []}]
    view = {"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": "hub", "openwrt": None, "path_mtu": None,
            "tunnelfix": {
                "wireguard": {"available": True, "configs": configs,
                              "interfaces": {"wg0": {"peers": [{"public_key": HUB_KEY, "endpoint_host": endpoint,
                                                                "allowed_ips": list(allowed_ips)}]}}},
                "routes": {"default": [], "endpoints": {endpoint: {"dev": "eth0", "gateway": "192.0.2.1"}}},
                "link_mtu": {"devices": {"lo": 65536, "eth0": uplink_mtu, "wg0": tunnel_mtu}, "note": None}}}
    return _with_live_ipv6(view, "tunnelfix", live_ipv6)


def openwrt_view(tunnel_mtu=1420, uplink_mtu=1500, in_uci=True, written_mtu=None, addresses=("10.77.0.2/24",), live_ipv6=None):
    """An OpenWrt router: wg0 in uci with one peer, the hub, reached through eth1; ``live_ipv6``: the ``link_ipv6`` devices."""
    options = {} if written_mtu is None else {"mtu": written_mtu}
    view = {"groups": ["tunnelfix_openwrt"], "tunnel_hub": "hub", "tunnelfix": None, "path_mtu": None,
            "openwrt": {
                "wireguard": {"interfaces": {"wg0": {
                    "in_uci": in_uci, "addresses": list(addresses), "options": options, "tunnel": "split",
                    "peers": [{"public_key": HUB_KEY, "section": "@wireguard_wg0[0]", "endpoint_host": ENDPOINT,
                               "allowed_ips": ["10.77.0.0/24", "192.168.20.0/24"], "live": {"endpoint_host": ENDPOINT}}]}}},
                "endpoint_routes": {"endpoints": [{"interface": "wg0", "public_key": HUB_KEY, "address": ENDPOINT, "dev": "eth1"}]},
                "link_mtu": {"devices": {"eth1": uplink_mtu, "wg0": tunnel_mtu}, "note": None}}}
    return _with_live_ipv6(view, "openwrt", live_ipv6)


def ladder(family, target, largest, high):
    """The output of a valid ladder whose largest passing payload is ``largest`` (its path MTU: largest + the headers)."""
    low = MIN_PATH_MTU_BYTES[family] - ICMP_HEADER_BYTES[family]
    lines = ["ladder tool=iputils family=%d target=%s low=%d high=%d interval_ms=200 attempts=2" % (family, target, low, high),
             "probe %d passed attempts=1" % low]
    if largest != low:
        lines.append("probe %d passed attempts=1" % largest)
    if largest < high:
        lines.append("probe %d failed attempts=2" % (largest + 1))
    return "\n".join(lines + ["result largest=%d" % largest]) + "\n"


def path_ladder(family, target, path_mtu, link_mtu):
    """A valid ladder measuring ``path_mtu`` over a link of ``link_mtu`` bytes."""
    return ladder(family, target, path_mtu - ICMP_HEADER_BYTES[family], link_mtu - ICMP_HEADER_BYTES[family])


def measured(view, outer=None, inner=None, hub_address=HUB_ADDRESS, phase="before"):
    """``view`` with its record: every target's ladders given the outputs ``outer``/``inner`` (None: that ladder did not run)."""
    view = copy.deepcopy(view)
    entries = [record_entry(target, outer if target["outer"] else None, inner if target["inner"] else None)
               for target in ladder_targets(view, hub_address)]
    view["path_mtu"] = {"phase": phase, "tunnels": entries}
    return view


@pytest.fixture(name="pmtu")
def fixture_pmtu():
    """The helpers above, for the tests of this folder (importlib mode: a test cannot import a sibling module)."""
    return SimpleNamespace(linux_view=linux_view, openwrt_view=openwrt_view, ladder=ladder, path_ladder=path_ladder,
                           measured=measured, HUB_KEY=HUB_KEY, OTHER_KEY=OTHER_KEY, ENDPOINT=ENDPOINT, HUB_ADDRESS=HUB_ADDRESS)
