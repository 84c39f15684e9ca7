"""parse_ping_summary on recorded iputils-ping output (fixtures/ping/)."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ping import parse_ping_summary


@pytest.mark.parametrize("case, sent, received, loss, rtt_avg", [
    ("loopback_ok", 4, 4, 0.0, 0.21),
    ("all_lost", 4, 0, 100.0, None),
    ("no_neighbour", 3, 0, 100.0, None),
])
def test_summary(load_fixture, case, sent, received, loss, rtt_avg):
    summary = parse_ping_summary(load_fixture("ping", case + ".txt"))
    assert (summary["packets_transmitted"], summary["packets_received"]) == (sent, received)
    assert summary["loss_percent"] == loss
    assert summary["rtt_avg_ms"] == rtt_avg


def test_busybox_wording():
    text = "3 packets transmitted, 3 packets received, 0% packet loss\nround-trip min/avg/max = 1.1/2.2/3.3 ms\n"
    assert parse_ping_summary(text)["rtt_max_ms"] == 3.3


@pytest.mark.parametrize("text", ["", "ping: unknown host nowhere\n", None])
def test_no_statistics_is_an_error(text):
    with pytest.raises(ParseError, match="no ping statistics"):
        parse_ping_summary(text)
