# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preshared key fingerprints: the target's command (dash, bash, BusyBox), its recorded output, the parser, the
run's salt, and the batch that carries the salt to every step.

A stub ``wg`` prints a ``wg show all preshared-keys`` listing with FAKE keys (the format of the recording,
tests/unit/fixtures/psk_fingerprints/README: "INTERFACE<TAB>PUBLIC_KEY<TAB>KEY or (none)").
"""

import base64
import os
import shutil
import subprocess

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import SAME_NAME, Step, batch_script, split_batch_output
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.fact_commands import (
    FINGERPRINT_SALT_VARIABLE, PRESHARED_KEY_FINGERPRINTS, PRESHARED_KEY_FINGERPRINTS_NAME)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.psk_fingerprint import (
    check_salt, fingerprint, new_salt, parse_psk_fingerprints, salt_environment, salt_id, salted)

# Every shell must be there (make deps installs busybox): a missing one fails, never skips.
HOST_COMMANDS = ("dash", "bash", "busybox", "sha256sum", "cut", "awk")
SHELLS = ("dash", "bash", "busybox")
NONCE = "0123456789abcdef0123456789abcdef"
RECORDED_SALT = "00112233445566778899aabbccddeeff"   # the recording's (README); a run's is random
FAKE_ONE = base64.b64encode(bytes([1]) * 32).decode()   # the recording's fake preshared key
FAKE_TWO = base64.b64encode(bytes([2]) * 32).decode()
PEER_A, PEER_B, PEER_C = "P" * 43 + "=", "Q" * 43 + "=", "S" * 43 + "="


def test_the_recorded_output_is_the_salted_hash_of_the_fake_key(load_fixture):
    text = load_fixture("psk_fingerprints", "two_peers_one_psk.txt")
    assert text == "tfpsk0\t%s\t%s\n" % (PEER_A, fingerprint(RECORDED_SALT, FAKE_ONE))
    assert parse_psk_fingerprints(text) == {"tfpsk0": {PEER_A: "0910c51b3ca73833"}}


@pytest.mark.parametrize("text", ["wg0\t%s\t0910c51b" % PEER_A, "wg0\t%s\t" % PEER_A, "wg0\tshort\t0910c51b3ca73833",
                                  "wg0\t%s\t%s" % (PEER_A, FAKE_ONE)])
def test_a_line_that_is_no_fingerprint_is_a_parse_error(text):
    with pytest.raises(ParseError, match="line 1"):
        parse_psk_fingerprints(text + "\n")


def _target(tmp_path, shell, listing):
    """PATH for ``shell``: a stub wg printing ``listing``, then BusyBox's applets (busybox) or the host's tools."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (tmp_path / "listing").write_text(listing, encoding="utf-8")
    (stubs / "wg").write_text('#!/bin/sh\n[ "$*" = "show all preshared-keys" ] || exit 99\nexec cat "%s"\n' % (tmp_path / "listing"))
    (stubs / "wg").chmod(0o755)
    if shell == "busybox":
        for tool in ("awk", "cut", "sha256sum", "sh", "cat"):
            os.symlink(shutil.which("busybox"), stubs / tool)
        return [shutil.which("busybox"), "sh"], "%s:/usr/bin:/bin" % stubs
    return [shutil.which(shell)], "%s:/usr/bin:/bin" % stubs


@pytest.mark.parametrize("shell", SHELLS)
def test_the_command_prints_one_fingerprint_per_peer_with_a_key(tmp_path, shell):
    listing = "wg0\t%s\t%s\nwg0\t%s\t(none)\nwg1\t%s\t%s\n" % (PEER_A, FAKE_ONE, PEER_B, PEER_C, FAKE_TWO)
    argv, path = _target(tmp_path, shell, listing)
    done = subprocess.run(argv + ["-c", PRESHARED_KEY_FINGERPRINTS[2]], capture_output=True, text=True, check=False, timeout=30,
                          env={"PATH": path, FINGERPRINT_SALT_VARIABLE: RECORDED_SALT})
    assert (done.returncode, done.stderr) == (0, "")
    assert parse_psk_fingerprints(done.stdout) == {"wg0": {PEER_A: fingerprint(RECORDED_SALT, FAKE_ONE)},
                                                   "wg1": {PEER_C: fingerprint(RECORDED_SALT, FAKE_TWO)}}
    assert FAKE_ONE not in done.stdout and FAKE_TWO not in done.stdout


