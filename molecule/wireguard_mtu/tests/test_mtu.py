# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""wireguard_mtu on a wg-quick interface: MTU 1340 live (ip link) and in [Interface] of the file, nothing else changed."""

import re

KEYS = "/root/molecule-keys"
CONF = "/etc/wireguard/wg0.conf"


def test_live_mtu(host):
    """The running interface, as the kernel reports it (not the file)."""
    link = host.check_output("ip -o link show dev wg0")
    assert re.search(r" mtu (\d+) ", link).group(1) == "1340", link


def test_mtu_line_added_to_the_interface_section_and_nothing_else_changed(host):
    key = host.file(KEYS + "/self.key").content_string.strip()
    hub = host.file(KEYS + "/hub.pub").content_string.strip()
    assert host.file(CONF).content_string.splitlines() == [
        "# the branch tunnel to the hub",
        "[Interface]",
        "PrivateKey = " + key,
        "Address = 10.77.0.2/24, fd77::2/64",
        "ListenPort = 51820",
        "MTU = 1340",
        "",
        "[Peer]",
        "# hub",
        "PublicKey = " + hub,
        "Endpoint = 192.0.2.10:51820",
        "AllowedIPs = 10.77.0.1/32, fd77::1/128",
    ]


def test_file_mode_kept_and_one_backup(host):
    assert host.file(CONF).mode == 0o600
    assert len(host.check_output("find /etc/wireguard -maxdepth 1 -name 'wg0.conf.*~'").splitlines()) == 1


def test_interface_not_restarted(host):
    """The wireguard-go process serving wg0 is the one prepare recorded: ip link, no wg-quick down/up."""
    assert host.check_output("pgrep -f '^wireguard-go wg0$'") == host.file(KEYS + "/wireguard-go.pid").content_string.strip()


def test_tcp_mtu_probing_live_and_kept(host, sysctl):
    assert sysctl("net.ipv4.tcp_mtu_probing") == "1"
    assert "net.ipv4.tcp_mtu_probing = 1" in host.file("/etc/sysctl.d/90-tunnelfix-tcp-mtu-probing.conf").content_string


def test_no_guard_or_armed_rollback_left(host):
    assert not host.file("/run/tunnelfix-rollback/wireguard_mtu.lock").exists
    assert host.check_output("systemctl list-timers --all --no-legend 'tunnelfix-rollback-wireguard_mtu*' | wc -l") == "0"
