# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse/sysctl_boot.py: tcp_reader's SYSCTL_BOOT_FILES listing (hand-made fixtures), what wins at boot, and what
undoes a drop-in's values; parse_path_lines. The listing command itself runs in test_tcp_reader_boot_files.py."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.sysctl_boot import (
    boot_order, dotted, parse_path_lines, parse_sysctl_boot_files, proc_path, settings_by_file, sysctl_boot, undone_at_boot)

OURS = "/etc/sysctl.d/60-tunnelfix-bbr-fq.conf"
CC, QDISC, BACKLOG = "net.ipv4.tcp_congestion_control", "net.core.default_qdisc", "net.core.netdev_max_backlog"
BBR = {CC: "bbr"}


def boot(load_fixture, case):
    return sysctl_boot(parse_sysctl_boot_files(load_fixture("sysctl_boot_files", case)))


def listing(*files, systemd=True):
    """A listing from ``(path, target, [(number, present, text), ...])``."""
    text = "S\n" if systemd else ""
    for path, target, lines in files:
        text += "F\t%s\t>%s\n" % (path, target or "") + "".join("L\t%d\t%s\t%s\n" % line for line in lines)
    return parse_sysctl_boot_files(text)


def test_the_lab_peer_with_a_later_local_file(load_fixture):
    got = boot(load_fixture, "lab_peer_after_fix_local_cubic.txt")
    assert got["applied_by"] == "systemd-sysctl"
    assert got["files"] == ["/etc/sysctl.d/10-tunnelfix-lab.conf", "/usr/lib/sysctl.d/50-pid-max.conf", OURS,
                            "/etc/sysctl.d/99-sysctl.conf", "/etc/sysctl.d/99-zz-local.conf"]   # by name across directories
    assert got["links"] == {"/etc/sysctl.d/99-sysctl.conf": "/etc/sysctl.conf"}
    assert got["effective"][CC] == {"value": "cubic", "file": "/etc/sysctl.d/99-zz-local.conf", "line": 2}
    assert got["effective"]["net.ipv4.tcp_rmem"] == {"value": "4096 131072 33554432", "file": OURS, "line": 4}
    assert got["warnings"] == [] and got["masked"] == {}


def test_debian_sysctl_conf_with_comments_after_values_and_a_typo(load_fixture):
    got = boot(load_fixture, "debian12_sysctl_conf_comments_and_typo.txt")
    # systemd reads /etc/sysctl.conf only through 99-sysctl.conf: once, after the drop-in (and before
    # procps' protect-links.conf: by name, "p" after "9")
    assert got["files"] == ["/usr/lib/sysctl.d/50-pid-max.conf", OURS, "/etc/sysctl.d/99-sysctl.conf",
                            "/usr/lib/sysctl.d/protect-links.conf"]
    assert got["effective"][QDISC] == {"value": "fq", "file": OURS, "line": 3}           # "fq # ..." is refused
    assert got["effective"][BACKLOG] == {"value": "16384", "file": "/etc/sysctl.d/99-sysctl.conf", "line": 71}
    assert [(w["line"], w["reason"], w["key"]) for w in got["warnings"]] == [
        (69, "inline_comment", QDISC), (70, "absent_key", "net.ipv4.tcp_congestion_contol"), (71, "inline_comment", BACKLOG)]
    assert got["warnings"][0]["message"].startswith("/etc/sysctl.d/99-sysctl.conf line 69: '#' after the value is not a comment")
    assert "after taking 16384" in got["warnings"][2]["message"] and "after taking" not in got["warnings"][0]["message"]
    assert "cannot stat /proc/sys/net/ipv4/tcp_congestion_contol" in got["warnings"][1]["message"]


def test_without_systemd_sysctl_conf_comes_last_and_is_read_once(load_fixture):
    got = boot(load_fixture, "openwrt_sysctl_conf_last.txt")
    assert got["applied_by"] == "sysctl --system"
    assert got["files"] == ["/etc/sysctl.d/10-default.conf", "/etc/sysctl.d/12-tcp-bbr.conf", OURS, "/etc/sysctl.conf"]
    assert got["effective"][CC] == {"value": "cubic", "file": "/etc/sysctl.conf", "line": 3}
    assert got["effective"]["kernel.core_pattern"]["value"] == "/tmp/%e.%t.%p.%s.core"


def test_a_vendor_default_before_the_drop_in_and_globs(load_fixture):
    got = boot(load_fixture, "fedora_vendor_default_qdisc_before_ours.txt")
    assert got["effective"][QDISC] == {"value": "fq", "file": OURS, "line": 3}          # 50-default.conf comes first
    assert "net.ipv4.conf.*.rp_filter" not in got["effective"] and "net.ipv4.conf.all.rp_filter" not in got["effective"]
    assert got["effective"]["net.ipv4.ping_group_range"]["value"] == "0 2147483647"      # "-" only ignores a failure
    assert got["warnings"] == []
    assert undone_at_boot(got, OURS, {QDISC: "fq", CC: "bbr"}) == []


