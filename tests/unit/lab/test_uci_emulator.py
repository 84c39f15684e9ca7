"""The OpenWrt-like image's uci emulator (lab/images/openwrt/uci/), run on this host, no container.

Each test runs the real wrapper script with a PATH holding only the programs it uses, twice: with
BusyBox's sh and awk (what the image runs) and with the host's dash and mawk. The config and save
dirs are temporary (``-c``, ``-t``; ``-P`` makes commit a no-op, as in uci). The expected
behaviour is OpenWrt uci's, read in its source (openwrt/uci cli.c, list.c, delta.c, util.c,
libuci.c); lab/images/openwrt/README.md says what is emulated.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
UCI = REPO / "lab" / "images" / "openwrt" / "uci" / "uci"
TOOLS = ("sh", "awk", "cat", "ls", "mkdir", "mv")

# A network config in the shape OpenWrt writes it: named and anonymous sections, a list (fake keys).
NETWORK = """
config interface 'lan'
\toption device 'br-lan'
\toption proto 'static'
\toption ipaddr '192.168.10.1'

config interface 'wg0'
\toption proto 'wireguard'
\toption private_key 'KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK='
\toption listen_port '51820'

config wireguard_wg0
\toption description 'site-b'
\toption endpoint_host '203.0.113.10'
\tlist allowed_ips '10.77.0.0/24'
\tlist allowed_ips '192.168.20.0/24'

