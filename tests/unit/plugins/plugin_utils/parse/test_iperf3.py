# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_iperf3_json, Iperf3Error, is_retryable_iperf3_error, parse_iperf3_stderr."""

import json

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.iperf3 import (
    Iperf3Error,
    is_retryable_iperf3_error,
    parse_iperf3_json,
    parse_iperf3_stderr,
)

approx = pytest.approx

# (case, expected subset of the result); floats compared with pytest.approx
RESULT_CASES = [
    # recorded in network namespaces with iperf3 3.12 (see fixtures/README.md)
    ("tcp_forward_3.12.txt", {
        "version": "3.12", "protocol": "TCP", "reverse": False, "bidir": False, "direction": "client_to_server",
        "role": "client", "num_streams": 1, "duration_s": approx(3.005379), "requested_duration_s": 3,
        "server_host": "10.20.0.1", "server_port": 5201,
        "receiver_bits_per_second": approx(632835310.28865242), "sender_bits_per_second": approx(643914833.1024822),
        "retransmits": 24982, "lost_percent": None, "jitter_ms": None, "lost_packets": None, "packets": None,
        "sender_congestion_control": "bbr", "receiver_congestion_control": "bbr", "approximate": False,
        "bidir_reverse_receiver_bits_per_second": None, "valid": True, "invalid_reason": None}),
    ("tcp_reverse_3.12.txt", {
        "reverse": True, "direction": "server_to_client", "receiver_bits_per_second": approx(588610377.2896446),
        "retransmits": 26849}),
    ("tcp_bbr_3.12.txt", {"sender_congestion_control": "bbr", "retransmits": 19235,
                          "receiver_bits_per_second": approx(20538436306.160187)}),
    ("tcp_cubic_3.12.txt", {"sender_congestion_control": "cubic", "receiver_congestion_control": "cubic",
                            "retransmits": 0}),
    # 3.12 has *_bidir_reverse keys but no test_start.bidir yet
    ("tcp_bidir_3.12.txt", {
        "bidir": True, "direction": "bidirectional", "receiver_bits_per_second": approx(12671062287.62251),
        "bidir_reverse_receiver_bits_per_second": approx(5349771712.234876),
        "bidir_reverse_sender_bits_per_second": approx(5361392603.198664), "bidir_reverse_retransmits": 5725}),
    # 3.12 repeats start.sock_bufsize once per stream: tolerated
    ("tcp_parallel2_3.12.txt", {"num_streams": 2, "receiver_bits_per_second": approx(25671004154.309788),
                                "retransmits": 84610, "valid": True}),
    ("udp_forward_3.12.txt", {
        "protocol": "UDP", "receiver_bits_per_second": approx(49923327.49318474),
        "sender_bits_per_second": approx(49986827.78557936), "lost_percent": 0.0, "lost_packets": 0,
        "packets": 13703, "jitter_ms": approx(0.0156544630605268), "retransmits": None,
        "sender_congestion_control": None, "approximate": False}),
    ("udp_reverse_3.12.txt", {"reverse": True, "packets": 13704,
                              "receiver_bits_per_second": approx(49991425.46480954)}),
    # wireguard-go could not keep up: end.sum says 1.19 Gbit/s, only 375 Mbit/s arrived
    ("udp_reverse_overload_3.12.txt", {
        "receiver_bits_per_second": approx(375005284.609595), "sender_bits_per_second": approx(1191640454.241112),
        "lost_percent": approx(67.7083901298292), "lost_packets": 223523, "packets": 326367, "approximate": False}),
    ("server_side_tcp_3.12.txt", {"role": "server", "sender_bits_per_second": 0.0, "valid": False}),
    # field cases
    ("case12_through_router_3.16.txt", {"version": "3.16", "receiver_bits_per_second": approx(308404.2),
                                        "retransmits": 154, "duration_s": approx(10.2)}),
    ("case16_tcp_no_retransmits_3.17.txt", {"version": "3.17.1", "retransmits": None, "reverse": True,
                                            "receiver_bits_per_second": approx(78014054.4)}),
    ("case16_udp_reverse_3.12.txt", {"receiver_bits_per_second": approx(339360000), "lost_percent": approx(66.07),
                                     "approximate": False, "server_host": "203.0.113.5"}),
    # < 3.11: only end.sum (the sender's count); receiver derived from the loss
    ("case16_udp_reverse_3.9.txt", {"version": "3.9", "approximate": True, "sender_bits_per_second": approx(1e9),
                                    "receiver_bits_per_second": approx(339300000), "lost_percent": approx(66.07),
                                    "jitter_ms": approx(0.09), "packets": 863213}),
    ("case16_bidir_3.13.txt", {"bidir": True, "receiver_bits_per_second": approx(940000000), "retransmits": 12,
                               "bidir_reverse_receiver_bits_per_second": approx(48000000),
                               "bidir_reverse_retransmits": 3310, "sender_congestion_control": "bbr",
                               "receiver_congestion_control": "cubic"}),
]


