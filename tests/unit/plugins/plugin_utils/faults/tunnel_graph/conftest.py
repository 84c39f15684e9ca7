# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts' WireGuard facts for the tunnel graph's rules (fake keys), as a fixture (importlib mode: no sibling imports)."""

from types import SimpleNamespace

import pytest

HUB = "HUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBHUBH="
PEER = "PEERPEERPEERPEERPEERPEERPEERPEERPEERPEERPEE="
OLD = "OLDPEEROLDPEEROLDPEEROLDPEEROLDPEEROLDPEERO="
OWRT = "OWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWRTOWR="


def linux(key, peer_keys, path="/etc/wireguard/wg0.conf"):
    peers = [{"public_key": k, "allowed_ips": ["10.77.0.0/24"]} for k in peer_keys]
    return {"tunnelfix": {"wireguard": {
        "interfaces": {"wg0": {"public_key": key, "listen_port": 51820, "peers": peers}} if key else {},
        "configs": [{"path": path, "kind": "wg-quick", "interface": "wg0", "wireguard": True,
                     "peers": [{"public_key": k} for k in peer_keys]}]}}}


def owrt(key, peer_keys):
    return {"openwrt": {"wireguard": {"interfaces": {"wg0": {
        "in_uci": True, "live": bool(key), "live_state": {"public_key": key} if key else None,
        "peers": [{"public_key": k, "in_uci": True, "live": {"allowed_ips": []} if key else None} for k in peer_keys]}}}}}


@pytest.fixture(name="tg")
def fixture_tg():
    return SimpleNamespace(HUB=HUB, PEER=PEER, OLD=OLD, OWRT=OWRT, linux=linux, owrt=owrt)
