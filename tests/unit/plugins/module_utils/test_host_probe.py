# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""module_utils/_host_probe: kernel module state, present paths, container name (recorded lab output)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._host_probe import (
    container_name, linux_module_state, parse_present_paths, sysfs_module_state)


@pytest.mark.parametrize("present, expected", [
    ({"/sys/module/tcp_bbr", "/sys/module/tcp_bbr/initstate"}, "loaded"),
    ({"/sys/module/tcp_bbr"}, "builtin"),
    ({"/sys/module/sch_fq/initstate"}, "absent"),  # another module's entry says nothing about tcp_bbr
    (set(), "absent"),
])
def test_sysfs_module_state(present, expected):
    assert sysfs_module_state("tcp_bbr", present) == expected


@pytest.mark.parametrize("sysfs, rc, out, expected", [
    ("loaded", 1, "", "loaded"),
    ("builtin", 127, "", "builtin"),
    ("absent", 0, "(builtin)\n", "builtin"),
    ("absent", 0, "/lib/modules/6.1.0-27-amd64/kernel/net/ipv4/tcp_bbr.ko\n", "module"),
    ("absent", 1, "", None),     # modinfo: ERROR: Module tcp_bbr not found.
    ("absent", 127, "", None),   # no modinfo
])
def test_linux_module_state(sysfs, rc, out, expected):
    assert linux_module_state(sysfs, rc, out) == expected


def test_present_paths_from_the_lab_peer(load_fixture):
    assert parse_present_paths(load_fixture("ls_1d_presence", "lab_peer_podman.txt")) == {
        "/proc/sys/net/ipv4", "/run/.containerenv"}


@pytest.mark.parametrize("text", ["ls: cannot access 'x'\n", None])
def test_present_paths_refuses_what_is_not_a_path_list(text):
    with pytest.raises(ParseError):
        parse_present_paths(text)


@pytest.mark.parametrize("rc, out, present, expected", [
    (0, "podman\n", set(), "podman"),
    (1, "none\n", {"/.dockerenv"}, "docker"),        # systemd-detect-virt says none, the marker says docker
    (127, "", {"/run/.containerenv"}, "podman"),     # no systemd-detect-virt
    (1, "none\n", set(), None),
])
def test_container_name(rc, out, present, expected):
    assert container_name(rc, out, present) == expected