@pytest.mark.parametrize("case, expected", RESULT_CASES)
def test_results(load_fixture, case, expected):
    result = parse_iperf3_json(load_fixture("iperf3_json", case))
    assert {name: result[name] for name in expected} == expected


def test_udp_before_3_11_is_close_to_what_3_12_measured(load_fixture):
    old = parse_iperf3_json(load_fixture("iperf3_json", "case16_udp_reverse_3.9.txt"))
    new = parse_iperf3_json(load_fixture("iperf3_json", "case16_udp_reverse_3.12.txt"))
    assert old["receiver_bits_per_second"] == approx(new["receiver_bits_per_second"], rel=1e-3)
    assert old["receiver_bits_per_second"] < old["sender_bits_per_second"] / 2


ERROR_CASES = [
    ("iperf3_json", "error_busy_3.12.txt", "the server is busy running a test. try again later", True),
    ("iperf3_json", "error_control_socket_closed_3.12.txt", "control socket has closed unexpectedly", True),
    ("iperf3_json", "error_refused_3.12.txt", "unable to connect to server: Connection refused", False),
    ("iperf3_json", "case15_busy_3.9.txt", "the server is busy running a test. try again later", True),
    ("iperf3_json_stream", "case15_busy.txt", "the server is busy running a test. try again later", True),
]


@pytest.mark.parametrize("command, case, message, retryable", ERROR_CASES)
def test_reported_errors_raise_iperf3error(load_fixture, command, case, message, retryable):
    with pytest.raises(Iperf3Error) as err:
        parse_iperf3_json(load_fixture(command, case))
    assert (err.value.message, err.value.retryable) == (message, retryable)
    assert isinstance(err.value, ParseError) and isinstance(err.value, ValueError)
    assert message in str(err.value)


def test_duplicate_result_keys_are_refused(load_fixture):
    with pytest.raises(ParseError) as err:
        parse_iperf3_json(load_fixture("iperf3_json", "case16_bidir_duplicate_keys_3.7.txt"))
    assert "upgrade iperf3 to >= 3.11 or don't use --bidir" in str(err.value)
    assert "'sum_sent' twice in end" in str(err.value)
    assert not isinstance(err.value, Iperf3Error)


def mutated(load_fixture, case, change):
    """A recorded result with one value changed, as JSON text."""
    doc = json.loads(load_fixture("iperf3_json", case))
    change(doc)
    return json.dumps(doc)


def set_in(path, value):
    def change(doc):
        target = doc
        for name in path[:-1]:
            target = target[name]
        target[path[-1]] = value
    return change


INVALID_CASES = [
    ("udp_forward_3.12.txt", set_in(["end", "sum_received", "lost_percent"], 150.0), "lost_percent is 150.0"),
    ("udp_forward_3.12.txt", set_in(["end", "sum_received", "lost_percent"], -1), "lost_percent is -1.0"),
    ("udp_forward_3.12.txt", set_in(["end", "sum_received", "bits_per_second"], -5),
     "receiver_bits_per_second is -5.0"),
    ("tcp_forward_3.12.txt", set_in(["end", "sum_received", "bits_per_second"], float("nan")),
     "receiver_bits_per_second is nan"),
    ("tcp_forward_3.12.txt", set_in(["end", "sum_sent", "bits_per_second"], float("inf")),
     "sender_bits_per_second is inf"),
    ("tcp_forward_3.12.txt", set_in(["end", "sum_received", "seconds"], 0), "duration_s is 0.0"),
]


@pytest.mark.parametrize("case, change, reason", INVALID_CASES)
def test_implausible_results_are_marked_invalid(load_fixture, case, change, reason):
    result = parse_iperf3_json(mutated(load_fixture, case, change))
    assert result["valid"] is False
    assert reason in result["invalid_reason"]


def test_server_side_json_is_invalid_with_reason(load_fixture):
    result = parse_iperf3_json(load_fixture("iperf3_json", "server_side_tcp_3.12.txt"))
    assert "esnet/iperf#1410" in result["invalid_reason"]


def test_duplicates_outside_results_are_tolerated(load_fixture):
    text = load_fixture("iperf3_json", "tcp_forward_3.12.txt").replace(
        '"cookie":', '"cookie": "x",\n\t\t"cookie":', 1)
    assert parse_iperf3_json(text)["valid"] is True