config wireguard_wg0 'dc'
\toption description 'dc'
\tlist allowed_ips '10.77.0.3/32'
"""


def _interpreters():
    found = []
    busybox = shutil.which("busybox")
    found.append(pytest.param({tool: busybox for tool in TOOLS} if busybox else None, id="busybox"))
    host = {tool: shutil.which(tool) for tool in TOOLS}
    found.append(pytest.param(host if all(host.values()) else None, id="host"))
    return found


class Router:
    """A conf dir holding ``network`` and a save dir, and the uci wrapper to run against them."""

    def __init__(self, tmp_path, tools):
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        for name, path in tools.items():
            (self.bin / name).symlink_to(path)
        self.conf = tmp_path / "config"
        self.conf.mkdir()
        (self.conf / "network").write_text(NETWORK)
        self.save = tmp_path / "save"

    def uci(self, *args, stdin="", save_option="-t"):
        """Run ``uci -c CONF -t SAVE ARGS...``; returns (rc, stdout, stderr)."""
        argv = [str(self.bin / "sh"), str(UCI), "-c", str(self.conf), save_option, str(self.save), *args]
        res = subprocess.run(argv, input=stdin, capture_output=True, text=True, env={"PATH": str(self.bin)},
                             check=False, timeout=30)
        return res.returncode, res.stdout, res.stderr

    def bare(self, *args):
        """Run the wrapper with exactly ARGS (no -c/-t)."""
        res = subprocess.run([str(self.bin / "sh"), str(UCI), *args], capture_output=True, text=True,
                             env={"PATH": str(self.bin)}, check=False, timeout=30)
        return res.returncode, res.stdout, res.stderr


@pytest.fixture(params=_interpreters())
def router(request, tmp_path):
    if request.param is None:
        # busybox comes from requirements-apt.txt (make deps), sh/awk/cat/ls/mkdir/mv from Debian's base:
        # a missing one is a broken set-up, not a reason to test less.
        pytest.fail("%s is not installed: run make deps (busybox is in requirements-apt.txt)" % request.node.callspec.id)
    return Router(tmp_path, request.param)


def _cfg_name(router, section_type, index):
    """The internal cfgXXXXXX name of the index-th section of a type, read with -X."""
    rc, out, _err = router.uci("-X", "show", "network")
    assert rc == 0
    names = [line.split("=")[0].split(".")[1] for line in out.splitlines() if line.endswith("=" + section_type)]
    return names[index]


# --- 1. show: @type[N] only for a whole config; one section or option shows its cfgXXXXXX name ---

def test_show_of_a_whole_config_names_anonymous_sections_by_type_and_index(router):
    rc, out, err = router.uci("show", "network")
    assert (rc, err) == (0, "")
    assert [line for line in out.splitlines() if line.endswith("=wireguard_wg0")] == [
        "network.@wireguard_wg0[0]=wireguard_wg0", "network.dc=wireguard_wg0"]


@pytest.mark.parametrize("ref, expected", [
    ("network.@wireguard_wg0[0]", ["{cfg}=wireguard_wg0", "{cfg}.description='site-b'",
                                   "{cfg}.endpoint_host='203.0.113.10'", "{cfg}.allowed_ips='10.77.0.0/24' '192.168.20.0/24'"]),
    ("network.@wireguard_wg0[0].allowed_ips", ["{cfg}.allowed_ips='10.77.0.0/24' '192.168.20.0/24'"]),
    ("network.@wireguard_wg0[-2].description", ["{cfg}.description='site-b'"]),
    ("network.@wireguard_wg0[1].description", ["network.dc.description='dc'"]),        # a named one: its name
    ("network.wg0.proto", ["network.wg0.proto='wireguard'"]),
])
def test_show_of_one_section_or_option_prints_the_internal_name(router, ref, expected):
    cfg = "network." + _cfg_name(router, "wireguard_wg0", 0)
    rc, out, err = router.uci("show", ref)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [line.format(cfg=cfg) for line in expected]
    assert "@" not in out


def test_show_of_one_section_by_its_internal_name_and_with_x_is_the_same(router):
    cfg = _cfg_name(router, "wireguard_wg0", 0)
    by_index = router.uci("show", "network.@wireguard_wg0[0]")
    assert router.uci("show", "network." + cfg) == by_index
    assert router.uci("-X", "show", "network.@wireguard_wg0[0]") == by_index


# --- 2. a section name that is neither a name nor @type[N]: Invalid argument ---

@pytest.mark.parametrize("args, rc, err", [
    (("get", "network.wg-0.proto"), 1, "uci: Invalid argument\n"),
    (("show", "network.wg-0"), 1, "uci: Invalid argument\n"),
    (("set", "network.wg-0.proto=static"), 1, "uci: Invalid argument\n"),
    (("delete", "network.wg-0"), 1, "uci: Invalid argument\n"),
    (("get", "network.@wireguard_wg0.description"), 1, "uci: Invalid argument\n"),   # @type needs [N]
    (("get", "network.@wireguard_wg0[x].description"), 1, "uci: Invalid argument\n"),
    (("get", "network..proto"), 1, "uci: Invalid argument\n"),
    (("get", "nosuch.wg-0.proto"), 1, "uci: Entry not found\n"),                    # the config is read first
    (("get", "network.wg0.pro-to"), 1, "uci: Parse error\n"),                       # an option name: Parse error
    (("get", "network.wg0.proto.x"), 1, "uci: Parse error\n"),
    (("-q", "get", "network.wg-0.proto"), 1, ""),
    (("get", "network.@wireguard_wg0[5].description"), 1, "uci: Entry not found\n"),
    (("get", "network.@wireguard_wg0[-1].description"), 0, ""),
])
def test_invalid_section_reference_is_invalid_argument(router, args, rc, err):
    got_rc, out, got_err = router.uci(*args)
    assert (got_rc, got_err) == (rc, err)
    assert out == ("dc\n" if rc == 0 else "")


# --- 3. bare uci: the usage, exit status 0; an unknown command or a wrong argument count: 255 ---

@pytest.mark.parametrize("args, rc", [
    ((), 0),
    (("-q",), 0),
    (("-Z", "show"), 0),          # an unknown option: the usage, 0 (after the getopt message)
    (("-c",), 0),                 # an option without its argument: the same
    (("help",), 0),
    (("bogus",), 255),
    (("get",), 255),
    (("get", "network.wg0.proto", "extra"), 255),
    (("add", "network"), 255),
    (("show", "network", "lan"), 255),
])
def test_usage_and_its_exit_status(router, args, rc):
    got_rc, out, err = router.bare(*args)
    assert (got_rc, out) == (rc, "")
    assert "Usage: uci " in err


def test_unknown_option_says_which(router):
    assert router.bare("-Z", "show")[2].startswith("uci: unrecognized option: Z\n")
    assert router.bare("-c")[2].startswith("uci: option requires an argument: c\n")


# --- 4. commit leaves an empty save file; so does reverting everything ---

def test_commit_writes_the_config_and_empties_the_save_file(router):
    assert router.uci("set", "network.wg0.mtu=1420") == (0, "", "")
    assert (router.save / "network").read_text() == "network.wg0.mtu='1420'\n"
    assert router.uci("commit", "network") == (0, "", "")
    assert "\toption mtu '1420'\n" in (router.conf / "network").read_text()
    assert (router.save / "network").exists() and (router.save / "network").read_text() == ""
    assert router.uci("changes") == (0, "", "")


def test_commit_in_a_batch_after_a_set_also_leaves_an_empty_save_file(router):
    assert router.uci("batch", stdin="set network.wg0.mtu=1400\ncommit network\n") == (0, "", "")
    assert "\toption mtu '1400'\n" in (router.conf / "network").read_text()
    assert (router.save / "network").read_text() == ""


def test_commit_without_changes_creates_no_save_file(router):
    before = (router.conf / "network").read_text()
    assert router.uci("commit") == (0, "", "")
    assert not (router.save / "network").exists()
    assert (router.conf / "network").read_text() == before


@pytest.mark.parametrize("target, kept", [
    ("network", ""),
    ("network.wg0", "network.lan.ipaddr='192.168.10.2'\n"),
    ("network.wg0.mtu", "network.lan.ipaddr='192.168.10.2'\n"),
    ("network.lan", "network.wg0.mtu='1420'\n"),
])
def test_revert_rewrites_the_save_file_in_place(router, target, kept):
    router.uci("set", "network.wg0.mtu=1420")
    router.uci("set", "network.lan.ipaddr=192.168.10.2")
    assert router.uci("revert", target) == (0, "", "")
    assert (router.save / "network").read_text() == kept


def test_revert_without_a_save_file_creates_none(router):
    assert router.uci("revert", "network") == (0, "", "")
    assert not (router.save / "network").exists()


def test_a_delta_dir_given_with_small_p_is_read_and_committed_but_kept(router, tmp_path):
    deltas = tmp_path / "state"
    deltas.mkdir()
    (deltas / "network").write_text("network.wg0.mtu='1300'\n")
    assert router.uci("-qp", str(deltas), "get", "network.wg0.mtu") == (0, "1300\n", "")
    assert router.uci("get", "network.wg0.mtu") == (1, "", "uci: Entry not found\n")
    assert router.uci("-p", str(deltas), "commit") == (0, "", "")
    assert "\toption mtu '1300'\n" in (router.conf / "network").read_text()
    assert (deltas / "network").read_text() == "network.wg0.mtu='1300'\n"
    assert not (router.save / "network").exists()


def test_dash_p_save_dir_makes_commit_a_no_op(router):
    before = (router.conf / "network").read_text()
    assert router.uci("set", "network.wg0.mtu=1420", save_option="-P") == (0, "", "")
    assert router.uci("commit", "network", save_option="-P") == (0, "", "")
    assert (router.conf / "network").read_text() == before
    assert (router.save / "network").read_text() == "network.wg0.mtu='1420'\n"


# --- 5. batch: a failing line is reported, the next lines run, the exit status is 0 ---

def test_batch_reports_a_bad_line_runs_the_rest_and_exits_0(router):
    stdin = "set network.wg0.mtu=1\nbogus\nset network.nosuch.x=1\nset network.wg0.mtu=2\n"
    assert router.uci("batch", stdin=stdin) == (0, "", "Unknown command\nuci: Invalid argument\n")
    assert router.uci("get", "network.wg0.mtu") == (0, "2\n", "")


def test_batch_with_every_line_failing_still_exits_0(router):
    stdin = "set network.wg-0.mtu=1\nset network.wg0.pro-to=x\nget network.wg0.nosuch\n"
    rc, out, err = router.uci("batch", stdin=stdin)
    assert (rc, out) == (0, "")
    # uci keeps the text after a message in a static buffer: one more newline for each message
    # printed, replaced only by a parse error with a context (in a batch: the input line, byte 0)
    assert err == ("uci: Invalid argument\n"
                   "uci: Parse error (unknown) at line 1, byte 0\n"
                   "uci: Entry not found (unknown) at line 1, byte 0\n\n")
    assert router.uci("changes") == (0, "", "")


@pytest.mark.parametrize("stdin, err, mtu", [
    ("set network.wg0.mtu=1 x y\nset network.wg0.mtu=2\n", "Too many arguments\n", "2\n"),  # at most 3 words
    ("set network.wg0.mtu=1\nexit\nset network.wg0.mtu=2\n", "", "1\n"),                  # exit ends the input
    ("SET network.wg0.mtu=3\n", "", "3\n"),                                                # commands in any case
    ("batch\nset network.wg0.mtu=4\n", "Unknown command\n", "4\n"),
    ("set\nset network.wg0.mtu=5 # a comment\n", "Unknown command\n", "5\n"),
    ("set network.wg0.mtu=6; set network.wg0.mtu=7\n", "", "6\n"),                      # ; ends the command
])
def test_batch_lines(router, stdin, err, mtu):
    assert router.uci("batch", stdin=stdin) == (0, "", err)
    assert router.uci("get", "network.wg0.mtu")[1] == mtu


def test_batch_secret_on_stdin_and_quiet(router):
    key = "N" * 43 + "="
    assert router.uci("-q", "batch", stdin="set 'network.wg0.private_key=%s'\nbogus\n" % key) == (0, "", "")
    assert router.uci("get", "network.wg0.private_key") == (0, key + "\n", "")


# --- what the same code paths do besides (uci's behaviour, from its source) ---

@pytest.mark.parametrize("args, expected", [
    (("get", "network"), (0, "", "")),                                  # a whole config: nothing, 0
    (("get", "network.wg0.proto=x"), (1, "", "")),                      # get with a value: 1, no message
    (("get", "network.@wireguard_wg0[0].allowed_ips"), (0, "10.77.0.0/24 192.168.20.0/24\n", "")),
    (("show", "network.wg0.nosuch"), (1, "", "uci: Entry not found\n")),
    (("show", "nosuch"), (1, "", "uci: Entry not found\n")),
])
def test_reading(router, args, expected):
    assert router.uci(*args) == expected


def test_setting_the_current_value_stages_nothing(router):
    assert router.uci("set", "network.wg0.listen_port=51820") == (0, "", "")
    assert router.uci("set", "network.wg0=interface") == (0, "", "")
    assert router.uci("changes") == (0, "", "")


@pytest.mark.parametrize("args, rc, value, changes", [
    # delete with a value: the index of a list item, not the item
    (("delete", "network.@wireguard_wg0[0].allowed_ips=1"), 0, "10.77.0.0/24\n", "-network.{cfg}.allowed_ips\n"),
    (("delete", "network.@wireguard_wg0[0].allowed_ips=5"), 0, "10.77.0.0/24 192.168.20.0/24\n", ""),
    (("delete", "network.@wireguard_wg0[0].allowed_ips=10.77.0.0/24"), 0, "10.77.0.0/24 192.168.20.0/24\n",
     ""),                                                                # read as index 10: no such item
    (("delete", "network.@wireguard_wg0[0].allowed_ips=x"), 1, "10.77.0.0/24 192.168.20.0/24\n", ""),
    # del_list of an item that is not there is staged all the same
    (("del_list", "network.@wireguard_wg0[0].allowed_ips=1.2.3.4"), 0, "10.77.0.0/24 192.168.20.0/24\n",
     "network.{cfg}.allowed_ips-='1.2.3.4'\n"),
])
def test_list_item_changes(router, args, rc, value, changes):
    cfg = _cfg_name(router, "wireguard_wg0", 0)
    assert router.uci(*args)[0] == rc
    assert router.uci("get", "network.@wireguard_wg0[0].allowed_ips")[1] == value
    assert router.uci("changes") == (0, changes.format(cfg=cfg), "")


def test_del_list_of_a_plain_option_changes_nothing(router):
    assert router.uci("del_list", "network.wg0.listen_port=51820") == (0, "", "")
    assert router.uci("get", "network.wg0.listen_port") == (0, "51820\n", "")
    assert router.uci("changes") == (0, "", "")


def test_get_quotes_list_items_holding_a_space(router):
    router.uci("add_list", "network.lan.dns=8.8.8.8 x")
    router.uci("add_list", "network.lan.dns=1.1.1.1")
    assert router.uci("get", "network.lan.dns") == (0, "'8.8.8.8 x' 1.1.1.1\n", "")
    assert router.uci("show", "network.lan.dns") == (0, "network.lan.dns='8.8.8.8 x' '1.1.1.1'\n", "")


def test_add_to_a_missing_config_exits_with_the_error_code(router):
    assert router.uci("add", "nosuch", "interface") == (3, "", "uci: Entry not found\n")


def test_show_of_every_config_reports_a_broken_one_and_exits_0(router):
    (router.conf / "broken").write_text("config x\n\tbogus y\n")
    rc, out, err = router.uci("show")
    assert (rc, err) == (0, "uci: Parse error (invalid command) at line 2, byte 1\n")
    assert "network.wg0.proto='wireguard'\n" in out
