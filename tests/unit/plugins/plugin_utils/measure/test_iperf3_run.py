# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""_iperf3_run: option checks name the option and value; argv carries every option; retries back off
with jitter up to busy_retries; the result carries the measurement and the thresholds' verdict."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.iperf3 import Iperf3Error, parse_iperf3_json
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.iperf3_run import (
    ARGUMENT_SPEC, ASSUMED_DATAGRAM_BYTES, LONG_UDP_DATAGRAMS, MAX_BACKOFF_S, backoff_ceiling_s, base_result, build_argv,
    check_params, iperf3_error_msg, iperf3_path, judged_result, option_context, parse_error_msg, parse_lookup,
    retry_wait_s, udp_counters_64bit)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

DEFAULTS = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}


def params(**overrides):
    merged = dict(DEFAULTS, server="127.0.0.1")
    merged.update(overrides)
    return merged


def highest(low, high):
    """A ``uniform`` that always draws the top of the range, so the ceiling is visible."""
    assert low == 0
    return high


@pytest.mark.parametrize("overrides, message", [
    ({"port": 0}, "port must be 1-65535, got 0"),
    ({"port": 70000}, "port must be 1-65535, got 70000"),
    ({"port": True}, "port must be 1-65535, got True"),
    ({"parallel": 0}, "parallel must be 1-128, got 0"),
    ({"duration_s": 0}, "duration_s must be 1-3600, got 0"),
    ({"omit_s": 601}, "omit_s must be 0-600, got 601"),
    ({"busy_retries": 51}, "busy_retries must be 0-50, got 51"),
    ({"max_lost_percent": 101.0}, "max_lost_percent must be 0-100, got 101.0"),
    ({"bitrate": "fast"}, "bitrate: cannot parse bitrate 'fast'"),
    ({"min_bits_per_second": "10X"}, "min_bits_per_second: cannot parse bitrate '10X'"),
    ({"server": ""}, "server must name the iperf3 server, got ''"),
    ({"server": "  "}, "server must name the iperf3 server, got '  '"),
])
def test_bad_options_name_option_and_value(overrides, message):
    minimum, error = check_params(params(**overrides))
    assert minimum is None
    assert message in error


@pytest.mark.parametrize("value, expected", [("150M", 150e6), ("1.5G", 1.5e9), (40000000, 40e6)])
def test_min_bits_per_second_formats(value, expected):
    assert check_params(params(min_bits_per_second=value)) == (expected, None)


def test_defaults_pass_without_minimum():
    assert check_params(params()) == (None, None)


def test_argv_carries_every_option():
    argv = build_argv("/usr/bin/iperf3", params(protocol="udp", reverse=True, parallel=4, duration_s=5,
                                                omit_s=2, bitrate="20M", congestion_control="bbr",
                                                bind_address="127.0.0.2", port=5999))
    assert argv[0] == "/usr/bin/iperf3"
    joined = " ".join(argv)
    for part in ("-c 127.0.0.1", "-p 5999", "-J", "-t 5", "-P 4", "-O 2", "-u", "-R", "-b 20000000",
                 "-C bbr", "-B 127.0.0.2", "--connect-timeout 5000"):
        assert part in joined


def test_tcp_forward_has_no_udp_or_reverse_flags():
    argv = build_argv("/usr/bin/iperf3", params())
    assert "-u" not in argv and "-R" not in argv and "-b" not in argv and "-O" not in argv
    assert "-C" not in argv and "-B" not in argv


@pytest.mark.parametrize("output, expected", [
    ("/usr/bin/iperf3\n", "/usr/bin/iperf3"),
    ("/usr/local/bin/iperf3", "/usr/local/bin/iperf3"),
    ("", None),
    (None, None),
    ("alias iperf3='iperf3 -f m'\n", None),
    ("iperf3\n", None),
])
def test_iperf3_path_from_command_v(output, expected):
    assert iperf3_path(output) == expected


@pytest.mark.parametrize("reverse, direction", [(False, "client_to_server"), (True, "server_to_client")])
def test_base_result(reverse, direction):
    assert base_result(params(reverse=reverse, port=5299)) == {
        "changed": False, "server": "127.0.0.1:5299", "direction": direction, "attempts": 0}


@pytest.mark.parametrize("attempts, base, ceiling", [
    (1, 2.0, 2.0), (2, 2.0, 4.0), (3, 2.0, 8.0), (5, 2.0, MAX_BACKOFF_S), (50, 60.0, MAX_BACKOFF_S), (1, 0, 0),
])
def test_backoff_ceiling_doubles_up_to_30_s(attempts, base, ceiling):
    assert backoff_ceiling_s(attempts, base) == ceiling