PARSE_ERRORS = [
    ("", "iperf3 printed nothing on stdout"),
    ("   \n", "iperf3 printed nothing on stdout"),
    ("[1, 2]", "iperf3 JSON must be an object, got list"),
    ('{"start": {}, "end": {}}', "iperf3 JSON has no end results"),
    ('{"start": {}}', "iperf3 JSON has no end results"),
    ('{"event": "start", "data": {}}\n{"event": "interval", "data": {}}\n', "iperf3 JSON has no end results"),
    ('{"end": {"sum_sent": {"bits_per_second": "fast"}, "sum_received": {"bits_per_second": 1}}}',
     "end.sum_sent.bits_per_second must be a number, got 'fast'"),
    ('{"start": {"test_start": {"protocol": "TCP"}}, "end": {"sum_sent": {}}}', "no end.sum_received/end.sum_sent"),
    ('{"start": {"test_start": {"protocol": "UDP"}}, "end": {"cpu_utilization_percent": {}}}',
     "no end.sum_received or end.sum"),
    ('{"end": {"sum_sent": {}, "sum_received": {}}, "end": {}}', "'end' twice in"),
]


@pytest.mark.parametrize("text, message", PARSE_ERRORS)
def test_parse_errors(text, message):
    with pytest.raises(ParseError) as err:
        parse_iperf3_json(text)
    assert message in str(err.value)
    assert not isinstance(err.value, Iperf3Error)


@pytest.mark.parametrize("case", ["busy_3.12.txt", "refused_3.12.txt", "json_stream_unsupported_3.12.txt"])
def test_plain_text_is_not_json_and_is_quoted_briefly(load_fixture, case):
    text = load_fixture("iperf3_stderr", case)
    with pytest.raises(ParseError) as err:
        parse_iperf3_json(text)
    assert str(err.value) == "iperf3 output is not JSON (run iperf3 with -J): " + repr(text[:200])


@pytest.mark.parametrize("message, retryable", [
    ("the server is busy running a test. try again later", True),
    ("unable to send control message: Connection reset by peer", True),
    ("control socket has closed unexpectedly", True),
    ("unable to receive results: Connection reset by peer", True),
    ("unable to connect stream: Resource temporarily unavailable", True),
    ("unable to connect to server: Connection refused", False),
    ("unable to connect to server: No route to host", False),
    ("some future message", False),
    ("", False),
    (None, False),
])
def test_is_retryable(message, retryable):
    assert is_retryable_iperf3_error(message) is retryable
    assert Iperf3Error(message or "").retryable is retryable


def test_iperf3error_retryable_can_be_forced():
    assert Iperf3Error("the server is busy running a test. try again later", retryable=False).retryable is False


@pytest.mark.parametrize("case, expected", [
    ("busy_3.12.txt", {"message": "the server is busy running a test. try again later", "retryable": True}),
    ("case15_busy.txt", {"message": "the server is busy running a test. try again later", "retryable": True}),
    ("refused_3.12.txt", {"message": "unable to connect to server: Connection refused", "retryable": False}),
    ("json_stream_unsupported_3.12.txt", {"message": "unrecognized option '--json-stream'", "retryable": False}),
])
def test_parse_stderr(load_fixture, case, expected):
    assert parse_iperf3_stderr(load_fixture("iperf3_stderr", case)) == expected


@pytest.mark.parametrize("text", ["", None, "Connecting to host 10.20.0.1, port 5201\n"])
def test_parse_stderr_without_error(text):
    assert parse_iperf3_stderr(text) is None


@pytest.mark.parametrize("case, expected", [
    ("tcp_cubic_3.12.txt", 0.029),          # client sends: its streams carry tcp_info RTT (29 us on loopback)
    ("tcp_parallel2_3.12.txt", "mean"),     # two streams: their mean
    ("tcp_reverse_3.12.txt", None),         # -R: the client receives, no RTT samples on its side
    ("udp_forward_3.12.txt", None),         # UDP: no TCP RTT
])
def test_mean_rtt_ms_comes_from_the_sending_streams(load_fixture, case, expected):
    text = load_fixture("iperf3_json", case)
    result = parse_iperf3_json(text)
    if expected == "mean":
        rtts = [s["sender"]["mean_rtt"] for s in json.loads(text)["end"]["streams"]]
        assert len(rtts) == 2 and result["mean_rtt_ms"] == round(sum(rtts) / 2 / 1000.0, 3)
    else:
        assert result["mean_rtt_ms"] == expected


@pytest.mark.parametrize("case, expected", [
    ("tcp_bbr_3.12.txt", 1796029447),
    ("udp_forward_3.12.txt", 1796029453),
])
def test_start_epoch_s_from_the_start_timestamp(load_fixture, case, expected):
    assert parse_iperf3_json(load_fixture("iperf3_json", case))["start_epoch_s"] == expected


@pytest.mark.parametrize("timestamp", [None, {}, {"timesecs": "1796029447"}, {"timesecs": 0}, {"timesecs": True}, "x"])
def test_start_epoch_s_is_none_without_a_usable_timestamp(load_fixture, timestamp):
    doc = json.loads(load_fixture("iperf3_json", "tcp_bbr_3.12.txt"))
    if timestamp is None:
        doc["start"].pop("timestamp", None)
    else:
        doc["start"]["timestamp"] = timestamp
    assert parse_iperf3_json(json.dumps(doc))["start_epoch_s"] is None