@pytest.mark.parametrize("files, applied, masked", [
    ([("/usr/lib/sysctl.d/50-a.conf", None, []), ("/etc/sysctl.d/50-a.conf", None, [])],
     ["/etc/sysctl.d/50-a.conf"], {"/usr/lib/sysctl.d/50-a.conf": "/etc/sysctl.d/50-a.conf"}),
    ([("/run/sysctl.d/50-a.conf", None, []), ("/usr/lib/sysctl.d/50-a.conf", None, [])],
     ["/run/sysctl.d/50-a.conf"], {"/usr/lib/sysctl.d/50-a.conf": "/run/sysctl.d/50-a.conf"}),
    ([("/etc/sysctl.d/50-a.conf", "/dev/null", []), ("/usr/lib/sysctl.d/50-a.conf", None, [])],
     [], {"/usr/lib/sysctl.d/50-a.conf": "/etc/sysctl.d/50-a.conf"}),                   # masked away
    ([("/usr/lib/sysctl.d/10-b.conf", None, []), ("/etc/sysctl.d/90-a.conf", None, [])],
     ["/usr/lib/sysctl.d/10-b.conf", "/etc/sysctl.d/90-a.conf"], {}),                  # name, not directory, orders
    ([("/etc/sysctl.d/a.txt", None, []), ("/opt/sysctl.d/a.conf", None, [])], [], {}),  # not read at boot
])
def test_boot_order(files, applied, masked):
    assert boot_order(listing(*files)) == (applied, masked)


@pytest.mark.parametrize("text, effective, reasons", [
    ("net.core.default_qdisc = fq", {QDISC: "fq"}, []),
    ("net/core/default_qdisc=fq", {QDISC: "fq"}, []),
    ("net.core.default_qdisc = fq #x", {}, ["inline_comment"]),                          # a name with a '#': refused
    ("net.core.default_qdisc = fq#x", {QDISC: "fq#x"}, []),                              # not a comment to anyone either
    ("net.core.netdev_max_backlog = 1000 # x", {BACKLOG: "1000"}, ["inline_comment"]),   # numbers before it are taken
    ("net.ipv4.tcp_rmem = 4096\t87380   6291456", {"net.ipv4.tcp_rmem": "4096 87380 6291456"}, []),
    ("-net.core.default_qdisc = fq", {QDISC: "fq"}, []),
    ("garbage", {}, ["not_an_assignment"]),
    ("= 3", {}, ["not_an_assignment"]),
    ("-net.ipv4.conf.all.rp_filter", {}, []),                                            # a glob exclusion
])
def test_one_line(text, effective, reasons):
    present = "1" if "=" in text and text.split("=")[0].strip() else "-"
    got = sysctl_boot(listing(("/etc/sysctl.d/x.conf", None, [(1, present, text)])))
    assert {key: entry["value"] for key, entry in got["effective"].items()} == effective
    assert [w["reason"] for w in got["warnings"]] == reasons


@pytest.mark.parametrize("present, text, reasons, effective", [
    ("0", "net.ipv4.tcp_nothere = 1", ["absent_key"], {}),
    ("0", "-net.ipv4.tcp_nothere = 1", [], {}),                       # "-": the author asked the boot to ignore it
    ("1", "net.ipv4.tcp_nothere = 1", [], {"net.ipv4.tcp_nothere": "1"}),
    ("g", "net.ipv4.conf.*.rp_filter = 2", [], {}),
])
def test_absent_keys_and_globs(present, text, reasons, effective):
    got = sysctl_boot(listing(("/etc/sysctl.d/x.conf", None, [(4, present, text)])))
    assert [w["reason"] for w in got["warnings"]] == reasons
    assert {key: entry["value"] for key, entry in got["effective"].items()} == effective


def test_a_masked_file_is_neither_applied_nor_warned_about():
    got = sysctl_boot(listing(("/etc/sysctl.d/50-a.conf", None, [(1, "1", "net.core.default_qdisc = fq")]),
                              ("/usr/lib/sysctl.d/50-a.conf", None, [(1, "1", "net.core.default_qdisc = cake # x")])))
    assert got["effective"][QDISC]["file"] == "/etc/sysctl.d/50-a.conf" and got["warnings"] == []


