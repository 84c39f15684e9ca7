# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""wireguard_keepalive on a systemd-networkd .netdev: one added line, mode and owner kept, one backup, live values set.

The private key never leaves the container: the .netdev is read without its PrivateKey= line, and the
backup is compared with diff, which prints only the lines that differ.
"""

import pytest

KEYS = "/root/molecule-keys"
NETWORK = "/etc/systemd/network"
NETDEV = NETWORK + "/50-wg0.netdev"
BACKUP = "$(ls %s | grep '^50-wg0\\.netdev\\..*~$')" % NETWORK


@pytest.fixture(name="netdev")
def fixture_netdev(host):
    """The .netdev's text without its PrivateKey= line."""
    return host.check_output("grep -v '^PrivateKey=' %s", NETDEV) + "\n"


def test_live_keepalive_only_on_the_peer_with_an_endpoint(wg_keepalive, peers):
    assert wg_keepalive("wg0") == {peers["hub"]: "25", peers["branch"]: "off"}


def test_keepalive_right_after_the_hubs_public_key(netdev, peers):
    assert "PublicKey=%s\nPersistentKeepalive=25\nEndpoint=127.0.0.1:51999\n" % peers["hub"] in netdev
    assert netdev.count("PersistentKeepalive") == 1


def test_wireguard_section_untouched(netdev):
    assert "[WireGuard]\nListenPort=51820\n\n[WireGuardPeer]\n# hub" in netdev


def test_mode_and_owner_kept(host):
    assert host.check_output("stat -c '%%a %%U %%G' %s", NETDEV) == host.file(KEYS + "/netdev.stat").content_string.strip()


def test_dummy_netdev_unchanged(host):
    assert host.run("sha256sum -c --quiet %s", KEYS + "/dummy.sha256").rc == 0


def test_one_backup(host):
    assert len(host.check_output("ls %s | grep '^50-wg0\\.netdev\\..*~$' || true", NETWORK).splitlines()) == 1


def test_backup_is_the_planted_file_with_its_mode_and_owner(host):
    assert host.check_output("cd %s && stat -c '%%a %%U %%G' %s" % (NETWORK, BACKUP)) == host.file(KEYS + "/netdev.stat").content_string.strip()
    assert host.check_output("cd %s && sha256sum < %s" % (NETWORK, BACKUP)) == host.file(KEYS + "/netdev-before.sha256").content_string.strip()


def test_only_edit_is_one_added_line(host):
    """diff prints only differing lines: the PrivateKey= line is the same in both, so no key is shown."""
    assert host.check_output("cd %s && diff %s 50-wg0.netdev | grep '^[<>]' || true" % (NETWORK, BACKUP)).splitlines() == ["> PersistentKeepalive=25"]


def test_networkd_stays_stopped(host):
    assert host.run("systemctl is-active systemd-networkd").stdout.strip() == "inactive"


def test_interface_not_restarted(host):
    """The wireguard-go process serving wg0 is the one prepare recorded."""
    assert host.check_output("pgrep -f '^wireguard-go wg0$'") == host.file(KEYS + "/wireguard-go.pid").content_string.strip()


def test_networkd_never_started_but_by_verify(host):
    """Counted in the journal (systemd unloads an inactive disabled unit and forgets its timestamps); a second
    verify run counts the start its first run made (test_networkd_accepts.py)."""
    starts = host.check_output("journalctl -q -o cat _PID=1 UNIT=systemd-networkd.service | grep -c '^Starting ' || true")
    assert starts == host.check_output("cat %s/networkd-starts-by-verify 2>/dev/null || echo 0", KEYS)
