# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""systemd-networkd 252 accepts the edited .netdev (last, because it starts networkd).

networkd reads every .netdev and logs each line it cannot parse or file it cannot open with the file's
path. It leaves the existing wg0 (a wireguard-go tun device) alone ("netdev exists, using existing
without changing its parameters"). Started once, then stopped again; the start is counted for
test_netdev.py's check that nothing else started it.
"""

import pytest

START_ONCE = """
set -eo pipefail
starts=$(cat /root/molecule-keys/networkd-starts-by-verify 2>/dev/null || echo 0)
echo $((starts + 1)) > /root/molecule-keys/networkd-starts-by-verify
systemctl start systemd-networkd
id=$(systemctl show -p InvocationID --value systemd-networkd)
for _ in $(seq 40); do
  journalctl -q -o cat _SYSTEMD_INVOCATION_ID="$id" > /root/molecule-keys/networkd.log
  grep -q '^wg0: netdev exists' /root/molecule-keys/networkd.log && break
  sleep 0.25
done
systemctl stop systemd-networkd.socket systemd-networkd
cat /root/molecule-keys/networkd.log
"""


@pytest.fixture(name="networkd_log", scope="module")
def fixture_networkd_log(host):
    """What networkd logged in its one run."""
    return host.check_output("bash -c %s", START_ONCE).splitlines()


def test_wg0_netdev_loaded(networkd_log):
    assert [line for line in networkd_log if line.startswith("wg0: netdev exists")] == [
        "wg0: netdev exists, using existing without changing its parameters"]


def test_no_warning_about_the_file(networkd_log):
    assert [line for line in networkd_log if "50-wg0.netdev" in line] == []
