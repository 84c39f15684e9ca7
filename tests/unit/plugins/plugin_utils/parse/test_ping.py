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


def test_every_field_of_a_recorded_summary(load_fixture):
    assert parse_ping_summary(load_fixture("ping", "loopback_ok.txt")) == {
        "packets_transmitted": 4, "packets_received": 4, "errors": 0, "loss_percent": 0.0,
        "rtt_min_ms": 0.039, "rtt_avg_ms": 0.21, "rtt_max_ms": 0.723}


def test_nothing_came_back_has_no_rtt(load_fixture):
    summary = parse_ping_summary(load_fixture("ping", "all_lost.txt"))
    assert (summary["rtt_min_ms"], summary["rtt_avg_ms"], summary["rtt_max_ms"], summary["errors"]) == (None, None, None, 0)


def test_icmp_errors_are_counted_apart_from_the_loss():
    # iputils-ping ping_common.c finish(): ", +N errors" after "received" when ICMP errors came back
    text = ("PING 10.9.9.7 (10.9.9.7) 56(84) bytes of data.\n"
            "From 10.9.9.1 icmp_seq=1 Destination Host Unreachable\n\n"
            "--- 10.9.9.7 ping statistics ---\n"
            "3 packets transmitted, 0 received, +3 errors, 100% packet loss, time 2031ms\n"
            "pipe 3\n")
    summary = parse_ping_summary(text)
    assert (summary["packets_transmitted"], summary["packets_received"], summary["errors"], summary["loss_percent"]) == \
        (3, 0, 3, 100.0)


def test_nothing_transmitted_is_not_a_measurement():
    # iputils prints no "% packet loss" when it sent nothing (interrupted before the first echo)
    with pytest.raises(ParseError, match="no ping statistics"):
        parse_ping_summary("--- 10.9.9.7 ping statistics ---\n0 packets transmitted, 0 received\n")


def test_errors_after_duplicates_and_corrupted_are_counted():
    summary = parse_ping_summary("5 packets transmitted, 3 received, +2 duplicates, +1 corrupted, +2 errors, 40% packet loss, "
                                 "time 4005ms\n")
    assert (summary["packets_received"], summary["errors"], summary["loss_percent"]) == (3, 2, 40.0)
    assert parse_ping_summary("5 packets transmitted, 5 received, +1 duplicates, 0% packet loss, time 4005ms\n")["errors"] == 0


@pytest.mark.parametrize("line", ["4 packets transmitted, 2 received, 150% packet loss, time 3003ms",
                                  "4 packets transmitted, 5 received, 0% packet loss, time 3003ms"])
def test_a_summary_that_cannot_be_true_is_refused(line):
    with pytest.raises(ParseError, match="impossible ping statistics"):
        parse_ping_summary(line + "\n")


def test_the_edges_that_can_be_true():
    assert parse_ping_summary("4 packets transmitted, 0 received, 100% packet loss, time 3003ms\n")["loss_percent"] == 100.0
    assert parse_ping_summary("4 packets transmitted, 4 received, 0% packet loss, time 3003ms\n")["packets_received"] == 4
