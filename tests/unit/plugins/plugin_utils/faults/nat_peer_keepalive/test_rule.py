# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 4: no keepalive and an unreachable peer; keepalive set and the tunnel dead. Both sides of 0 % loss and 180 s,
Linux and OpenWrt, with and without a hub in the run.

Both rules of the family (this folder's and faults/stale_despite_keepalive/rule.py) on the same views: they share
handshakes.py, and a test here pins that each leaves the other's case alone."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import STALE_HANDSHAKE_S, own_interfaces
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.rule import keepalive_coverage, without_keepalive
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.stale_despite_keepalive.rule import dead_with_keepalive

HUB_KEY = "HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH="
PEER_KEY = "PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE="


def views(keepalive=None, age=10, hub_age=10, loss=0.0, groups=("tunnelfix_wireguard_peers",)):
    peer = {"groups": list(groups), "tunnel_hub": "hub",
            "tunnelfix": {"wireguard": {"interfaces": {"wg0": {"public_key": PEER_KEY, "peers": [
                {"public_key": HUB_KEY, "persistent_keepalive_s": keepalive, "handshake_age_s": age}]}}}},
            "measurement": {"idle_s": 40, "ping": {"loss_percent": loss}}}
    hub = {"groups": ["tunnelfix_wireguard_hubs"],
           "tunnelfix": {"wireguard": {"interfaces": {"wg0": {"public_key": HUB_KEY, "peers": [
               {"public_key": PEER_KEY, "endpoint": "198.51.100.9:51820", "handshake_age_s": hub_age}]}}}}}
    return {"peer": peer, "hub": hub}


def run(rule, **kwargs):
    v = views(**kwargs)
    return rule("peer", v["peer"], v)


def test_lost_pings_without_keepalive_fire_with_both_ends_as_evidence():
    [(evidence, text)] = run(without_keepalive, loss=16.7)
    assert evidence["hub_sees_endpoint"] == ["198.51.100.9:51820"] and evidence["idle_ping_loss_percent"] == 16.7
    assert evidence["persistent_keepalive_s"] is None and "PersistentKeepalive" in text


@pytest.mark.parametrize("loss, fires", [(0.0, False), (0, False), (None, False), (0.1, True), (100.0, True)])
def test_loss_boundary(loss, fires):
    assert bool(run(without_keepalive, loss=loss)) is fires


@pytest.mark.parametrize("age, hub_age, fires", [
    (STALE_HANDSHAKE_S, 10, False), (STALE_HANDSHAKE_S + 1, 10, True), (10, STALE_HANDSHAKE_S + 1, True), (None, None, False)])
def test_stale_boundary_without_keepalive(age, hub_age, fires):
    assert bool(run(without_keepalive, age=age, hub_age=hub_age, loss=None)) is fires


@pytest.mark.parametrize("age, fires", [(STALE_HANDSHAKE_S, False), (STALE_HANDSHAKE_S + 1, True), (0, False), (None, True)])
def test_dead_despite_keepalive_boundary(age, fires):
    assert bool(run(dead_with_keepalive, keepalive=25, age=age)) is fires


@pytest.mark.parametrize("keepalive", [None, 0])
def test_no_keepalive_is_no_dead_tunnel_finding(keepalive):
    """Without keepalives an idle tunnel has no handshake either: that alone is no finding."""
    assert run(dead_with_keepalive, keepalive=keepalive, age=None) == []


def test_each_rule_leaves_the_other_case_alone():
    assert run(dead_with_keepalive, keepalive=None, age=500) == []
    assert run(without_keepalive, keepalive=25, age=500, loss=50.0) == []


def test_only_peers_get_the_keepalive_finding():
    assert run(without_keepalive, loss=50.0, groups=("tunnelfix_wireguard_hubs",)) == []


def test_a_never_handshaken_peer_without_a_hub_in_the_run_is_a_dead_tunnel():
    """The field case: a peer whose endpoint is unreachable, keepalive 25, no hub in the inventory."""
    v = views(keepalive=25, age=None, loss=None)
    del v["hub"], v["peer"]["measurement"]
    v["peer"]["tunnel_hub"] = None
    v["peer"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0].update(endpoint="192.0.2.7:51820", rx_bytes=0, tx_bytes=2960)
    [(evidence, text)] = dead_with_keepalive("peer", v["peer"], v)
    assert evidence == {"interface": "wg0", "peer_public_key": HUB_KEY, "endpoint": "192.0.2.7:51820", "persistent_keepalive_s": 25,
                        "handshake_age_s": None, "handshake": "never", "rx_bytes": 0, "tx_bytes": 2960, "hub": None,
                        "hub_sees_endpoint": None}
    assert "no handshake ever completed" in text and "192.0.2.7:51820" in text


def test_a_dead_tunnel_with_its_hub_in_the_run_carries_the_hubs_view():
    [(evidence, text)] = run(dead_with_keepalive, keepalive=25, age=300)
    assert evidence["hub"] == "hub" and evidence["hub_sees_endpoint"] == ["198.51.100.9:51820"]
    assert evidence["handshake"] == "stale" and "newest handshake is 300 s old" in " ".join(text.split())


def test_a_hub_with_keepalive_to_a_dead_peer_gets_the_finding_too():
    v = views()
    v["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0].update(persistent_keepalive_s=25, handshake_age_s=None)
    [(evidence, _text)] = dead_with_keepalive("hub", v["hub"], v)
    assert evidence["peer_public_key"] == PEER_KEY and evidence["hub"] is None


def openwrt_view(keepalive=25, age=None, live=True, groups=("tunnelfix_wireguard_peers", "tunnelfix_openwrt")):
    """A router's view in openwrt_facts' shape: uci peer sections, each with its running entry under ``live``."""
    running = {"endpoint": "203.0.113.1:51820", "persistent_keepalive_s": keepalive, "handshake_age_s": age,
               "rx_bytes": 0, "tx_bytes": 1480}
    interface = {"live": live, "live_state": {"public_key": PEER_KEY} if live else None, "peers": [
        {"public_key": HUB_KEY, "section": "hub", "persistent_keepalive_s": keepalive, "live": running if live else None}]}
    return {"groups": list(groups), "tunnel_hub": "hub", "openwrt": {"wireguard": {"interfaces": {"wg0": interface}}},
            "measurement": {"idle_s": 40, "ping": {"loss_percent": 100.0}}}


def test_own_interfaces_reads_a_routers_running_peers():
    assert own_interfaces(openwrt_view()) == {"wg0": {"public_key": PEER_KEY, "peers": [
        {"endpoint": "203.0.113.1:51820", "persistent_keepalive_s": 25, "handshake_age_s": None, "rx_bytes": 0, "tx_bytes": 1480,
         "public_key": HUB_KEY}]}}
    assert own_interfaces(openwrt_view(live=False)) == {}
    assert own_interfaces({}) == {}


def test_a_router_gets_both_keepalive_findings():
    """OpenWrt peers were skipped before: the dead tunnel from its own facts, the missing keepalive with its hub's."""
    router = openwrt_view()
    [(evidence, _text)] = dead_with_keepalive("owrt", router, {"owrt": router})
    assert evidence["interface"] == "wg0" and evidence["handshake"] == "never"
    router = openwrt_view(keepalive=None, age=30)
    v = views()
    v["owrt"] = router
    [(evidence, _text)] = without_keepalive("owrt", router, v)
    assert evidence["peer_public_key"] == HUB_KEY and evidence["idle_ping_loss_percent"] == 100.0
    assert dead_with_keepalive("owrt", openwrt_view(live=False), {}) == []


def test_no_hub_in_the_run_reads_only_the_peers_own_end():
    v = views(loss=50.0)
    del v["hub"]
    assert without_keepalive("peer", v["peer"], v) == []  # the hub's key is unknown: no entry matches


def test_the_exact_evidence_of_both_findings():
    [(evidence, text)] = run(without_keepalive, loss=50.0, age=30, hub_age=200)
    assert evidence == {"hub": "hub", "peer_public_key": HUB_KEY, "persistent_keepalive_s": None, "handshake_age_s": 200,
                        "hub_sees_endpoint": ["198.51.100.9:51820"], "idle_ping_loss_percent": 50.0, "idle_s": 40}
    assert "to hub" in text and "50.0 % ping loss after 40 s idle; newest handshake 200 s old" in " ".join(text.split())


def test_no_handshake_and_no_measurement_give_none_not_a_guess():
    v = views(loss=None, age=None, hub_age=None)
    del v["peer"]["measurement"]
    v["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["handshake_age_s"] = 500
    [(evidence, _text)] = without_keepalive("peer", v["peer"], v)
    assert (evidence["handshake_age_s"], evidence["idle_s"], evidence["idle_ping_loss_percent"]) == (500, None, None)


def test_entries_without_a_peers_list_and_a_view_without_groups():
    v = views(loss=50.0)
    v["hub"]["tunnelfix"]["wireguard"]["interfaces"]["wg1"] = {"public_key": "OTHER"}
    v["peer"]["tunnelfix"]["wireguard"]["interfaces"]["wg1"] = {"public_key": "MINE"}
    assert len(without_keepalive("peer", v["peer"], v)) == 1
    assert without_keepalive("peer", {"tunnel_hub": "hub"}, v) == []


def test_no_handshake_on_either_end_and_lost_pings_is_a_finding_without_an_age():
    """The peer never shook hands with its hub (no age on either end): the lost pings alone fire, the age is unknown."""
    [(evidence, text)] = run(without_keepalive, loss=100.0, age=None, hub_age=None)
    assert (evidence["handshake_age_s"], evidence["persistent_keepalive_s"], evidence["idle_ping_loss_percent"]) == (None, None, 100.0)
    assert "100.0 % ping loss after 40 s idle; newest handshake None s old" in " ".join(text.split())


def _no_hub_key_on_the_peer(v):
    """The peer's entries name another key: the hub still has an entry for the peer, the peer none for the hub."""
    v["peer"]["tunnelfix"]["wireguard"]["interfaces"]["wg0"]["peers"][0]["public_key"] = "OTHER" * 8 + "OTHE="


@pytest.mark.parametrize("change, expected", [
    (lambda v: v["peer"].update(groups=["tunnelfix_wireguard_hubs"]), ("clear", "does not apply: not a peer (tunnelfix_wireguard_peers)")),
    (lambda v: v["peer"].pop("groups"), ("clear", "does not apply: not a peer (tunnelfix_wireguard_peers)")),
    (lambda v: v["peer"].update(tunnel_hub=None),
     ("not_checked", "no tunnelfix_tunnel_hub: the hub's public key tells which peer entry is the hub's")),
    (lambda v: v.pop("hub"), ("not_checked", "its hub hub is not in this run")),
    # no running interface on one end only: either is enough to leave the host unjudged
    (lambda v: v["peer"].pop("tunnelfix"), ("not_checked", "no running WireGuard interface read on this peer or on its hub hub")),
    (lambda v: v["hub"].pop("tunnelfix"), ("not_checked", "no running WireGuard interface read on this peer or on its hub hub")),
    (_no_hub_key_on_the_peer, ("not_checked", "no peer entry for the public key of its hub hub")),
    (lambda v: v["peer"].pop("measurement"),
     ("clear", "judged without the hub's ping after idle (not measured in this run): from the handshake ages")),
    (lambda v: v["peer"]["measurement"].pop("ping"),
     ("clear", "judged without the hub's ping after idle (not measured in this run): from the handshake ages")),
    (lambda v: v["peer"]["measurement"]["ping"].update(loss_percent=None),
     ("clear", "judged without the hub's ping after idle (not measured in this run): from the handshake ages")),
    (lambda v: None, None),                                       # both ends read and the ping measured: judged in full
    (lambda v: v["peer"]["measurement"]["ping"].update(loss_percent=0.0), None),
])
def test_coverage_of_each_host(change, expected):
    v = views(loss=25.0)
    change(v)
    assert keepalive_coverage("peer", v["peer"], v) == expected