def test_a_file_read_twice_warns_once():
    lines = [(3, "0", "net.nothere = 1")]
    got = sysctl_boot(listing(("/etc/sysctl.d/99-sysctl.conf", "../sysctl.conf", lines), ("/etc/sysctl.conf", None, lines),
                              systemd=False))
    assert got["files"] == ["/etc/sysctl.d/99-sysctl.conf", "/etc/sysctl.conf"] and len(got["warnings"]) == 1


@pytest.mark.parametrize("key, path, shown", [
    ("net.ipv4.tcp_rmem", "net/ipv4/tcp_rmem", "net.ipv4.tcp_rmem"),
    ("net/ipv4/tcp_rmem", "net/ipv4/tcp_rmem", "net.ipv4.tcp_rmem"),
    ("net.ipv4.conf.eth0/10.rp_filter", "net/ipv4/conf/eth0.10/rp_filter", "net.ipv4.conf.eth0.10.rp_filter"),
    ("net/ipv4/conf/eth0.10/rp_filter", "net/ipv4/conf/eth0.10/rp_filter", "net.ipv4.conf.eth0.10.rp_filter"),
    ("kernel", "kernel", "kernel"),
])
def test_key_spellings(key, path, shown):
    assert proc_path(key) == path and dotted(key) == shown


def test_settings_by_file_keep_every_file_as_written(load_fixture):
    got = settings_by_file(parse_sysctl_boot_files(load_fixture("sysctl_boot_files", "debian12_sysctl_conf_comments_and_typo.txt")),
                           (QDISC, BACKLOG))
    assert got[OURS] == {QDISC: "fq", BACKLOG: "5000"}
    assert got["/etc/sysctl.conf"] == got["/etc/sysctl.d/99-sysctl.conf"] == {
        QDISC: "fq # pacing for bbr", BACKLOG: "16384 # bursts from the 10G uplink"}
    assert "/usr/lib/sysctl.d/50-pid-max.conf" not in got


# undone_at_boot: what the role reports, and the rule's finding -----------------------------------------------------

def test_a_later_file_undoes_the_drop_in(load_fixture):
    got = boot(load_fixture, "lab_peer_after_fix_local_cubic.txt")
    [undone] = undone_at_boot(got, OURS, {CC: "bbr", "net.ipv4.tcp_rmem": "4096 131072 33554432"})
    assert {key: undone[key] for key in ("key", "value", "boot_value", "file", "line")} == {
        "key": CC, "value": "bbr", "boot_value": "cubic", "file": "/etc/sysctl.d/99-zz-local.conf", "line": 2}
    assert undone["message"] == (
        "/etc/sysctl.d/99-zz-local.conf line 2 sets net.ipv4.tcp_congestion_control = cubic, and systemd-sysctl applies "
        "it after /etc/sysctl.d/60-tunnelfix-bbr-fq.conf: the next boot undoes net.ipv4.tcp_congestion_control = bbr; "
        "remove or change that line, or name the drop-in so that it sorts after 99-zz-local.conf")


@pytest.mark.parametrize("path, undone", [
    ("/etc/sysctl.d/60-tunnelfix-bbr-fq.conf", True),
    ("/etc/sysctl.d/99-zz-local.conf", False),             # the file itself
    ("/etc/sysctl.d/99-zz-local.conf.d", True),            # no .conf: never read
    ("/etc/sysctl.d/99-zzz-tunnelfix.conf", False),        # sorts after it: wins
    ("/usr/lib/sysctl.d/99-zzz-tunnelfix.conf", False),    # by name, whatever the directory
    ("/etc/sysctl.d/99-zz-local.conf~", True),
    ("/etc/sysctl.conf", True),                            # systemd: not read, no 99-sysctl.conf to it in this case
])
def test_which_drop_in_names_win(path, undone):
    got = sysctl_boot(listing(("/etc/sysctl.d/99-zz-local.conf", None, [(2, "1", "net.ipv4.tcp_congestion_control = cubic")])))
    assert bool(undone_at_boot(got, path, BBR)) is undone


def test_before_the_fix_an_earlier_file_is_no_conflict(load_fixture):
    got = sysctl_boot(listing(("/etc/sysctl.d/10-tunnelfix-lab.conf", None, [(2, "1", "net.ipv4.tcp_congestion_control = cubic")])))
    assert undone_at_boot(got, OURS, BBR) == []


@pytest.mark.parametrize("later, undone", [("cubic", True), ("bbr", False), ("  bbr ", False)])
def test_the_same_value_later_is_no_conflict(later, undone):
    got = sysctl_boot(listing(("/etc/sysctl.d/99-z.conf", None, [(1, "1", "net.ipv4.tcp_congestion_control = %s" % later)])))
    assert bool(undone_at_boot(got, OURS, BBR)) is undone


