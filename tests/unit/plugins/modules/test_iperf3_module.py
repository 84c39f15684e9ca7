"""iperf3 module: option checks name the option and value; argv carries every option."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.modules.iperf3 import ARGUMENT_SPEC, build_argv, check_params

DEFAULTS = {name: spec.get("default") for name, spec in ARGUMENT_SPEC.items()}


def params(**overrides):
    merged = dict(DEFAULTS, server="127.0.0.1")
    merged.update(overrides)
    return merged


@pytest.mark.parametrize("overrides, message", [
    ({"port": 0}, "port must be 1-65535, got 0"),
    ({"port": 70000}, "port must be 1-65535, got 70000"),
    ({"port": True}, "port must be 1-65535, got True"),
    ({"parallel": 0}, "parallel must be 1-128, got 0"),
    ({"duration_s": 0}, "duration_s must be 1-3600, got 0"),
    ({"max_lost_percent": 101.0}, "max_lost_percent must be 0-100, got 101.0"),
    ({"bitrate": "fast"}, "bitrate: cannot parse bitrate 'fast'"),
    ({"min_bits_per_second": "10X"}, "min_bits_per_second: cannot parse bitrate '10X'"),
    ({"server": ""}, "server must name the iperf3 server, got ''"),
])
def test_bad_options_name_option_and_value(overrides, message):
    minimum, error = check_params(params(**overrides))
    assert minimum is None
    assert message in error


@pytest.mark.parametrize("value, expected", [("150M", 150e6), ("1.5G", 1.5e9), (40000000, 40e6)])
def test_min_bits_per_second_formats(value, expected):
    assert check_params(params(min_bits_per_second=value)) == (expected, None)


def test_argv_carries_every_option():
    argv = build_argv("/usr/bin/iperf3", params(protocol="udp", reverse=True, parallel=4, duration_s=5,
                                                omit_s=2, bitrate="20M", congestion_control="bbr",
                                                bind_address="127.0.0.2", port=5999))
    joined = " ".join(argv)
    for part in ("-c 127.0.0.1", "-p 5999", "-J", "-t 5", "-P 4", "-O 2", "-u", "-R", "-b 20000000",
                 "-C bbr", "-B 127.0.0.2", "--connect-timeout 5000"):
        assert part in joined


def test_tcp_forward_has_no_udp_or_reverse_flags():
    argv = build_argv("/usr/bin/iperf3", params())
    assert "-u" not in argv and "-R" not in argv and "-b" not in argv
