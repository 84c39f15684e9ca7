# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""tcp_reader's SYSCTL_BOOT_FILES run by dash, bash and BusyBox (its ash, awk and readlink) over a hand-made tree:
the listing parse/sysctl_boot.py reads, one execution, whatever the files hold."""

import shutil
import subprocess

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import parse_sysctl_boot_files, sysctl_boot
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import SYSCTL_BOOT_FILES, sysctl_boot_files_argv

# Every shell must be there (make deps installs busybox): a missing one fails, never skips.
HOST_COMMANDS = ("dash", "bash", "busybox")
SHELLS = ("dash", "bash", "busybox")

FILES = {
    "etc/sysctl.d/60-tunnelfix-bbr-fq.conf": "# Ansible managed\nnet.ipv4.tcp_congestion_control = bbr\n",
    "etc/sysctl.d/99-zz-local.conf": "\n  # local\n\tnet.ipv4.tcp_congestion_control = cubic  \r\n",
    "etc/sysctl.d/70-x.conf": ("; old style comment\nnet/core/default_qdisc=fq  # pacing\n-net.ipv4.tcp_nothere = 1\n"
                               "net.ipv4.conf.*.rp_filter = 2\n-net.ipv4.conf.all.rp_filter\nnet.ipv4.conf.eth0/10.rp_filter = 1\n"
                               "garbage\nkey\twith tab = 1\n"),
    "etc/sysctl.d/notes.txt": "net.ipv4.tcp_congestion_control = reno\n",
    "usr/lib/sysctl.d/50-default.conf": "-net.core.default_qdisc = fq_codel\n",
    "usr/lib/sysctl.d/70-x.conf": "net.core.default_qdisc = cake\n",
    "etc/sysctl.conf": "#kernel.domainname = example.com\nnet.core.netdev_max_backlog = 2000\n",
}
PROC = ("net/ipv4/tcp_congestion_control", "net/core/default_qdisc", "net/core/netdev_max_backlog",
        "net/ipv4/conf/eth0.10/rp_filter")


@pytest.fixture(name="root")
def fixture_root(tmp_path):
    root = tmp_path / "root"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    for name in PROC:
        (root / "proc/sys" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "proc/sys" / name).write_text("x\n", encoding="utf-8")
    (root / "etc/sysctl.d/99-sysctl.conf").symlink_to("../sysctl.conf")
    (root / "etc/sysctl.d/50-default.conf").symlink_to("/dev/null")
    (root / "run/systemd/system").mkdir(parents=True)
    return root


def run(shell, root, tmp_path):
    """The command as a host runs it, below ``root``; BusyBox with its own awk and readlink."""
    path = "/usr/bin:/bin"
    if shell == "busybox":
        applets = tmp_path / "applets"
        applets.mkdir()
        for applet in ("sh", "awk", "readlink", "printf"):
            (applets / applet).symlink_to(shutil.which("busybox"))
        path = "%s:%s" % (applets, path)
    argv = sysctl_boot_files_argv(str(root))
    done = subprocess.run([shutil.which(shell)] + (["sh"] if shell == "busybox" else []) + argv[1:], capture_output=True,
                          text=True, check=False, timeout=30, env={"PATH": path, "LC_ALL": "C"})
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


@pytest.mark.parametrize("shell", SHELLS)
def test_the_listing(shell, root, tmp_path):
    text = run(shell, root, tmp_path)
    assert text.splitlines() == [
        "S",
        "F\t/etc/sysctl.d/50-default.conf\t>/dev/null",
        "F\t/etc/sysctl.d/60-tunnelfix-bbr-fq.conf\t>",
        "L\t2\t1\tnet.ipv4.tcp_congestion_control = bbr",
        "F\t/etc/sysctl.d/70-x.conf\t>",
        "L\t2\t1\tnet/core/default_qdisc=fq  # pacing",
        "L\t3\t0\t-net.ipv4.tcp_nothere = 1",
        "L\t4\tg\tnet.ipv4.conf.*.rp_filter = 2",
        "L\t5\t-\t-net.ipv4.conf.all.rp_filter",
        "L\t6\t1\tnet.ipv4.conf.eth0/10.rp_filter = 1",
        "L\t7\t-\tgarbage",
        "L\t8\t0\tkey\twith tab = 1",
        "F\t/etc/sysctl.d/99-sysctl.conf\t>../sysctl.conf",
        "L\t2\t1\tnet.core.netdev_max_backlog = 2000",
        "F\t/etc/sysctl.d/99-zz-local.conf\t>",
        "L\t3\t1\tnet.ipv4.tcp_congestion_control = cubic",
        "F\t/usr/lib/sysctl.d/50-default.conf\t>",
        "L\t1\t1\t-net.core.default_qdisc = fq_codel",
        "F\t/usr/lib/sysctl.d/70-x.conf\t>",
        "L\t1\t1\tnet.core.default_qdisc = cake",
        "F\t/etc/sysctl.conf\t>",
        "L\t2\t1\tnet.core.netdev_max_backlog = 2000",
    ]
    boot = sysctl_boot(parse_sysctl_boot_files(text))
    assert boot["effective"]["net.ipv4.tcp_congestion_control"]["file"] == "/etc/sysctl.d/99-zz-local.conf"
    assert "net.core.default_qdisc" not in boot["effective"]            # masked, masked away, refused for its '#'
    assert [w["line"] for w in boot["warnings"]] == [2, 7, 8]


@pytest.mark.parametrize("shell", SHELLS)
def test_nothing_there(shell, tmp_path):
    (tmp_path / "empty").mkdir()
    assert run(shell, tmp_path / "empty", tmp_path) == ""


def test_a_host_reads_from_the_root():
    assert SYSCTL_BOOT_FILES == sysctl_boot_files_argv("") and SYSCTL_BOOT_FILES[4] == ""
    assert "'" not in SYSCTL_BOOT_FILES[2]   # each would cost a dozen bytes of the command line, quoted twice
