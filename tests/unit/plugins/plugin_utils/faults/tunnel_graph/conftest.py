# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts' WireGuard facts for the tunnel graph's rules (fake keys), as a fixture (importlib mode: no sibling imports)."""

from types import SimpleNamespace

import pytest

HUB = "HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH="
PEER = "PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE="
OLD = "OLDPEEROLDPEEROLDPEEROLDPEEROLDPEEROLDPEERO="
OWRT = "OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR="


def _split(endpoint):
    if not endpoint:
        return None, None
    if ":" not in endpoint:
        return endpoint, None
    host, port = endpoint.rsplit(":", 1)
    return host, int(port)


def linux(key, peer_keys, path="/etc/wireguard/wg0.conf", listen_port=51820, endpoints=None, learned=None, ages=None, counters=None,
          addresses=None, allowed=None, paper=(), keepalive=None, kept=None):
    """A Linux host whose wg-quick file ``path`` lists ``peer_keys``; ``endpoints``: {key: "host:port"} in the file (and
    live); ``learned``: {key: "host:port"} live only (learned from the other end); ``ages``: {key: handshake age s};
    ``counters``: {key: (tx_bytes, rx_bytes)}, else (0, 0); ``addresses``: the file's Address values (None: no Address line
    read); ``allowed``: {key: [prefix, ...]} live, else ["10.77.0.0/24"]; ``paper``: keys of ``peer_keys`` only in the
    file (the kernel does not have them: no wg syncconf since); ``keepalive``: {key: PersistentKeepalive s} live;
    ``kept``: {key: [prefix, ...]} the file's AllowedIPs, else the live ones (``allowed``'s)."""
    allowed = allowed or {}
    endpoints, learned, ages, counters = endpoints or {}, learned or {}, ages or {}, counters or {}
    peers = []
    for k in peer_keys:
        if k in paper:
            continue
        host, port = _split(learned.get(k) or endpoints.get(k))
        peers.append({"public_key": k, "allowed_ips": allowed.get(k, ["10.77.0.0/24"]), "endpoint_host": host, "endpoint_port": port,
                      "handshake_age_s": ages.get(k), "tx_bytes": counters.get(k, (0, 0))[0],
                      "rx_bytes": counters.get(k, (0, 0))[1], "persistent_keepalive_s": (keepalive or {}).get(k)})
    return {"tunnelfix": {"wireguard": {
        "interfaces": {"wg0": {"public_key": key, "listen_port": listen_port, "peers": peers}} if key else {},
        "configs": [{"path": path, "kind": "wg-quick", "interface": "wg0", "wireguard": True, "addresses": addresses,
                     "peers": [{"public_key": k, "endpoint": endpoints.get(k),
                                "allowed_ips": (kept or {}).get(k, allowed.get(k, ["10.77.0.0/24"]))} for k in peer_keys]}]}}}


def owrt(key, peer_keys, listen_port=51820, endpoints=None, learned=None, counters=None, addresses=None, allowed=None,
         disabled=(), uci_port=True, kept=None, sections=None, unrouted=(), keepalive=None):
    """An OpenWrt router whose uci lists ``peer_keys`` (running when ``key``); ``endpoints``: {key: "host:port"} in uci
    (and live; "host" alone: no endpoint_port in uci, netifd's 51820 live); ``learned``: {key: "host:port"} live only;
    ``allowed``: {key: [prefix, ...]} live, else []; ``disabled``: keys whose uci peer has disabled '1' (not live);
    ``uci_port``: False when uci sets no listen_port (a random one live); ``kept``: {key: [prefix, ...]} uci's
    allowed_ips, else the live ones; ``sections``: {key: uci section}, else ``@wireguard_wg0[N]``; ``unrouted``: keys
    whose uci peer has route_allowed_ips 0 (else 1); ``keepalive``: {key: s} live."""
    endpoints, learned, counters, allowed = endpoints or {}, learned or {}, counters or {}, allowed or {}
    peers = []
    for k in peer_keys:
        host, port = _split(endpoints.get(k))
        live_host, live_port = _split(learned.get(k) or endpoints.get(k))
        live_port = 51820 if live_host and live_port is None else live_port
        peers.append({"public_key": k, "in_uci": True, "endpoint_host": host, "endpoint_port": port, "disabled": k in disabled,
                      "allowed_ips": (kept or {}).get(k, allowed.get(k, [])), "route_allowed_ips": k not in unrouted,
                      "section": (sections or {}).get(k, "@wireguard_wg0[%d]" % len(peers)),
                      "live": {"allowed_ips": allowed.get(k, []), "endpoint_host": live_host, "endpoint_port": live_port,
                               "tx_bytes": counters.get(k, (0, 0))[0], "rx_bytes": counters.get(k, (0, 0))[1],
                               "persistent_keepalive_s": (keepalive or {}).get(k)}
                      if key and k not in disabled else None})
    return {"openwrt": {"wireguard": {"interfaces": {"wg0": {
        "in_uci": True, "live": bool(key), "listen_port": listen_port if uci_port else None, "addresses": addresses,
        "live_state": {"public_key": key, "listen_port": listen_port} if key else None, "peers": peers}}}}}


def with_lan(view, devices):
    """``view`` with the link_addresses reading ``{"devices": devices}`` (``{device: ["address/prefix", ...]}``)."""
    facts = view.get("openwrt") or view["tunnelfix"]
    facts["link_addresses"] = {"devices": devices, "note": None}
    return view


@pytest.fixture(name="tg")
def fixture_tg():
    return SimpleNamespace(HUB=HUB, PEER=PEER, OLD=OLD, OWRT=OWRT, linux=linux, owrt=owrt, with_lan=with_lan)
