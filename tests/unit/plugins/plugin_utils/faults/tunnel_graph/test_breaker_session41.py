# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inputs a network operator meets that made endpoint_address_mismatch, public_key_mismatch or keepalive_on_wrong_side's
fix wrong (breaker session 41; fake keys, a fake resolver)."""

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph import graph as graph_module
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoint_address import endpoint_address



def _resolver(answers):
    return lambda names: {name: answers.get(name, {"addresses": [], "error": "cannot be resolved (fake)"}) for name in names}


def test_a_split_horizon_name_resolving_to_the_hubs_lan_address_is_no_move(tg, monkeypatch):
    # the hub sits behind a port forward (its router is not in the run): a road warrior keeps hub.example.net, which
    # resolved to the public address 198.51.100.1 where it was set; the controller, on the hub's LAN, gets the hub's LAN
    # address from its split-horizon DNS. The entry is idle (stale handshake, both ways bytes): nothing is wrong.
    monkeypatch.setattr(graph_module, "resolve_names", _resolver({"hub.example.net": {"addresses": ["192.168.1.10"], "error": None}}))
    hub = tg.with_lan(tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages={tg.PEER: 4000}),
                      {"eth0": ["192.168.1.10/24"], "wg0": ["10.77.0.1/24"]})
    peer = tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints={tg.HUB: "hub.example.net:51820"}, ages={tg.HUB: 4000},
                    counters={tg.HUB: (90000, 4400)}, learned={tg.HUB: "198.51.100.1:51820"})
    views = {"hub": hub, "peer": peer}
    graph_module._CACHE.clear()
    assert endpoint_address("peer", peer, views) == []


def test_a_name_that_moved_within_its_kind_is_still_a_move(tg, monkeypatch):
    # the same shape with the name now resolving to a public address of the hub: it moved (dynamic DNS)
    monkeypatch.setattr(graph_module, "resolve_names", _resolver({"hub.example.net": {"addresses": ["203.0.113.10"], "error": None}}))
    hub = tg.with_lan(tg.linux(tg.HUB, [tg.PEER], learned={tg.PEER: "198.51.100.9:41862"}, ages={tg.PEER: 4000}),
                      {"eth0": ["203.0.113.10/24"], "wg0": ["10.77.0.1/24"]})
    peer = tg.linux(tg.PEER, [tg.HUB], listen_port=41000, endpoints={tg.HUB: "hub.example.net:51820"}, ages={tg.HUB: 4000},
                    counters={tg.HUB: (90000, 4400)}, learned={tg.HUB: "198.51.100.1:51820"})
    views = {"hub": hub, "peer": peer}
    graph_module._CACHE.clear()
    (evidence, _text), = endpoint_address("peer", peer, views)
    assert evidence["signs"] == ["the name resolves to the other end now"]
