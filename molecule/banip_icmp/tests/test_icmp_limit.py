# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""banip_icmp on the python-free router: ban_icmplimit 250 committed, banIP reloaded exactly once."""


def test_limit_committed(host):
    lines = [line.strip() for line in host.file("/etc/config/banip").content_string.splitlines()]
    assert [line for line in lines if "ban_icmplimit" in line] == ["option ban_icmplimit '250'"]


def test_nothing_left_staged(uci_changes):
    assert uci_changes("banip") == []


def test_banip_reloaded_exactly_once(recorded_calls):
    assert [call for call in recorded_calls() if "/etc/init.d/banip" in call] == ["/etc/init.d/banip reload"]
