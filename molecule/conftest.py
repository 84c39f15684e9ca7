# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Readers shared by the molecule scenarios' verify tests (``molecule/<scenario>/tests/test_*.py``).

molecule's testinfra verifier runs pytest from the scenario directory on the scenario's test files,
with ``--connection podman --hosts podman://<instance>`` (molecule.yml, ``verifier.options``; where a
scenario has two instances, each test file names its own in ``testinfra_hosts``). pytest's rootdir is
the repository (pytest.ini), so this file is the conftest of every scenario. Some targets are the
python-free OpenWrt-like image: every reader here is a shell command that BusyBox can run, and each
returns the host's text as it is, so a failing ``assert`` prints the host's value.
"""

import pytest


@pytest.fixture(name="sysctl")
def fixture_sysctl(host):
    """Return a reader of the running kernel: ``sysctl("net.ipv4.tcp_rmem")`` -> ``"4096 131072 33554432"``.

    Read from /proc/sys, the same on Debian and BusyBox; runs of blanks and tabs become one space.
    """

    def read(key):
        return " ".join(host.check_output("cat %s", "/proc/sys/" + key.replace(".", "/")).split())

    return read


@pytest.fixture(name="peers")
def fixture_peers(host):
    """The hub's and the branch's public keys that the Debian WireGuard scenarios' prepare generated.

    ``{"hub": "<key>", "branch": "<key>"}``, from /root/molecule-keys/<name>.pub (the private keys stay there).
    """
    return {name: host.file("/root/molecule-keys/%s.pub" % name).content_string.strip() for name in ("hub", "branch")}


@pytest.fixture(name="text_lines")
def fixture_text_lines(host):
    """Return a reader: ``text_lines("/tmp/tunnelfix-calls.log")`` -> the file's lines, ``[]`` when it is missing."""

    def read(path):
        result = host.run("cat %s", path)
        return result.stdout.splitlines() if result.rc == 0 else []

    return read


@pytest.fixture(name="uci_get")
def fixture_uci_get(host):
    """Return a reader of committed uci values: ``uci_get("network.wg0.nohostroute")`` -> ``"1"``; None when unset."""

    def read(option):
        result = host.run("uci -q get %s", option)
        return result.stdout.rstrip("\n") if result.rc == 0 else None

    return read


@pytest.fixture(name="uci_show")
def fixture_uci_show(host):
    """Return a reader: ``uci_show("network")`` -> ``{"network.wg0.proto": "'wireguard'", ...}``.

    The values as ``uci show`` prints them (quoted; a list is several quoted words).
    """

    def read(config):
        lines = host.check_output("uci -q show %s", config).splitlines()
        return dict(line.split("=", 1) for line in lines if "=" in line)

    return read


@pytest.fixture(name="uci_changes")
def fixture_uci_changes(host):
    """Return a reader of staged, uncommitted uci changes: ``uci_changes("banip")`` -> ``[]`` when all is committed."""

    def read(config):
        return host.check_output("uci changes %s", config).splitlines()

    return read


@pytest.fixture(name="wg_keepalive")
def fixture_wg_keepalive(host):
    """Return a reader: ``wg_keepalive("wg0")`` -> ``{"<peer public key>": "25", "<other>": "off"}``.

    From ``wg show <interface> persistent-keepalive`` (wg(8): one ``<key>\\t<seconds|off>`` line per peer).
    """

    def read(interface):
        lines = host.check_output("wg show %s persistent-keepalive", interface).splitlines()
        return dict(line.split("\t") for line in lines if line)

    return read


@pytest.fixture(name="ethtool_features")
def fixture_ethtool_features(host):
    """Return a reader: ``ethtool_features("br-lan")`` -> ``{"tcp-segmentation-offload": "off", ...}``.

    From ``ethtool -k <device>``; the value keeps a ``[fixed]`` or ``[requested on]`` note.
    """

    def read(device):
        lines = host.check_output("ethtool -k %s", device).splitlines()[1:]
        return dict(line.strip().split(": ", 1) for line in lines if ": " in line)

    return read


@pytest.fixture(name="offloads")
def fixture_offloads(ethtool_features):
    """Return a reader of the three offloads a bridge fix turns off: ``offloads("lan1")`` -> ``{"generic-segmentation-offload": "off", ...}``."""

    def read(device):
        features = ethtool_features(device)
        return {name: features.get(name) for name in ("generic-segmentation-offload", "tcp-segmentation-offload", "generic-receive-offload")}

    return read


@pytest.fixture(name="recorded_calls")
def fixture_recorded_calls(text_lines):
    """Return a reader of the OpenWrt-like image's stand-in call log: ``recorded_calls()`` -> ``["/sbin/ifup wg0", ...]``.

    The image's stand-ins (init scripts, ifup/ifdown, mwan3) append ``<epoch seconds> <path> <arguments>`` to
    /tmp/tunnelfix-calls.log (lab/images/openwrt/README.md); the epoch is left out.
    """

    def read():
        return [line.split(" ", 1)[1] for line in text_lines("/tmp/tunnelfix-calls.log") if " " in line]

    return read
