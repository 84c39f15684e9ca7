# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Redaction on the router: the scripts run under sh with fake uci/wg printing recorded output.

What must hold: no secret value survives the script, everything else is byte-identical, the
output still parses to what the controller-side redaction gives, and the tool's exit status
comes through.
"""

import hashlib
import re
import subprocess

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import (
    parse_sha256sum, secret_digest, uci_secret_digest_argv, uci_show_redacted_argv, wg_dump_redacted_argv)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import is_secret_option, parse_uci_show
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import parse_wg_dump

UCI_CASES = ["case01_network.txt", "case11_network_wg.txt", "openwrt_image_network.txt", "wireless_keys.txt",
             "firewall_named_anonymous_quoting.txt", "case05_banip.txt", "x_flag_cfg_names.txt"]
WG_CASES = ["case01_endpoint_hostroute.txt", "case10_hub.txt", "ipv6_endpoint_psk_keepalive.txt",
            "hub_two_interfaces.txt", "hub_unconfigured_second_interface.txt"]


def run(argv, tmp_path, tool, output, rc=0):
    """Run ``argv`` with a fake ``tool`` on PATH that prints ``output`` and exits ``rc``."""
    (tmp_path / "out.txt").write_text(output)
    fake = tmp_path / tool
    fake.write_text('#!/bin/sh\ncat "%s"\nexit %d\n' % (tmp_path / "out.txt", rc))
    fake.chmod(0o755)
    return subprocess.run(argv, capture_output=True, text=True, env={"PATH": "%s:/usr/bin:/bin" % tmp_path}, check=False)


def secret_values(text):
    """Values of the secret options in uci show output (so the test can fail if one is missed)."""
    values = []
    for line in text.splitlines():
        match = re.match(r"^[^=]*\.([^.=]+)='(.*)'$", line)
        if match and is_secret_option(match.group(1)):
            values.append(match.group(2))
    return values


@pytest.mark.parametrize("case", UCI_CASES)
def test_uci_show_secrets_never_leave_the_router(case, tmp_path, load_fixture):
    raw = load_fixture("uci_show", case)
    res = run(uci_show_redacted_argv("network"), tmp_path, "uci", raw)
    assert res.returncode == 0, res.stderr
    for value in secret_values(raw):
        assert value not in res.stdout
    # Every other line unchanged; secret lines keep their option name.
    for before, after in zip(raw.splitlines(), res.stdout.splitlines()):
        key = before.split("=", 1)[0]
        assert after == before or (after == key + "='<redacted>'" and is_secret_option(key.rsplit(".", 1)[-1]))
    assert parse_uci_show(res.stdout) == parse_uci_show(raw)


@pytest.mark.parametrize("shell", ["dash", "bash", "busybox"])
def test_secret_option_names_in_any_case_are_redacted(shell, tmp_path):
    """The controller's is_secret_option ignores case, so the router's sed must too."""
    import shutil
    assert shutil.which(shell), "%s is not installed: make deps installs it (requirements-apt.txt)" % shell
    raw = ("network.wg0=interface\nnetwork.wg0.Private_Key='KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK='\n"
           "network.peer.PRESHARED_KEY='PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP='\nnetwork.w.KEY2='wep'\n"
           "network.peer.Public_Key='AAAA'\n")
    argv = uci_show_redacted_argv("network")
    argv = ([shutil.which("busybox"), "sh"] if shell == "busybox" else [shutil.which(shell)]) + argv[1:]
    if shell == "busybox":  # busybox's own sed, as on a router
        for tool in ("sed",):
            (tmp_path / tool).symlink_to(shutil.which("busybox"))
    res = run(argv, tmp_path, "uci", raw)
    assert res.returncode == 0, res.stderr
    assert "KKKK" not in res.stdout and "PPPP" not in res.stdout and "'wep'" not in res.stdout
    assert "network.wg0.Private_Key='<redacted>'" in res.stdout and "network.peer.Public_Key='AAAA'" in res.stdout
    assert secret_values(raw) == ["KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK=", "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP=", "wep"]


def test_the_fixtures_do_hold_secrets(load_fixture):
    assert len(secret_values(load_fixture("uci_show", "case11_network_wg.txt"))) >= 2
    assert len(secret_values(load_fixture("uci_show", "wireless_keys.txt"))) >= 2


def test_uci_exit_status_and_empty_output_come_through(tmp_path):
    assert run(uci_show_redacted_argv("nosuch"), tmp_path, "uci", "", rc=1).returncode == 1
    empty = run(uci_show_redacted_argv("empty"), tmp_path, "uci", "", rc=0)
    assert (empty.returncode, empty.stdout) == (0, "")


@pytest.mark.parametrize("case", WG_CASES)
def test_wg_dump_keys_never_leave_the_router(case, tmp_path, load_fixture):
    raw = load_fixture("wg_show_all_dump", case)
    res = run(wg_dump_redacted_argv(), tmp_path, "wg", raw)
    assert res.returncode == 0, res.stderr
    now, dump = res.stdout.split("\n", 1)
    assert now.isdigit()
    for line in raw.splitlines():
        fields = line.split("\t")
        secret = fields[1] if len(fields) == 5 else fields[2] if len(fields) == 9 else "(none)"
        if secret != "(none)":
            assert secret not in res.stdout
    assert parse_wg_dump(dump, 1796029496) == parse_wg_dump(raw, 1796029496)


def test_wg_missing_gives_its_exit_status(tmp_path):
    argv = wg_dump_redacted_argv()
    res = subprocess.run(["/bin/sh"] + argv[1:], capture_output=True, text=True, env={"PATH": str(tmp_path)}, check=False)
    assert res.returncode == 127


def test_secret_digest_compares_without_printing_the_value(tmp_path):
    res = run(uci_secret_digest_argv("network.wg0.private_key"), tmp_path, "uci", "KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK=\n")
    assert res.returncode == 0 and "KKKK" not in res.stdout
    assert parse_sha256sum(res.stdout) == secret_digest("KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK=")
    assert secret_digest("x") == hashlib.sha256(b"x").hexdigest()
    assert run(uci_secret_digest_argv("network.wg0.private_key"), tmp_path, "uci", "", rc=1).returncode == 1


@pytest.mark.parametrize("text", ["", "sha256sum: not found\n", "abc  -\n"])
def test_unreadable_digest_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_sha256sum(text)


# ---- secrets under names no list knows, found by shape (issue: nothing leaves that was not asked for)
SHAPE_FIXTURE = "secrets_under_other_names.txt"
KEY_TOKEN = re.compile(r"[A-Za-z0-9+/]{43}=")


def _fake_keys(text):
    """The key-shaped values of the fixture, with the public key apart."""
    public = set(re.findall(r"public_key='([^']+)'", text))
    return set(KEY_TOKEN.findall(text)) - public, public


@pytest.mark.parametrize("shell", ["dash", "bash", "busybox"])
def test_key_shaped_values_and_router_secret_names_never_leave_the_router(shell, tmp_path, load_fixture):
    import shutil
    raw = load_fixture("uci_show", SHAPE_FIXTURE)
    secrets, public = _fake_keys(raw)
    assert len(secrets) == 2 and len(public) == 1
    argv = uci_show_redacted_argv("network")
    argv = ([shutil.which("busybox"), "sh"] if shell == "busybox" else [shutil.which(shell)]) + argv[1:]
    if shell == "busybox":   # busybox's own sed, as on a router
        (tmp_path / "sed").symlink_to(shutil.which("busybox"))
    res = run(argv, tmp_path, "uci", raw)
    assert res.returncode == 0, res.stderr
    for secret in secrets | {"1234", "4321", "abcdef0123456789", "hunter2", "correct horse"}:
        assert secret not in res.stdout
    assert public.pop() in res.stdout                                    # a public key stays
    assert "network.@wireguard_wg0[0].description='hub (psk <redacted>)'" in res.stdout
    assert "network.@wireguard_wg0[0].allowed_ips='10.44.0.0/24' '<redacted>'" in res.stdout
    assert "network.wwan.apn='internet'" in res.stdout and "network.henet.username='tunneluser'" in res.stdout


def test_controller_redacts_the_same_by_shape_and_name(load_fixture):
    raw = load_fixture("uci_show", SHAPE_FIXTURE)
    secrets, public = _fake_keys(raw)
    parsed = parse_uci_show(raw)
    shown = repr(parsed)
    for secret in secrets | {"1234", "4321", "abcdef0123456789", "hunter2", "correct horse"}:
        assert secret not in shown
    options = parsed["network"]["@wireguard_wg0[0]"]["options"]
    assert options["public_key"] in public
    assert options["description"] == "hub (psk <redacted>)"
    assert options["allowed_ips"] == ["10.44.0.0/24", "<redacted>"]
    assert parsed["network"]["wg0"]["options"]["privatekey"] == "<redacted>"
    assert parsed["network"]["wwan"]["options"]["apn"] == "internet"


def test_wg_dump_hides_key_shapes_on_lines_of_any_format(tmp_path):
    import base64
    keys = [base64.b64encode(hashlib.sha256(label.encode()).digest()).decode() for label in ("a", "b", "c")]
    dump = "wg0\t%s\t%s\t51820\toff\nwg0\t%s\textra\t%s\n" % (keys[0], keys[1], keys[2], keys[0])
    res = run(wg_dump_redacted_argv(), tmp_path, "wg", dump)
    lines = res.stdout.splitlines()[1:]
    assert lines == ["wg0\t(hidden)\t%s\t51820\toff" % keys[1], "wg0\t(hidden)\textra\t(hidden)"]


def test_uci_changes_list_lines_of_short_secret_names_are_redacted(tmp_path):
    from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import uci_changes_redacted_argv
    raw = "wireless.ap.key+='wifi-pass'\nwireless.ap.key1-='old-wep'\nnetwork.lan.ipaddr='192.168.9.1'\n"
    res = run(uci_changes_redacted_argv("wireless"), tmp_path, "uci", raw)
    assert res.stdout == ("wireless.ap.key+='<redacted>'\nwireless.ap.key1-='<redacted>'\n"
                          "network.lan.ipaddr='192.168.9.1'\n")


def test_a_section_named_like_a_secret_keeps_its_type(tmp_path):
    raw = "network.psk=interface\nnetwork.psk.proto='static'\nnetwork.token=wireguard_token\n"
    res = run(uci_show_redacted_argv("network"), tmp_path, "uci", raw)
    assert res.stdout == raw
    assert parse_uci_show(res.stdout)["network"]["psk"]["type"] == "interface"
