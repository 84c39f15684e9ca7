# -*- coding: utf-8 -*-
"""The shared pause: run under dash and BusyBox sh with a PATH that has usleep, a fractional sleep, or neither."""

import shutil
import subprocess

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.measure.pause import pause_snippet

SHELLS = [pytest.param(["dash"], id="dash"), pytest.param(["busybox", "sh"], id="busybox-sh")]


def tools(tmp_path, usleep, fractions):
    """A PATH dir with only a logging ``sleep`` (refusing a fraction as OpenWrt's BusyBox does, "invalid number", unless
    ``fractions``) and, with ``usleep``, a logging ``usleep``; returns the log file."""
    log = tmp_path / "naps"
    refuse = "" if fractions else 'case "$1" in *[!0-9]*) echo "sleep: invalid number \'$1\'" >&2; exit 1 ;; esac\n'
    (tmp_path / "sleep").write_text('#!/bin/sh\n%secho "sleep $1" >>"%s"\n' % (refuse, log))
    if usleep:
        (tmp_path / "usleep").write_text('#!/bin/sh\necho "usleep $1" >>"%s"\n' % log)
    for name in ("sleep", "usleep"):
        if (tmp_path / name).exists():
            (tmp_path / name).chmod(0o755)
    return log


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("usleep, fractions, interval_ms, naps, used_ms", [
    (True, True, 200, ["usleep 200000"], 200),                 # usleep first wherever there is one
    (False, True, 200, ["sleep 0.001", "sleep 0.200"], 200),   # coreutils: the fraction, after its probe
    (False, True, 1250, ["sleep 0.001", "sleep 1.250"], 1250),
    (False, False, 200, ["sleep 1"], 1000),                    # OpenWrt's BusyBox: whole seconds, rounded up
    (False, False, 1000, ["sleep 1"], 1000),
    (False, False, 1001, ["sleep 2"], 2000),
    (False, False, 0, ["sleep 0"], 0),
])
def test_the_pause_is_one_the_target_can_make_and_interval_ms_says_which(
        tmp_path, shell, usleep, fractions, interval_ms, naps, used_ms):
    if not shutil.which(shell[0]):
        pytest.skip("%s is not installed" % shell[0])
    log = tools(tmp_path, usleep, fractions)
    script = pause_snippet(interval_ms) + 'nap_\necho "$interval_ms_"\n'
    # command -v must not find the host's usleep/sleep: PATH is the fake tools only (BusyBox sh has no builtin sleep)
    done = subprocess.run([shutil.which(shell[0])] + shell[1:] + ["-c", script], capture_output=True, text=True, check=True,
                          env={"PATH": str(tmp_path)})
    assert done.stdout.split() == [str(used_ms)] and done.stderr == ""   # the probe of a fractional sleep is silent too
    assert log.read_text().splitlines() == naps


@pytest.mark.parametrize("value", [-1, 10001, 1.5, "200", True, None])
def test_a_bad_interval_is_refused_naming_it(value):
    with pytest.raises(ValueError, match=r"^interval_ms must be a whole number 0-10000, got %s$" % repr(value).replace(".", r"\.")):
        pause_snippet(value)


def test_the_snippet_is_valid_sh():
    for interval_ms in (0, 1, 999, 10000):
        subprocess.run(["dash", "-n", "-c", pause_snippet(interval_ms)], check=True)
    assert pause_snippet(5).endswith("fi\n")
