# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/remote/host_probe: kernel module state, present paths, container name (recorded lab output)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.host_probe import (
    container_name, module_state, netns_from_probe, parse_present_paths, sysfs_module_state)


@pytest.mark.parametrize("present, expected", [
    ({"/sys/module/tcp_bbr", "/sys/module/tcp_bbr/initstate"}, "loaded"),
    ({"/sys/module/tcp_bbr"}, "builtin"),
    ({"/sys/module/sch_fq/initstate"}, "absent"),  # another module's entry says nothing about tcp_bbr
    (set(), "absent"),
])
def test_sysfs_module_state(present, expected):
    assert sysfs_module_state("tcp_bbr", present) == expected


@pytest.mark.parametrize("sysfs, rc, out, package, expected", [
    ("loaded", 1, "", False, "loaded"),
    ("builtin", 127, "", False, "builtin"),
    ("absent", 0, "(builtin)\n", False, "builtin"),
    ("absent", 0, "/lib/modules/6.1.0-27-amd64/kernel/net/ipv4/tcp_bbr.ko\n", False, "module"),
    ("absent", 1, "", False, None),     # modinfo: ERROR: Module tcp_bbr not found.
    ("absent", 127, "", False, None),   # no modinfo
    ("absent", 127, "", True, "module"),  # OpenWrt: no modinfo, kmod-tcp-bbr installed
])
def test_module_state(sysfs, rc, out, package, expected):
    assert module_state(sysfs, rc, out, package) == expected


def test_netns_from_the_lab_peer(load_fixture):
    present = parse_present_paths(load_fixture("ls_1d_presence", "lab_peer_podman.txt"))
    assert netns_from_probe(present, 0, load_fixture("systemd_detect_virt", "lab_peer_podman.txt")) == {
        "child_netns": True, "container": "podman"}
    assert netns_from_probe(parse_present_paths(load_fixture("ls_1d_presence", "docker_host_namespace.txt")), 127, "") == {
        "child_netns": False, "container": "docker"}


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
