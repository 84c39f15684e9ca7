# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shell snippets of fact_commands.py run for real: dash with the host's awk, BusyBox sh with BusyBox awk."""

import shutil
import subprocess

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.wg_config_peers import parse_wg_config_peers
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    TUNNEL_DEVICE_LINES, UCI_OWN_PUBLIC_KEY, UCI_WIREGUARD_INTERFACE_LINES, WG_CONFIG_PEERS, wg_config_peers_argv)

SHELLS = ("dash", "busybox")
# The host programs this file runs by name (scripts/check_host_packages.py).
HOST_COMMANDS = ("dash", "busybox", "awk", "cat", "sed", "wg")
KEY_A, KEY_B, PRIVATE = "A" * 43 + "=", "B" * 43 + "=", "K" * 43 + "="


def run(shell, script, tmp_path, *args):
    """``script`` with ``args`` as "$1"..., PATH holding only awk (the host's, or BusyBox's) and cat."""
    tools = tmp_path / ("bin-" + shell)
    tools.mkdir(exist_ok=True)
    for tool in ("awk", "cat"):
        if not (tools / tool).exists():
            (tools / tool).symlink_to(shutil.which("busybox") if shell == "busybox" else shutil.which(tool))
    argv = [shutil.which("busybox"), "sh"] if shell == "busybox" else [shutil.which(shell)]
    done = subprocess.run(argv + ["-c", script, "sh", *args], env={"PATH": str(tools)}, capture_output=True, text=True,
                          timeout=30, check=False)
    return done


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("links, names", [
    # the recording of issue 17.8: three TUNs (the plain one too), veths and lo left out
    ("netns_tun_offload_veth_bridge.txt", ["tailscale0", "wg0", "tun0"]),
    # the bridge fault's recording: tailscale0 a TUN; tap0 is a TAP (link_type ether), not named
    ("netns_bridge_veth_tun1280_owned_tap.txt", ["tailscale0"]),
    ("openwrt_image_bridge_two_veth.txt", []),
])
def test_the_tunnels_are_named_from_the_links_step(shell, tmp_path, load_fixture, links, names):
    """"$1" holds the forwarding-and-links step's stdout: ip_forward, then ip -d -j link show on one line."""
    step = tmp_path / "links.out"
    step.write_text("1\n" + load_fixture("ip_d_j_link_show", links), encoding="utf-8")
    done = run(shell, TUNNEL_DEVICE_LINES, tmp_path, str(step))
    assert (done.returncode, done.stderr, done.stdout.split()) == (0, "", names)


@pytest.mark.parametrize("shell", SHELLS)
def test_no_links_names_nothing(shell, tmp_path):
    step = tmp_path / "links.out"
    step.write_text("\n", encoding="utf-8")          # ip_forward unreadable, ip printed nothing
    assert run(shell, TUNNEL_DEVICE_LINES, tmp_path, str(step)).stdout == ""


@pytest.mark.parametrize("shell", SHELLS)
def test_wg_config_peers_reads_wg_quick_then_netdev_files_with_one_awk(shell, tmp_path):
    """The configuration files' listing (one awk program for both directories): wg-quick files first, then .netdev; a
    private key never printed; other files and a missing directory are nothing."""
    wireguard, network = tmp_path / "wireguard", tmp_path / "network"
    wireguard.mkdir()
    network.mkdir()
    (wireguard / "wg0.conf").write_text("[Interface]\nPrivateKey = %s\nAddress = 10.77.0.2/24, fd77::2/64 # both\n"
                                        "address=10.78.0.2/24\n\n[Peer]\nPublicKey = %s\nEndpoint = 203.0.113.1:51820\n"
                                        "PersistentKeepalive = 25\n" % (PRIVATE, KEY_A), encoding="utf-8")
    (wireguard / "wg0.conf.bak").write_text("[Peer]\nPublicKey = x\n", encoding="utf-8")
    (network / "30-wg1.netdev").write_text("[NetDev]\nName=wg1\nKind=wireguard\n[WireGuard]\nPrivateKey=%s\n"
                                           "[WireGuardPeer]\nPublicKey=%s\n" % (PRIVATE, KEY_B), encoding="utf-8")
    (network / "10-br0.netdev").write_text("[NetDev]\nName=br0\nKind=bridge\n", encoding="utf-8")
    argv = wg_config_peers_argv(str(wireguard), str(network))
    done = run(shell, argv[2], tmp_path)
    assert done.returncode == 0 and PRIVATE not in done.stdout
    configs = parse_wg_config_peers(done.stdout)
    assert [(c["path"].rsplit("/", 1)[1], c["kind"], c["interface"], [p["public_key"] for p in c["peers"]]) for c in configs] == [
        ("wg0.conf", "wg-quick", "wg0", [KEY_A]), ("10-br0.netdev", "netdev", "br0", []), ("30-wg1.netdev", "netdev", "wg1", [KEY_B])]
    # wg-quick's Address = lines (the PMTU fault's "IPv6 inside"); a .netdev holds none (networkd's .network does)
    assert [c["addresses"] for c in configs] == [["10.77.0.2/24", "fd77::2/64", "10.78.0.2/24"], None, None]
    assert run(shell, wg_config_peers_argv(str(tmp_path / "none"), str(tmp_path / "nothing"))[2], tmp_path).stdout == ""


