# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""wireguard_keepalive on a wg-quick interface: keepalive 25 for the peer with an Endpoint, live and in the file."""

KEYS = "/root/molecule-keys"


def test_live_keepalive_only_on_the_peer_with_an_endpoint(wg_keepalive, peers):
    assert wg_keepalive("wg0") == {peers["hub"]: "25", peers["branch"]: "off"}


def test_file_has_one_keepalive_line(host):
    lines = host.file("/etc/wireguard/wg0.conf").content_string.splitlines()
    assert [line for line in lines if line == "PersistentKeepalive = 25"] == ["PersistentKeepalive = 25"]


def test_one_backup_made_before_the_change(host):
    assert len(host.check_output("find /etc/wireguard -maxdepth 1 -name 'wg0.conf.*~'").splitlines()) == 1


def test_interface_not_restarted(host):
    """The wireguard-go process serving wg0 is the one prepare recorded."""
    assert host.check_output("pgrep -f '^wireguard-go wg0$'") == host.file(KEYS + "/wireguard-go.pid").content_string.strip()
