# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""is_interface_name: the kernel's dev_valid_name() (net/core/dev.c) narrowed to characters safe in shell, udev and uci."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.ifname import IFNAMSIZ, RULE, is_interface_name


@pytest.mark.parametrize("name", [
    "eth0", "br-lan", "wg0", "tailscale0", "wwan0", "lan1", "a", "eth0.100", "wg_=+.-@", "veth0@if5",
    "x" * 15,                 # IFNAMSIZ - 1: the longest the kernel takes
    "...", ".a", "a..",       # only "." and ".." themselves are refused
    "0", "-", "_",
])
def test_accepted(name):
    assert is_interface_name(name)


@pytest.mark.parametrize("name", [
    "",                       # dev_valid_name: empty
    "x" * 16,                 # IFNAMSIZ with the NUL: 16 characters never fit
    ".", "..",                # dev_valid_name: the directory names of /sys/class/net
    "tun/0", "/",             # dev_valid_name: '/'
    "eth0:1", ":",            # dev_valid_name: ':' (an address label, since Linux 4.17 never a device)
    "wg 0", " wg0", "wg0\n", "wg0\t", "\n",  # dev_valid_name: isspace(); "wg0\n" would pass a "^...$" pattern
    "eth0;reboot", "br$x", "wg*", "wg?", "wg[0]", "a'b", 'a"b', "a\\b",  # the kernel takes them; shell, udev globs, uci do not
    "wgé",                    # ASCII only (2 bytes in UTF-8 count towards IFNAMSIZ besides)
    None, 5, ["eth0"], b"eth0",
])
def test_refused(name):
    assert not is_interface_name(name)


def test_the_rule_in_words_says_the_limit():
    assert IFNAMSIZ == 16 and RULE.startswith("1-15 characters")
