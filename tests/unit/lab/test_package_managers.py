"""The OpenWrt-like image's package manager stand-ins (lab/images/openwrt/rootfs/usr/libexec/tunnelfix/opkg
and apk) on each release profile's package database, run on this host with BusyBox's sh, no container.

What the product asks (openwrt_facts: ``apk list --installed banip``, else ``opkg list-installed banip``;
tcp_tuning the same for kmod-tcp-bbr) must come back in the real tool's format - the field copies
tests/unit/fixtures/banip_version/case05_* are one line of each - with the versions of that release's
openwrt/packages branch (net/banip/Makefile, net/mwan3/Makefile: PKG_VERSION-PKG_RELEASE; apk writes -rN),
and read by the product's parsers as such. Anything else fails as not emulated.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._tcp_tuning import package_listed
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.mwan3 import banip_default_icmplimit, parse_banip_version

REPO = Path(__file__).resolve().parents[3]
IMAGE = REPO / "lab" / "images" / "openwrt"
STANDINS = IMAGE / "rootfs" / "usr" / "libexec" / "tunnelfix"
FIELD = REPO / "tests" / "unit" / "fixtures" / "banip_version"

# release -> (package manager, its path in the image, database, banip line, mwan3 line, banIP version, default limit)
PROFILES = {
    "23.05": ("opkg", "bin/opkg", "usr/lib/opkg/status", "banip - 1.0.1-2", "mwan3 - 2.11.8-2", "1.0.1-2", 10),
    "24.10": ("opkg", "bin/opkg", "usr/lib/opkg/status", "banip - 1.5.6-7", "mwan3 - 2.11.16-5", "1.5.6-7", 25),
    "25.12": ("apk", "usr/bin/apk", "lib/apk/db/installed",
              "banip-1.8.12-r1 noarch {feeds/packages/net/banip} (GPL-3.0-or-later) [installed]",
              "mwan3-2.12.0-r3 noarch {feeds/packages/net/mwan3} (GPL-2.0) [installed]", "1.8.12-r1", 25),
}
LISTING = {"opkg": ["list-installed"], "apk": ["list", "--installed"]}
TOOLS = ("sh", "awk", "sort", "cat", "date")


class Profile:
    """One release's overlay as a root directory: its package database, a call-log stub, the stand-in."""

    def __init__(self, tmp_path, release):
        self.release = release
        self.pm, self.path, database, self.banip, self.mwan3, self.version, self.default = PROFILES[release]
        busybox = shutil.which("busybox")
        if busybox is None:
            pytest.fail("busybox is not installed: run make deps (busybox is in requirements-apt.txt)")
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        for tool in TOOLS:
            (self.bin / tool).symlink_to(busybox)
        self.root = tmp_path / "root"
        (self.root / database).parent.mkdir(parents=True)
        shutil.copy(IMAGE / "releases" / release / database, self.root / database)
        record = self.root / "usr" / "libexec" / "tunnelfix" / "record-call"
        record.parent.mkdir(parents=True)
        record.write_text('#!/bin/sh\necho "$*" >> "%s"\n' % (tmp_path / "calls.log"))
        record.chmod(0o755)
        self.calls = tmp_path / "calls.log"

    def run(self, *args):
        """The stand-in with ARGS, as the image runs it; (rc, stdout, stderr)."""
        res = subprocess.run([str(self.bin / "sh"), str(STANDINS / self.pm), *args], capture_output=True, text=True,
                             env={"PATH": str(self.bin), "TUNNELFIX_STANDIN_ROOT": str(self.root)}, check=False, timeout=30)
        return res.returncode, res.stdout, res.stderr

    def listing(self, *packages):
        return self.run(*LISTING[self.pm], *packages)


@pytest.fixture(params=sorted(PROFILES))
def profile(request, tmp_path):
    return Profile(tmp_path, request.param)


def test_the_profile_ships_its_package_manager_and_not_the_other(profile):
    overlay = IMAGE / "releases" / profile.release
    other = {"opkg": "usr/bin/apk", "apk": "bin/opkg"}[profile.pm]
    links = [line.split() for line in (IMAGE / "releases" / (profile.release + ".links")).read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert ["/" + profile.path, "/usr/libexec/tunnelfix/" + profile.pm] in links
    assert not any(link == "/" + other for link, _target in links)
    assert not (overlay / other).exists() and not (overlay / other).is_symlink()


def test_banip_is_listed_in_the_real_format_at_the_release_version(profile):
    assert profile.listing("banip") == (0, profile.banip + "\n", "")


def test_the_line_has_the_shape_of_the_field_copy(profile):
    field = (FIELD / ("case05_opkg_old.txt" if profile.pm == "opkg" else "case05_apk_new.txt")).read_text()
    shape = field.replace("1.0.1-1", profile.version) if profile.pm == "opkg" else field
    assert profile.listing("banip")[1] == shape


def test_the_products_parsers_read_the_version_and_default_limit(profile):
    out = profile.listing("banip")[1]
    assert parse_banip_version(out)["version"] == profile.version
    assert banip_default_icmplimit(out) == profile.default
    assert package_listed(profile.listing("mwan3")[1], "mwan3")


def test_every_installed_package_by_name_and_a_glob(profile):
    assert profile.listing() == (0, profile.banip + "\n" + profile.mwan3 + "\n", "")
    assert profile.listing("mw*") == (0, profile.mwan3 + "\n", "")


def test_a_package_not_installed_prints_nothing_and_exits_0(profile):
    rc, out, err = profile.listing("kmod-tcp-bbr")
    assert (rc, out, err) == (0, "", "")
    assert not package_listed(out, "kmod-tcp-bbr")
    assert parse_banip_version(out) is None


@pytest.mark.parametrize("args", [["install", "banip"], ["update"], [], ["list"], ["list", "--available"], ["info", "banip"]])
def test_anything_else_is_not_emulated_exit_1(profile, args):
    rc, out, err = profile.run(*args)
    assert (rc, out) == (1, "")
    assert "is not emulated" in err and err.startswith(profile.pm + ": ")


def test_each_call_is_recorded_with_the_real_path(profile):
    profile.listing("banip")
    profile.run("install", "x")
    assert profile.calls.read_text().splitlines() == [
        "/%s %s banip" % (profile.path, " ".join(LISTING[profile.pm])), "/%s install x" % profile.path]
