# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""wireguard_keepalive on the python-free router: keepalive 25 on the peers with an endpoint, committed and live, set once."""

KEY_A = "A" * 43 + "="
KEY_B = "B" * 43 + "="
KEY_C = "C" * 43 + "="
CALLS = "/tmp/tunnelfix-calls.log"


def test_committed_keepalive_on_the_peers_with_an_endpoint(uci_show):
    keepalive = {key: value for key, value in uci_show("network").items() if key.endswith(".persistent_keepalive")}
    assert keepalive == {
        "network.@wireguard_wg0[0].persistent_keepalive": "'25'",
        "network.@wireguard_wg1[0].persistent_keepalive": "'25'",
        "network.dc.persistent_keepalive": "'25'",
    }


def test_nothing_left_staged(uci_changes):
    assert uci_changes("network") == []


def test_live_keepalive(wg_keepalive):
    """wg0's live values, as the wg stand-in keeps them (wg1 is not up)."""
    assert wg_keepalive("wg0") == {KEY_A: "25", KEY_B: "off", KEY_C: "25"}


def test_set_once_per_peer_with_an_endpoint(text_lines):
    calls = text_lines(CALLS)
    assert [call for call in calls if call.startswith("wg set ")] == [
        "wg set wg0 peer %s persistent-keepalive 25" % KEY_A,
        "wg set wg0 peer %s persistent-keepalive 25" % KEY_C,
    ]


def test_wg_only_read_and_set(text_lines):
    """No other wg call (no interface restart, no syncconf)."""
    assert [call for call in text_lines(CALLS) if not call.startswith(("wg show ", "wg set "))] == []