@pytest.mark.parametrize("shell", SHELLS)
def test_without_a_salt_nothing_is_hashed(tmp_path, shell):
    argv, path = _target(tmp_path, shell, "wg0\t%s\t%s\n" % (PEER_A, FAKE_ONE))
    done = subprocess.run(argv + ["-c", PRESHARED_KEY_FINGERPRINTS[2]], capture_output=True, text=True, check=False, timeout=30,
                          env={"PATH": path})
    assert (done.returncode, done.stdout) == (3, "")


def test_the_key_is_never_a_word_of_a_command_line():
    # the key comes from wg's stdout; the command's words are fixed text and the salt variable's name
    assert PRESHARED_KEY_FINGERPRINTS[:2] == ["sh", "-c"] and len(PRESHARED_KEY_FINGERPRINTS) == 3
    script = PRESHARED_KEY_FINGERPRINTS[2]
    assert '"$TF_SALT"' in script and "| c;" in script and 'c = "sha256sum | cut -c1-16"' in script
    assert "echo" not in script and 'printf "%s%s", s, $3 | c' in script   # awk's own printf writes the key into the pipe


@pytest.mark.parametrize("shell", [["dash"], ["busybox", "sh"]], ids=lambda shell: shell[0])
def test_the_batch_exports_the_salt_to_its_steps(tmp_path, shell):
    steps = [Step(PRESHARED_KEY_FINGERPRINTS_NAME, ["sh", "-c", 'printf %s "$TF_SALT"']), Step("uname -r", ["uname", "-r"])]
    script = batch_script(steps, NONCE, {FINGERPRINT_SALT_VARIABLE: RECORDED_SALT})
    assert "step 1 %s uname -r" % SAME_NAME in script   # the name is not written twice
    done = subprocess.run(shell + ["-c", script], capture_output=True, text=True, check=False, timeout=30,
                          env={"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)})
    out = split_batch_output(done.stdout, NONCE)
    assert out[PRESHARED_KEY_FINGERPRINTS_NAME]["stdout"] == RECORDED_SALT
    assert out["uname -r"]["rc"] == 0 and out["uname -r"]["stdout"]


@pytest.mark.parametrize("environment, steps", [
    ({"tf_salt": "x"}, [Step("a", ["true"])]),          # not upper-case
    ({"A;B": "x"}, [Step("a", ["true"])]),
    (None, [Step(SAME_NAME, ["true"])]),                 # a step named "=" would be read as its words
])
def test_bad_environments_and_names_are_refused(environment, steps):
    with pytest.raises(ParseError):
        batch_script(steps, NONCE, environment)


def test_a_salt_is_32_hex_digits_new_every_time_and_its_id_is_not_the_salt():
    first, second = new_salt(), new_salt()
    assert first != second and check_salt(first) == first and len(first) == 32
    assert len(salt_id(first)) == 8 and salt_id(first) not in first and salt_id(first) != salt_id(second)
    assert fingerprint(first, FAKE_ONE) != fingerprint(second, FAKE_ONE)   # one key, two runs: two fingerprints
    for bad in ("", "0" * 31, "G" * 32, RECORDED_SALT.upper(), None, 5):
        with pytest.raises(ParseError, match="fingerprint_salt must be 32"):
            check_salt(bad)


def test_a_task_without_a_salt_gets_one_of_its_own():
    args = salted({"fingerprint_salt": None, "label": "x"})
    assert args["label"] == "x" and check_salt(args["fingerprint_salt"])
    assert salted({"fingerprint_salt": RECORDED_SALT})["fingerprint_salt"] == RECORDED_SALT
    assert salt_environment({"fingerprint_salt": RECORDED_SALT}) == {"TF_SALT": RECORDED_SALT}
    with pytest.raises(ParseError):
        salted({"fingerprint_salt": "not hex"})
