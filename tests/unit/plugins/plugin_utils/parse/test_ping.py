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
                                  "4 packets transmitted, 0 received, 101% packet loss, time 3003ms",
                                  "4 packets transmitted, 0 received, 100.5% packet loss, time 3003ms",
                                  "4 packets transmitted, 5 received, 0% packet loss, time 3003ms"])
def test_a_summary_that_cannot_be_true_is_refused(line):
    with pytest.raises(ParseError, match="impossible ping statistics"):
        parse_ping_summary(line + "\n")


def test_the_edges_that_can_be_true():
    assert parse_ping_summary("4 packets transmitted, 0 received, 100% packet loss, time 3003ms\n")["loss_percent"] == 100.0
    assert parse_ping_summary("4 packets transmitted, 4 received, 0% packet loss, time 3003ms\n")["packets_received"] == 4


@pytest.mark.parametrize("command, case", [("ping_M_do", "v4_no_route.txt"), ("busybox_ping", "no_route.txt")])
def test_a_ping_that_sent_nothing_is_quoted_in_the_error(load_fixture, command, case):
    """Recorded: iputils and BusyBox ping without a route print no statistics; the error quotes what they printed."""
    text = load_fixture(command, case)
    with pytest.raises(ParseError) as err:
        parse_ping_summary(text)
    assert str(err.value) == "no ping statistics line in output: %r" % text


@pytest.mark.parametrize("text", ["", None])
def test_no_output_at_all_is_quoted_as_empty(text):
    with pytest.raises(ParseError) as err:
        parse_ping_summary(text)
    assert str(err.value) == "no ping statistics line in output: ''"


def test_a_long_output_without_statistics_is_quoted_to_200_characters(load_fixture):
    """Recorded: BusyBox ping's usage text (an option it lacks), over 200 characters; the error shows its first 200."""
    text = load_fixture("busybox_ping", "V_option.txt")
    assert len(text) > 200
    with pytest.raises(ParseError) as err:
        parse_ping_summary(text)
    assert str(err.value) == "no ping statistics line in output: %r" % text[:200]


def test_an_impossible_summary_names_its_counts_and_quotes_the_line():
    with pytest.raises(ParseError) as err:
        parse_ping_summary("PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.\n"
                           "4 packets transmitted, 5 received, 0% packet loss, time 3003ms\n")
    assert str(err.value) == ("impossible ping statistics (4 transmitted, 5 received, 0% loss): "
                              "'4 packets transmitted, 5 received, 0% packet loss'")
    with pytest.raises(ParseError) as err:
        parse_ping_summary("2 packets transmitted, 1 received, 150.5% packet loss\n")
    assert str(err.value) == ("impossible ping statistics (2 transmitted, 1 received, 150.5% loss): "
                              "'2 packets transmitted, 1 received, 150.5% packet loss'")


def test_an_impossible_summary_quotes_at_most_200_characters_of_it():
    line = "4 packets transmitted, 5 received, +1 errors, " + "x" * 300 + ", 0% packet loss"
    with pytest.raises(ParseError) as err:
        parse_ping_summary(line + "\n")
    assert str(err.value) == "impossible ping statistics (4 transmitted, 5 received, 0% loss): " + repr(line[:200])


@pytest.mark.parametrize("command, case, summary", [
    # recorded: a hop answered "Frag needed": one ICMP error, nothing back
    ("ping_M_do", "v4_frag_needed.txt", {"packets_transmitted": 1, "packets_received": 0, "errors": 1, "loss_percent": 100.0,
                                         "rtt_min_ms": None, "rtt_avg_ms": None, "rtt_max_ms": None}),
    # recorded: BusyBox wording, "packets received" and "round-trip min/avg/max" without mdev
    ("busybox_ping", "v4_black_hole_fits.txt", {"packets_transmitted": 1, "packets_received": 1, "errors": 0, "loss_percent": 0.0,
                                                "rtt_min_ms": 0.053, "rtt_avg_ms": 0.053, "rtt_max_ms": 0.053}),
])
def test_recorded_summaries_read_whole(load_fixture, command, case, summary):
    assert parse_ping_summary(load_fixture(command, case)) == summary


def test_the_three_round_trip_times_are_read_apart():
    summary = parse_ping_summary("3 packets transmitted, 3 packets received, 0% packet loss\nround-trip min/avg/max = 1.1/2.2/3.3 ms\n")
    assert (summary["rtt_min_ms"], summary["rtt_avg_ms"], summary["rtt_max_ms"]) == (1.1, 2.2, 3.3)