@pytest.mark.parametrize("retryable, attempts, busy_retries, wait", [
    (True, 1, 5, 2.0),
    (True, 3, 5, 8.0),
    (True, 5, 5, MAX_BACKOFF_S),  # the last retry: attempts == busy_retries
    (True, 6, 5, None),           # 1 run + 5 retries made: give up
    (True, 1, 0, None),           # busy_retries=0: no retry at all
    (False, 1, 5, None),          # connection refused: retrying will not help
])
def test_retry_wait(retryable, attempts, busy_retries, wait):
    assert retry_wait_s(retryable, attempts, params(busy_retries=busy_retries), highest) == wait


def test_retry_wait_is_random_between_zero_and_the_ceiling():
    drawn = []

    def record(low, high):
        drawn.append((low, high))
        return 0.25

    assert retry_wait_s(True, 2, params(busy_backoff_s=1.5), record) == 0.25
    assert drawn == [(0, 3.0)]


def test_iperf3_error_message_names_server_attempts_and_options():
    result = dict(base_result(params(port=5299, bind_address="10.9.9.9")), attempts=3)
    msg = iperf3_error_msg(result, Iperf3Error("unable to connect to server: Connection refused"),
                           params(bind_address="10.9.9.9"))
    assert msg == ("iperf3 to 127.0.0.1:5299 failed after 3 attempt(s): unable to connect to server: "
                   "Connection refused (with bind_address=10.9.9.9)")


@pytest.mark.parametrize("overrides, context", [
    ({}, ""),
    ({"congestion_control": "bbr", "bitrate": "20M"}, " (with congestion_control=bbr, bitrate=20M)"),
])
def test_option_context(overrides, context):
    assert option_context(params(**overrides)) == context


def test_parse_error_message_names_server():
    result = base_result(params())
    assert parse_error_msg(result, ParseError("iperf3 printed nothing on stdout")) == \
        "iperf3 to 127.0.0.1:5201: iperf3 printed nothing on stdout"


def test_judged_result_carries_the_measurement(load_fixture):
    measured = parse_iperf3_json(load_fixture("iperf3_json", "tcp_forward_3.12.txt"))
    result = dict(base_result(params()), attempts=1)
    out = judged_result(result, measured, 600e6, params())
    assert out["bits_per_second"] == measured["receiver_bits_per_second"] == pytest.approx(632835310.29)
    assert out["bits_per_second_human"] == "633 Mbit/s"
    assert out["retransmits"] == 24982 and out["attempts"] == 1 and out["changed"] is False
    assert "failed" not in out and "warnings" not in out and "msg" not in out
    assert result == dict(base_result(params()), attempts=1), "the input result is not changed"


def test_judged_result_fails_below_the_minimum(load_fixture):
    measured = parse_iperf3_json(load_fixture("iperf3_json", "tcp_forward_3.12.txt"))
    out = judged_result(dict(base_result(params()), attempts=2), measured, 1e9, params(parallel=1))
    assert out["failed"] is True
    assert out["msg"].startswith("iperf3 to 127.0.0.1:5201 (client_to_server, TCP, 1 stream(s)): "
                                 "receiver bits_per_second 633 Mbit/s (632835310) is below the required")
    assert out["bits_per_second"] == pytest.approx(632835310.29), "numbers are kept on failure"


def test_judged_result_warns_for_thresholds_it_cannot_check(load_fixture):
    measured = parse_iperf3_json(load_fixture("iperf3_json", "tcp_forward_3.12.txt"))
    out = judged_result(base_result(params()), measured, None, params(max_lost_percent=1.0))
    assert out["warnings"] == ["max_lost_percent is only measured for UDP tests; not checked"]
    assert "failed" not in out


@pytest.mark.parametrize("server", ["['127.0.0.1']", "{'a': 1}", "127.0.0.1:5201", "10.0.0.1\n", "a b", "-R", "host;id"])
def test_server_must_be_one_host_or_address(server):
    _minimum, error = check_params(params(server=server))
    assert error is not None and "server must" in error and repr(server) in error


@pytest.mark.parametrize("server", ["10.44.0.1", "hub.example.net", "fd00::1", "::1", "fe80::1%wg0"])
def test_server_host_or_literal_is_accepted(server):
    assert check_params(params(server=server))[1] is None


