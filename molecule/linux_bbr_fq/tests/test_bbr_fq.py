# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""linux_bbr_fq in a container: BBR and the larger buffers live and in the drop-in, host-level keys not."""

import pytest

DROPIN = "/etc/sysctl.d/60-tunnelfix-bbr-fq.conf"


@pytest.mark.parametrize("key, expected", [
    ("net.ipv4.tcp_congestion_control", "bbr"),
    ("net.ipv4.tcp_rmem", "4096 131072 33554432"),
    ("net.ipv4.tcp_wmem", "4096 16384 33554432"),
])
def test_live_value(sysctl, key, expected):
    assert sysctl(key) == expected


def test_dropin_persists_the_namespace_keys_only(host):
    lines = host.file(DROPIN).content_string.splitlines()
    assert "net.ipv4.tcp_congestion_control = bbr" in lines
    assert "net.ipv4.tcp_wmem = 4096 16384 33554432" in lines
    assert [line for line in lines if "default_qdisc" in line or "netdev_max_backlog" in line] == []


def test_no_modules_load_entry_in_a_container(host):
    assert not host.file("/etc/modules-load.d/tunnelfix-bbr.conf").exists