@pytest.mark.parametrize("shell", SHELLS)
def test_wg_quick_comments_end_a_value_on_the_target_and_never_carry_a_key(shell, tmp_path):
    """wg(8) reads "#" to the end of the line as a comment: a key pasted into one never leaves the target, and
    "PersistentKeepalive = 5 # NAT" is 5. A .netdev's "#" inside a value is the value's (whole-line comments only)."""
    wireguard, network = tmp_path / "wireguard", tmp_path / "network"
    wireguard.mkdir()
    network.mkdir()
    (wireguard / "wg0.conf").write_text("[Interface] # hub side\nPrivateKey = %s\n[Peer] # the NATed site\n"
                                        "PublicKey = %s # from the site's admin\nEndpoint = 203.0.113.1:51820 # psk %s\n"
                                        "PersistentKeepalive = 5 # NAT forgets after 30 s\n# PersistentKeepalive = 25\n"
                                        "AllowedIPs = 10.77.0.0/24 # psk %s\n"
                                        % (PRIVATE, KEY_A, PRIVATE, PRIVATE), encoding="utf-8")
    (network / "30-wg1.netdev").write_text("[NetDev]\nName=wg1\nKind=wireguard\n[WireGuardPeer]\nPublicKey=%s\n"
                                           "# PersistentKeepalive=9\nPersistentKeepalive=7\n" % KEY_B, encoding="utf-8")
    done = run(shell, wg_config_peers_argv(str(wireguard), str(network))[2], tmp_path)
    assert done.returncode == 0 and PRIVATE not in done.stdout and "#" not in done.stdout
    configs = parse_wg_config_peers(done.stdout)
    assert configs[0]["peers"] == [{"public_key": KEY_A, "endpoint": "203.0.113.1:51820", "persistent_keepalive_s": 5,
                                    "allowed_ips": ["10.77.0.0/24"]}]
    assert configs[1]["peers"] == [{"public_key": KEY_B, "endpoint": None, "persistent_keepalive_s": 7, "allowed_ips": []}]


def test_the_configuration_listing_reads_the_system_directories():
    assert WG_CONFIG_PEERS == wg_config_peers_argv("/etc/wireguard", "/etc/systemd/network")
    assert WG_CONFIG_PEERS[2].count("awk ") == 1 and WG_CONFIG_PEERS[2].count("wg pubkey") == 1