def test_a_threshold_beyond_any_float_names_the_option():
    _minimum, error = check_params(params(min_bits_per_second=10 ** 400))
    assert error is not None and "min_bits_per_second" in error


@pytest.mark.parametrize("stdout, expected", [
    ("/usr/bin/iperf3\n/usr/bin/timeout\niperf 3.12 (cJSON 1.7.15)\nLinux hub 6.1.0 x86_64\n",
     {"iperf3": "/usr/bin/iperf3", "timeout": "/usr/bin/timeout", "version": "3.12"}),
    # OpenWrt without coreutils-timeout: an empty second line
    ("/usr/bin/iperf3\n\niperf 3.17.1 (cJSON 1.7.15)\n", {"iperf3": "/usr/bin/iperf3", "timeout": None, "version": "3.17.1"}),
    ("/usr/bin/iperf3\n\niperf 3.0.11\n", {"iperf3": "/usr/bin/iperf3", "timeout": None, "version": "3.0.11"}),
    # an alias: no path, and what running it printed names no version
    ("alias iperf3='iperf3 -f m'\n\nsh: alias iperf3='iperf3 -f m': not found\n",
     {"iperf3": None, "timeout": None, "version": None}),
    ("/usr/bin/iperf3\n", {"iperf3": "/usr/bin/iperf3", "timeout": None, "version": None}),
    ("", {"iperf3": None, "timeout": None, "version": None}),
    (None, {"iperf3": None, "timeout": None, "version": None}),
])
def test_parse_lookup(stdout, expected):
    assert parse_lookup(stdout) == expected


@pytest.mark.parametrize("version, asks", [("3.12", True), ("3.1", True), ("3.0.11", False), (None, False)])
def test_the_client_asks_for_the_servers_output_where_iperf3_has_it(version, asks):
    assert ("--get-server-output" in build_argv("/usr/bin/iperf3", params(), version)) is asks


def _udp(bitrate, duration_s=3600, omit_s=0, parallel=1):
    return params(protocol="udp", bitrate=bitrate, duration_s=duration_s, omit_s=omit_s, parallel=parallel)


# the rate at which a test of 3600 s and 1 stream sends exactly LONG_UDP_DATAGRAMS datagrams
AT_THRESHOLD = LONG_UDP_DATAGRAMS * 8 * ASSUMED_DATAGRAM_BYTES // 3600


@pytest.mark.parametrize("overrides, version, wide", [
    (_udp(AT_THRESHOLD), "3.12", False),                      # exactly 2**28 datagrams: 32 bits will do
    (_udp(AT_THRESHOLD + 1), "3.12", True),                   # one bit/s more
    (_udp(AT_THRESHOLD // 2, parallel=2), "3.12", False),
    (_udp(AT_THRESHOLD // 2 + 1, parallel=2), "3.12", True),  # streams count (3.12 sums them in an int)
    (_udp(AT_THRESHOLD, duration_s=3599, omit_s=1), "3.12", False),
    (_udp(AT_THRESHOLD + 1, duration_s=3599, omit_s=1), "3.12", True),   # omitted seconds send too
    (_udp("0", duration_s=1), "3.12", True),                  # -b 0: unlimited
    (_udp(None), "3.12", False),                              # iperf3's 1 Mbit/s for an hour
    (_udp("200G", duration_s=10), "3.12", False),
    (_udp("250G", duration_s=10), "3.12", True),
    (_udp(AT_THRESHOLD + 1), "3.1", True),
    (_udp(AT_THRESHOLD + 1), "3.0.11", False),                # before 3.1: no such option
    (_udp("0"), None, False),                                 # unknown version: not risked
    (dict(_udp("0"), protocol="tcp"), "3.12", False),
])
def test_udp_counters_64bit_on_long_udp_tests_only(overrides, version, wide):
    assert udp_counters_64bit(overrides, version) is wide
    assert ("--udp-counters-64bit" in build_argv("/usr/bin/iperf3", overrides, version)) is wide


def test_judged_result_fails_an_unknown_udp_loss_against_max_lost_percent(load_fixture):
    measured = parse_iperf3_json(load_fixture("iperf3_json", "udp_forward_server_output_client_3.16_server_3.12.txt"))
    out = judged_result(dict(base_result(params()), attempts=1), measured, None,
                        params(protocol="udp", max_lost_percent=2.0))
    assert out["failed"] is True and out["lost_percent"] is None and out["server_version"] == "3.12"
    assert "lost_percent is unknown (the server runs iperf3 3.12" in out["msg"]
