# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""prometheus_textfile on the python-free router: the live peers are there; the disabled one, every secret, throughput and findings are not."""

import pytest

testinfra_hosts = ["tf-mol-prometheus-owrt"]  # the instance these tests read (testinfra)

TEXTFILE = "/var/prometheus/tunnelfix.prom"
HUB = '{interface="wg0",peer="%s"}' % ("A" * 43 + "=")
BRANCH = '{interface="wg0",peer="%s"}' % ("B" * 43 + "=")


@pytest.fixture(name="lines")
def fixture_lines(host):
    return [line.strip() for line in host.file(TEXTFILE).content_string.splitlines()]


def test_file_mode(host):
    assert host.check_output("stat -c %%a %s", TEXTFILE) == "644"


@pytest.mark.parametrize("line", [
    "tunnelfix_wireguard_keepalive_enabled" + HUB + " 1",
    "tunnelfix_wireguard_persistent_keepalive_seconds" + HUB + " 25",
    "tunnelfix_wireguard_latest_handshake_timestamp_seconds" + HUB + " 1796041236",
    "tunnelfix_wireguard_keepalive_enabled" + BRANCH + " 0",
    "tunnelfix_wireguard_persistent_keepalive_seconds" + BRANCH + " 0",
    "tunnelfix_wireguard_latest_handshake_timestamp_seconds" + BRANCH + " 0",
])
def test_peer_series(lines, line):
    assert line in lines


def test_six_series_only(lines):
    assert len([line for line in lines if line.startswith("tunnelfix_")]) == 6


def test_no_disabled_peer_and_no_secret(lines):
    """Fake keys: D the disabled peer, K the private key, P the preshared key, E the interface's public key."""
    assert [line for line in lines if any(key * 10 in line for key in "DKPE")] == []


def test_no_throughput_and_no_findings(lines):
    assert [line for line in lines if "tunnelfix_tunnel_verified" in line or "tunnelfix_findings" in line] == []
