# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""_remote_batch: the framed script run by dash, bash and BusyBox sh, and the parser of its output."""

import subprocess

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import (
    MARKER, ForEachLine, Step, batch_script, foreach_name, new_nonce, split_batch_output)

NONCE = "0123456789abcdef0123456789abcdef"
# Every shell must be there (make deps installs busybox): a missing one fails, never skips.
HOST_COMMANDS = ("dash", "bash", "busybox")
SHELLS = [["dash"], ["bash"], ["busybox", "sh"]]


def run(steps, shell, nonce=NONCE, tmp_path=None):
    done = subprocess.run(shell + ["-c", batch_script(steps, nonce)], capture_output=True, text=True, check=False,
                          timeout=30, env={"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    return done.stdout


def sh(script):
    return ["sh", "-c", script]


@pytest.mark.parametrize("shell", SHELLS, ids=lambda shell: shell[0])
@pytest.mark.parametrize("argv, expected", [
    (["printf", "a\nb\n"], {"rc": 0, "stdout": "a\nb\n", "stderr": ""}),
    (["printf", "no newline"], {"rc": 0, "stdout": "no newline", "stderr": ""}),
    (["printf", "two\n\n"], {"rc": 0, "stdout": "two\n\n", "stderr": ""}),
    (["true"], {"rc": 0, "stdout": "", "stderr": ""}),
    (sh("printf '\\n'"), {"rc": 0, "stdout": "\n", "stderr": ""}),
    (sh("echo out; echo err >&2; exit 3"), {"rc": 3, "stdout": "out\n", "stderr": "err\n"}),
    (sh("printf err >&2; exit 255"), {"rc": 255, "stdout": "", "stderr": "err"}),
    (sh("exit 1"), {"rc": 1, "stdout": "", "stderr": ""}),
    # a marker with another nonce, or the marker text alone, is output like any other line
    (["printf", "%s deadbeefdeadbeefdeadbeefdeadbeef rc 0\n%s end\n" % (MARKER, MARKER)],
     {"rc": 0, "stdout": "%s deadbeefdeadbeefdeadbeefdeadbeef rc 0\n%s end\n" % (MARKER, MARKER), "stderr": ""}),
    (["cat"], {"rc": 0, "stdout": "", "stderr": ""}),  # stdin is /dev/null: nothing read from the connection
    (["command", "-v", "sh"], None),
], ids=["lines", "no-newline", "blank-line-kept", "empty", "only-newline", "stderr-apart", "rc-255", "rc-1",
        "forged-marker", "stdin-null", "builtin"])
def test_round_trip(shell, argv, expected, tmp_path):
    steps = [Step("first", ["printf", "x"]), Step("it", argv), Step("last", ["echo", "done"])]
    got = split_batch_output(run(steps, shell, tmp_path=tmp_path), NONCE)
    assert list(got) == ["first", "it", "last"]
    assert got["first"] == {"rc": 0, "stdout": "x", "stderr": ""}
    assert got["last"] == {"rc": 0, "stdout": "done\n", "stderr": ""}
    if expected is None:
        assert got["it"]["rc"] == 0 and got["it"]["stdout"].strip().endswith("sh")
    else:
        assert got["it"] == expected
    assert list(tmp_path.iterdir()) == []  # the temp dir is removed


@pytest.mark.parametrize("shell", SHELLS, ids=lambda shell: shell[0])
def test_missing_command_fallbacks_and_loops(shell, tmp_path):
    steps = [
        Step("missing", ["no-such-command-here"]),
        Step("after missing", ["echo", "ran"], after_failure=True),
        Step("ok", ["printf", "br-lan\n\nlan1\n"]),
        Step("after ok", ["echo", "skipped"], after_failure=True),
        ForEachLine('cat "$1"; echo "it\'s"', ("ok",), (["echo", "dev"], ["printf", "%s|"])),
    ]
    got = split_batch_output(run(steps, shell, tmp_path=tmp_path), NONCE)
    assert got["missing"]["rc"] == 127 and "no-such-command-here" in got["missing"]["stderr"]
    assert got["after missing"]["stdout"] == "ran\n"
    assert "after ok" not in got
    assert {name: step["stdout"] for name, step in got.items() if name.startswith(("echo", "printf"))} == {
        "echo dev br-lan": "dev br-lan\n", "echo dev lan1": "dev lan1\n", "echo dev it's": "dev it's\n",
        "printf '%s|' br-lan": "br-lan|", "printf '%s|' lan1": "lan1|", "printf '%s|' it's": "it's|"}
    assert foreach_name(["printf", "%s|"], "lan1") == "printf '%s|' lan1"


@pytest.mark.parametrize("shell", SHELLS, ids=lambda shell: shell[0])
def test_a_chain_after_success_stops_at_its_first_failure(shell, tmp_path):
    steps = [
        Step("first", ["echo", "one"]),
        Step("second", ["no-such-command-here"], after_success=True),
        Step("third", ["echo", "three"], after_success=True),
        Step("fourth", ["echo", "four"], after_success=True),
        Step("independent", ["echo", "five"]),
        Step("after it", ["echo", "six"], after_success=True),
    ]
    got = split_batch_output(run(steps, shell, tmp_path=tmp_path), NONCE)
    assert list(got) == ["first", "second", "independent", "after it"]
    assert got["second"]["rc"] == 127 and got["after it"]["stdout"] == "six\n"


@pytest.mark.parametrize("shell", SHELLS, ids=lambda shell: shell[0])
def test_a_line_printed_twice_runs_once(shell, tmp_path):
    steps = [ForEachLine("printf 'lan1\\nlan2\\nlan1\\n'", (), (["echo", "dev"],))]
    got = split_batch_output(run(steps, shell, tmp_path=tmp_path), NONCE)
    assert sorted(got) == ["echo dev lan1", "echo dev lan2"]


def test_a_step_cannot_be_both_fallback_and_follower():
    with pytest.raises(ParseError, match="both after a failure and after a success"):
        batch_script([Step("a", ["true"]), Step("b", ["true"], after_failure=True, after_success=True)], NONCE)


def frame(name, stdout, stderr, rc, nonce=NONCE):
    return "%s %s begin %s\n%s\n%s %s stderr\n%s\n%s %s rc %s\n" % (
        MARKER, nonce, name, stdout, MARKER, nonce, stderr, MARKER, nonce, rc)


END = "%s %s end\n" % (MARKER, NONCE)
GOOD = frame("uci -q show banip", "", "", 1) + frame("ip -j route get 10.0.0.1", "[]", "warn\n", 0) + END


def test_parse_by_hand():
    assert split_batch_output(GOOD, NONCE) == {
        "uci -q show banip": {"rc": 1, "stdout": "", "stderr": ""},
        "ip -j route get 10.0.0.1": {"rc": 0, "stdout": "[]", "stderr": "warn\n"}}
    assert split_batch_output(END, NONCE) == {}
    assert split_batch_output(GOOD.rstrip("\n"), NONCE)  # the last newline may be missing


@pytest.mark.parametrize("text, message", [
    ("", "truncated: no end marker"),
    (GOOD[:-len(END)], "truncated"),
    (GOOD[:len(GOOD) // 2], "truncated"),
    (GOOD[:GOOD.index("rc 1")], "truncated"),
    (GOOD.replace(NONCE, "f" * 32), "truncated"),  # another nonce frames nothing
    ("banner\n" + GOOD, "outside any step"),
    (GOOD + "more\n", "text after the end marker"),
    (frame("a", "", "", 0) + frame("a", "", "", 0) + END, "seen twice"),
    (frame("a", "", "", 0).replace("%s %s stderr\n" % (MARKER, NONCE), "") + END, "rc marker where stderr"),
    (frame("a", "", "", 0) + frame("b", "", "", 0).split("%s %s stderr" % (MARKER, NONCE))[0] + END,
     "end marker where stderr"),
    (frame("a", "x", "", 0).replace("x\n%s" % MARKER, "x%s" % MARKER) + END, "rc marker where stderr"),  # mid-line: no marker
    ("%s %s begin a\n%s %s stderr\n" % (MARKER, NONCE, MARKER, NONCE), "does not start a line"),
])
def test_broken_framing_is_a_parse_error(text, message):
    with pytest.raises(ParseError, match=message):
        split_batch_output(text, NONCE)


@pytest.mark.parametrize("steps, nonce, message", [
    ([Step("a", ["true"])], "short", "nonce"),
    ([Step("a", ["true"])], "X" * 32, "nonce"),
    ([Step("a", ["true"]), Step("a", ["false"])], NONCE, "unique"),
    ([Step("a\nb", ["true"])], NONCE, "one unique line"),
    ([Step("", ["true"])], NONCE, "one unique line"),
    ([ForEachLine("echo x", ("later",), (["echo"],)), Step("later", ["true"])], NONCE, "not an earlier step"),
])
def test_bad_batches_are_refused(steps, nonce, message):
    with pytest.raises(ParseError, match=message):
        batch_script(steps, nonce)


def test_nonces_are_fresh_and_parsed_strictly():
    assert len({new_nonce() for _i in range(50)}) == 50 and len(new_nonce()) == 32
    with pytest.raises(ParseError, match="nonce"):
        split_batch_output(GOOD, "not-hex")


def test_step_words_are_not_parsed_by_the_shell():
    script = batch_script([Step("x", ["echo", "$(id)", "a'b", "*"])], NONCE)
    assert "step 0 x echo '$(id)' 'a'\"'\"'b' '*'" in script


# ---- the command line an SSH server accepts is bounded (dropbear, OpenWrt's: MAX_CMD_LEN 9000 bytes)
WIRE_LIMIT_BYTES = 8000   # dropbear's 9000 less room for what Ansible puts around the command


def wire_bytes(steps, environment=None):
    """Bytes of the command as ssh sends it: run_batch's ``sh -c SCRIPT``, in Ansible's ``/bin/sh -c '...'``."""
    import shlex
    return len(("/bin/sh -c " + shlex.quote(shlex.join(["sh", "-c", batch_script(steps, NONCE, environment)]))).encode())


def test_long_words_several_steps_pass_are_written_once():
    long_word = "s/" + "x" * 80 + "/y/"
    script = batch_script([Step("a", ["sed", "-e", long_word, "a"]), Step("b", ["sed", "-e", long_word, "b"]),
                           Step("c", ["echo", "z" * 80])], NONCE)
    assert script.count(long_word) == 1 and script.count("z" * 80) == 1
    assert "step 0 a sed -e \"$_h1\" a" in script and "step 1 b sed -e \"$_h1\" b" in script


@pytest.mark.parametrize("shell", SHELLS, ids=lambda shell: shell[0])
def test_shared_words_reach_the_command_unchanged(shell, tmp_path):
    word = "it's \"quoted\" $HOME `x` \\ " + "w" * 70
    text = run([Step("a", ["printf", "%s", word]), Step("b", ["printf", "%s|", word])], shell, tmp_path=tmp_path)
    out = split_batch_output(text, NONCE)
    assert out["a"]["stdout"] == word and out["b"]["stdout"] == word + "|"


def test_every_fact_batch_fits_a_dropbear_command_line():
    from ansible_collections.tunnelfix.fleet.plugins.action import openwrt_facts, tcp_tuning, tunnel_facts, wg_endpoint_route
    batches = {"openwrt_facts (all subsets)": openwrt_facts.batch_steps(set(openwrt_facts.SUBSETS)),
               "tunnel_facts (all subsets)": tunnel_facts.batch_steps(set(tunnel_facts.SUBSETS)),
               "wg_endpoint_route read": wg_endpoint_route.read_steps(),
               # linux_bbr_fq's first read on a router: every key it manages, both files it may write
               "tcp_tuning read": tcp_tuning.read_steps(
                   ("net.core.default_qdisc", "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
                    "net.core.netdev_max_backlog"), ["/etc/sysctl.d/60-tunnelfix-bbr-fq.conf", "/etc/modules.d/60-tunnelfix-bbr"])}
    # the facts batches carry the run's salt of the preshared key fingerprints (32 hex digits)
    salted = {"openwrt_facts (all subsets)", "tunnel_facts (all subsets)"}
    sizes = {name: wire_bytes(steps, {"TF_SALT": "0" * 32} if name in salted else None) for name, steps in batches.items()}
    assert all(size < WIRE_LIMIT_BYTES for size in sizes.values()), sizes
