# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""prometheus_textfile on Debian: the metric lines match the live wg0, the measurement and this host's findings."""

import pytest

testinfra_hosts = ["tf-mol-prometheus"]  # the instance these tests read (testinfra)

KEYS = "/root/molecule-keys"
TEXTFILE = "/var/lib/prometheus/node-exporter/tunnelfix.prom"
PEER = '{interface="wg0",peer="%s"}'


@pytest.fixture(name="lines")
def fixture_lines(host):
    return host.file(TEXTFILE).content_string.splitlines()


def test_file_mode(host):
    assert oct(host.file(TEXTFILE).mode) == "0o644"


def test_live_keepalive(wg_keepalive, peers):
    assert wg_keepalive("wg0") == {peers["hub"]: "25", peers["branch"]: "off"}


@pytest.mark.parametrize("peer, metric, value", [
    ("hub", "tunnelfix_wireguard_keepalive_enabled", "1"),
    ("branch", "tunnelfix_wireguard_keepalive_enabled", "0"),
    ("hub", "tunnelfix_wireguard_persistent_keepalive_seconds", "25"),
    ("branch", "tunnelfix_wireguard_persistent_keepalive_seconds", "0"),
    ("hub", "tunnelfix_wireguard_latest_handshake_timestamp_seconds", "0"),
    ("branch", "tunnelfix_wireguard_latest_handshake_timestamp_seconds", "0"),
])
def test_peer_series(lines, peers, peer, metric, value):
    assert metric + PEER % peers[peer] + " " + value in lines


@pytest.mark.parametrize("line", [
    'tunnelfix_tunnel_verified_bits_per_second{hub="hub",test="tcp_single_flow"} 35576089.08577776',
    'tunnelfix_tunnel_verified_timestamp_seconds{hub="hub",test="tcp_single_flow"} 1796041290',
    'tunnelfix_findings{id="nat_peer_without_keepalive",severity="critical"} 1',
    'tunnelfix_findings{id="loss_sensitive_congestion_control",severity="high"} 1',
    "# TYPE tunnelfix_wireguard_latest_handshake_timestamp_seconds gauge",
])
def test_measurement_findings_and_types(lines, line):
    assert line in lines


def test_ten_series_and_no_other_hosts_finding(lines):
    assert len([line for line in lines if line.startswith("tunnelfix_")]) == 10
    assert [line for line in lines if "endpoint_route_pinned" in line] == []


@pytest.mark.parametrize("secret", ["self.key", "psk.key"])
def test_no_private_or_preshared_key(host, secret):
    """Counted by grep in the container: the key never reaches this test's output."""
    assert host.check_output("grep -c -F -f %s %s || true", "%s/%s" % (KEYS, secret), TEXTFILE) == "0"