@pytest.mark.skipif(shutil.which("wg") is None, reason="needs wg (wireguard-tools) for wg pubkey")
@pytest.mark.parametrize("shell", SHELLS)
def test_each_file_s_own_public_key_is_derived_on_the_target_and_no_private_key_is_printed(shell, tmp_path):
    """wg pubkey (the host's) derives each file's public key from its private key (generated here, thrown away with
    tmp_path): wg-quick's PrivateKey, a .netdev's PrivateKeyFile over its PrivateKey; the private key reaches wg
    through a pipe, never the output or stderr. Without wg on PATH the value is empty (unknown)."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keys import public_key_of
    made = [subprocess.run(["wg", "genkey"], capture_output=True, text=True, check=True).stdout.strip() for _n in range(3)]
    wireguard, network = tmp_path / "wireguard", tmp_path / "network"
    wireguard.mkdir()
    network.mkdir()
    (wireguard / "wg0.conf").write_text("[Interface]\nPrivateKey = %s # mine\n[Peer]\nPublicKey = %s\n" % (made[0], KEY_A),
                                        encoding="utf-8")
    (tmp_path / "wg1.key").write_text(made[1] + "\n", encoding="utf-8")
    (network / "30-wg1.netdev").write_text("[NetDev]\nName=wg1\nKind=wireguard\n[WireGuard]\nPrivateKeyFile=%s\nPrivateKey=%s\n"
                                           % (tmp_path / "wg1.key", made[2]), encoding="utf-8")
    tools = tmp_path / ("bin-" + shell)
    tools.mkdir()
    (tools / "wg").symlink_to(shutil.which("wg"))
    script = wg_config_peers_argv(str(wireguard), str(network))[2]
    done = run(shell, script, tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    assert not any(key in done.stdout for key in made) and all(key not in script for key in made)
    assert [c["configured_public_key"] for c in parse_wg_config_peers(done.stdout)] == [public_key_of(made[0]), public_key_of(made[1])]
    (tools / "wg").unlink()
    done = run(shell, script, tmp_path)
    assert (done.returncode, done.stderr) == (0, "") and not any(key in done.stdout for key in made)
    assert [c["configured_public_key"] for c in parse_wg_config_peers(done.stdout)] == [None, None]


@pytest.mark.parametrize("shell", SHELLS)
def test_the_uci_wireguard_interfaces_are_named_from_the_redacted_uci_show(shell, tmp_path, load_fixture):
    """"$1": the redacted uci show network (case 01: wg0 has proto 'wireguard'; lan and wan other protos)."""
    step = tmp_path / "network.out"
    step.write_text(load_fixture("uci_show", "case01_network.txt") + "network.wg9=interface\nnetwork.wg9.proto='wireguard'\n",
                    encoding="utf-8")
    tools = tmp_path / ("bin-" + shell)
    tools.mkdir()
    (tools / "sed").symlink_to(shutil.which("busybox") if shell == "busybox" else shutil.which("sed"))
    done = run(shell, UCI_WIREGUARD_INTERFACE_LINES, tmp_path, str(step))
    assert (done.returncode, done.stderr, done.stdout.split()) == (0, "", ["wg0", "wg9"])


@pytest.mark.skipif(shutil.which("wg") is None, reason="needs wg (wireguard-tools) for wg pubkey")
@pytest.mark.parametrize("shell", SHELLS)
def test_a_uci_private_key_goes_from_uci_into_wg_pubkey_only(shell, tmp_path):
    """A stand-in uci prints a key made here for network.wg0.private_key; the step prints its public key only, no
    command line holds the key; a missing option or no wg prints nothing."""
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keys import public_key_of
    made = subprocess.run(["wg", "genkey"], capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "k").write_text(made + "\n", encoding="utf-8")
    tools = tmp_path / ("bin-" + shell)
    tools.mkdir()
    (tools / "uci").write_text("#!%s\n[ \"$*\" = \"-q get network.wg0.private_key\" ] && exec %s %s\nexit 1\n"
                               % (shutil.which("dash"), shutil.which("cat"), tmp_path / "k"), encoding="utf-8")
    (tools / "uci").chmod(0o755)
    (tools / "wg").symlink_to(shutil.which("wg"))
    assert made not in " ".join(UCI_OWN_PUBLIC_KEY)
    done = run(shell, UCI_OWN_PUBLIC_KEY[2], tmp_path, "wg0")
    assert (done.returncode, done.stdout, done.stderr) == (0, public_key_of(made) + "\n", "")
    assert run(shell, UCI_OWN_PUBLIC_KEY[2], tmp_path, "wg1").stdout == ""
    (tools / "wg").unlink()
    done = run(shell, UCI_OWN_PUBLIC_KEY[2], tmp_path, "wg0")
    assert (done.stdout, made in done.stderr) == ("", False)