def test_sysctl_conf_is_last_without_systemd(load_fixture):
    [undone] = undone_at_boot(boot(load_fixture, "openwrt_sysctl_conf_last.txt"), OURS, {CC: "bbr", QDISC: "fq"})
    assert undone["file"] == "/etc/sysctl.conf" and undone["line"] == 3
    assert undone["message"].endswith("remove or change that line")      # no name sorts after it


def test_through_the_link_to_sysctl_conf(load_fixture):
    got = boot(load_fixture, "debian12_sysctl_conf_comments_and_typo.txt")
    [undone] = undone_at_boot(got, OURS, {QDISC: "fq", CC: "bbr", BACKLOG: 5000})
    assert (undone["key"], undone["boot_value"], undone["file"], undone["line"]) == (BACKLOG, "16384", "/etc/sysctl.d/99-sysctl.conf", 71)
    assert "/etc/sysctl.d/99-sysctl.conf (-> /etc/sysctl.conf) line 71" in undone["message"]
    assert undone_at_boot(got, "/etc/sysctl.conf", {BACKLOG: "16384"}) == []   # read as 99-sysctl.conf: it is the winner


def test_a_masked_drop_in():
    got = sysctl_boot(listing(("/etc/sysctl.d/60-tunnelfix-bbr-fq.conf", "/dev/null", []),
                              ("/usr/lib/sysctl.d/60-tunnelfix-bbr-fq.conf", None, [(1, "1", "net.ipv4.tcp_congestion_control = bbr")])))
    [undone] = undone_at_boot(got, "/usr/lib/sysctl.d/60-tunnelfix-bbr-fq.conf", BBR)
    assert undone["file"] == OURS and undone["line"] is None and undone["boot_value"] is None
    assert "masks it" in undone["message"] and undone["message"].endswith("no file sets it")


def test_a_drop_in_the_boot_never_reads():
    got = sysctl_boot(listing(("/etc/sysctl.d/10-a.conf", None, [(1, "1", "net.ipv4.tcp_congestion_control = cubic")])))
    [undone] = undone_at_boot(got, "/opt/tunnelfix/bbr.conf", BBR)
    assert "it is in no directory systemd-sysctl reads" in undone["message"] and undone["file"] == "/etc/sysctl.d/10-a.conf"


@pytest.mark.parametrize("junk", [None, {}, {"effective": "x"}, "text"])
def test_no_boot_facts_no_conflict(junk):
    assert undone_at_boot(junk, OURS, BBR) == []


# the listing's own errors ---------------------------------------------------------------------------------------

def test_nothing_listed():
    assert parse_sysctl_boot_files("") == {"systemd": False, "files": []}
    assert sysctl_boot(parse_sysctl_boot_files("S\n"))["applied_by"] == "systemd-sysctl"


@pytest.mark.parametrize("text, message", [
    ("net.ipv4.tcp_rmem = 1 2 3\n", "line 1: expected a record S, F or L"),
    ("F\tetc/sysctl.conf\t>\n", "line 1: expected 'F<TAB>PATH<TAB>>TARGET'"),
    ("F\t/etc/sysctl.conf\n", "line 1: expected 'F<TAB>PATH<TAB>>TARGET'"),
    ("L\t1\t1\tnet.x = 1\n", "line 1: expected 'L<TAB>NUMBER<TAB>PRESENT<TAB>TEXT' after a file"),
    ("F\t/etc/sysctl.conf\t>\nL\tx\t1\tnet.x = 1\n", "line 2: expected 'L<TAB>NUMBER"),
    ("F\t/etc/sysctl.conf\t>\n\nL\t3\ty\tnet.x = 1\n", "line 3: expected 'L<TAB>NUMBER"),
    ("S\tx\n", "line 1: expected a record S, F or L"),
])
def test_errors_name_the_line(text, message):
    with pytest.raises(ParseError, match=message):
        parse_sysctl_boot_files(text)


def test_not_text():
    with pytest.raises(ParseError, match="must be text, got NoneType"):
        parse_sysctl_boot_files(None)
    with pytest.raises(ParseError, match="must be text, got int"):
        parse_path_lines(3)


def test_path_lines():
    assert parse_path_lines("/etc/modules.d/60-tunnelfix-bbr\n\n/etc/modules-load.d/a.conf\n/etc/modules.d/60-tunnelfix-bbr\n") == [
        "/etc/modules-load.d/a.conf", "/etc/modules.d/60-tunnelfix-bbr"]
    assert parse_path_lines("") == []
    with pytest.raises(ParseError, match="line 2: expected an absolute path, got 'tcp_bbr'"):
        parse_path_lines("/etc/a\ntcp_bbr\n")
