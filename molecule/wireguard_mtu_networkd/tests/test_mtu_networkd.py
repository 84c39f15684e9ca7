# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""wireguard_mtu on a systemd-networkd .netdev: MTUBytes=1340 in [NetDev], 1340 live, networkd never restarted."""

import re

KEYS = "/root/molecule-keys"
NETDEV = "/etc/systemd/network/50-wg0.netdev"


def test_live_mtu(host):
    link = host.check_output("ip -o link show dev wg0")
    assert re.search(r" mtu (\d+) ", link).group(1) == "1340", link


def test_mtubytes_added_to_the_netdev_section_only(host):
    key = host.file(KEYS + "/self.key").content_string.strip()
    hub = host.file(KEYS + "/hub.pub").content_string.strip()
    assert host.file(NETDEV).content_string.splitlines() == [
        "[NetDev]", "Name=wg0", "Kind=wireguard", "Description=site mesh", "MTUBytes=1340", "",
        "[WireGuard]", "PrivateKey=" + key, "ListenPort=51820", "",
        "[WireGuardPeer]", "PublicKey=" + hub, "Endpoint=192.0.2.10:51820", "AllowedIPs=10.77.0.1/32"]


def test_mode_and_group_kept_and_the_other_netdev_untouched(host):
    netdev = host.file(NETDEV)
    assert (netdev.mode, netdev.group) == (0o640, "systemd-network")
    assert host.run("sha256sum -c %s/dummy.sha256", KEYS).rc == 0


def test_networkd_not_started_and_tunnel_not_restarted(host):
    assert host.run("systemctl is-active systemd-networkd").stdout.strip() != "active"
    assert host.check_output("pgrep -f '^wireguard-go wg0$'") == host.file(KEYS + "/wireguard-go.pid").content_string.strip()
