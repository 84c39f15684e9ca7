"""scripts/host_commands.py: which programs a shell script, a Makefile or a Python file runs on the host."""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "scripts"))

import check_host_packages  # noqa: E402
import host_commands as hc  # noqa: E402


def names(uses):
    return [use.command for use in uses]


@pytest.mark.parametrize("script, expected", [
    ("ping -c 1 10.0.0.1", ["ping"]),
    ("a=$(ip -j link) && tc qdisc show | grep tbf", ["ip", "tc", "grep"]),
    ("if ! { ip link show x &>/dev/null && nft list tables; }; then rm -f y; fi", ["ip", "nft", "rm"]),
    ("while read -r line; do sed -n p; done < <(sort f)", ["sed", "sort"]),
    ("timeout 30 podman exec tf-hub true", ["timeout", "podman"]),        # podman exec: container side
    ("timeout -s KILL 5 ssh -o X=1 host uname", ["timeout", "ssh"]),      # ssh: the rest is remote
    ("nsenter -t 42 -n -- ip addr", ["nsenter", "ip"]),
    ("ip netns exec ns1 iperf3 -s", ["ip", "iperf3"]),
    ("env LC_ALL=C A=1 sort -u f", ["env", "sort"]),
    ("LC_ALL=C sort f", ["sort"]),
    ("find . -name x | xargs -r -n 1 sha256sum", ["find", "xargs", "sha256sum"]),
    ("bash -c 'modprobe tcp_bbr || true'", ["bash", "modprobe"]),
    ("trap 'rm -rf \"$tmp\"' EXIT", ["rm"]),
    ("chroot /srv/root /bin/sh -c 'apk add x'", ["chroot"]),               # inside the chroot
    ("echo hi; printf x; cd /; set -e; local a; [ -e x ]; [[ -e y ]]; exit 0", []),
    ("lab/up.sh; ./x.sh; \"${LAB_DIR}\"/images/build.sh; .venv/bin/python -m pytest", []),
    ('"${cmd}" --version; $TOOL x', []),                                   # built at run time
    ("/usr/bin/python3 -m venv .venv", ["/usr/bin/python3"]),
    ("cat > f <<EOF\nAddress = 10.45.0.$((100 + i))/24\nKey = $(cat key)\nEOF", ["cat", "cat"]),
    ("f() { curl -s x; }\nf", ["curl"]),
    ("exec nohup setsid sleep 1", ["nohup", "setsid", "sleep"]),
    # from a breaker's review: keywords, option values, shell strings, arrays, `command`
    ("time curl x; time -p wget y; coproc jq .", ["curl", "wget", "jq"]),
    ("stdbuf -o L curl x", ["stdbuf", "curl"]),
    ("flock /tmp/l -c 'curl x'", ["flock", "curl"]),
    ("flock /tmp/l curl x", ["flock", "curl"]),
    ("sh -c -- 'curl x'; bash -ec 'wget y'", ["sh", "curl", "bash", "wget"]),
    ("nsenter -t 1 -n -w ip addr", ["nsenter", "ip"]),
    ("locked=(flock \"$lock\")\nlocked=()\n\"${locked[@]}\" bash -c 'jq .'", ["flock", "bash", "jq"]),
    ("ping() { command ping -c1 \"$@\"; }\nping x", ["ping"]),
    ("command -v curl >/dev/null || exit 1", ["curl"]),                     # looked up: needed
    ("declare -A TOOLS=([/usr/sbin/ethtool]=/usr/sbin/ethtool [/usr/bin/wg]=x)\nNAMES=(hub /usr/bin/iperf3)",
     ["/usr/sbin/ethtool", "/usr/bin/wg", "/usr/bin/iperf3"]),             # programs listed to copy
])
def test_shell_uses(script, expected):
    assert names(hc.shell_uses(script, "t.sh")) == expected


def test_shell_uses_skips_functions_defined_elsewhere_and_gives_lines():
    uses = hc.shell_uses("true\nlog hello\nping x\n", "lab/t.sh", frozenset({"log"}))
    assert uses == [hc.Use("ping", "lab/t.sh:3")]


@pytest.mark.parametrize("where, script, expected", [
    ("lab/up.sh", 'nsx peer ping -c 1 "$ip"', ["ping"]),                         # host binary in a netns
    ("lab/up.sh", "cx hub systemctl -q is-active x", []),                        # inside the container
    ("lab/up.sh", '# shellcheck source=common.sh\ncheck "desc" "hint" nsx peer ping -c 1 x', ["ping"]),
    ("lab/up.sh", '# shellcheck source=common.sh\ncheck "desc" "hint" cx wan systemctl is-active x', []),
    ("lab/up.sh", 'check "desc" "hint" nsx peer ping -c 1 x', []),              # check is common.sh's
    ("tests/rollback/run.sh", "mgmt hub wg show", []),                           # over ssh
    ("other.sh", 'nsx peer ping -c 1 "$ip"', []),                                 # not a wrapper there
])
def test_function_wrappers_are_per_file(where, script, expected):
    functions = frozenset({"nsx", "cx", "check", "mgmt"})
    assert names(hc.shell_uses(script, where, functions)) == expected


@pytest.mark.parametrize("where, text, expected", [
    ("lab/up.sh", "# shellcheck source-path=SCRIPTDIR source=common.sh\n", ("lab/common.sh", "common.sh")),
    ("bench/fleet.sh", "# shellcheck source-path=SCRIPTDIR source=../lab/common.sh\n",
     ("lab/common.sh", "../lab/common.sh")),
    ("tests/rollback/run.sh", "# shellcheck source=lab/common.sh disable=SC1091\n",
     ("tests/rollback/lab/common.sh", "lab/common.sh")),
    ("x.sh", "# shellcheck disable=SC2034\nsource y.sh\n", ()),
])
def test_sourced_files(where, text, expected):
    assert hc.sourced_files(text, where) == expected


def test_functions_running_arguments():
    text = ('a() { nsenter -t "$1" -n -- "$@"; }\nb() { for x in "$@"; do echo "$x"; done; }\n'
            'c() {\n  local x=1\n  ssh h "$@" >/dev/null\n}\nd() { printf "%s" "$*"; }\n')
    assert hc.functions_running_arguments(text) == ["a", "c"]


def test_parse_errors_name_the_line():
    assert hc.parse_errors("echo a\necho b\nfi )\n") == [3]
    assert hc.parse_errors("echo fine\n") == []


def test_makefile_recipes_only_follow_rules():
    text = (".PHONY: a b \\\n\tnot-a-command c\nVAR := x\n\nall: dep\n\t@echo hi\n\t$(MAKE) -j2 sub\n"
            "\t-rm -f $(VAR) \\\n\t  && ping -c1 x\n\tfor s in $(LIST); do molecule test -s $$s; done\n"
            "X = 1\n\tnot-a-recipe\n")
    assert names(hc.makefile_uses(text, "Makefile")) == ["make", "rm", "ping", "molecule"]
    assert [line for line, _body in hc.makefile_recipes(text)] == [6, 7, 8, 10]


def test_python_uses():
    text = '''
import shutil, subprocess
HOST_COMMANDS = ("dash", "busybox")
subprocess.run(["podman", "inspect", name], check=True)
subprocess.Popen(argv)
sh(["ansible", "--version"])
shutil.which("chromium")
run(["lab/up.sh"])
subprocess.run(["timeout", "5", "iperf3", "-c", host])
'''
    assert sorted(names(hc.python_uses(text, "x.py"))) == sorted(
        ["dash", "busybox", "podman", "ansible", "chromium", "timeout", "iperf3"])


def test_python_uses_more_forms():
    text = """
import os, subprocess
HOST_COMMANDS: tuple = ("dash",)
subprocess.run(['setsid'] + argv, check=True)
subprocess.run(args=['tc', 'qdisc'])
subprocess.run('nft list ruleset | grep x', shell=True)
os.system('modprobe tcp_bbr')
os.execvp('curl', ['curl', 'x'])
subprocess.run(['test', '-e', path])
"""
    assert sorted(names(hc.python_uses(text, "x.py"))) == sorted(
        ["dash", "setsid", "tc", "nft", "grep", "modprobe", "curl", "test"])


def test_makefile_functions_and_automatic_variables():
    text = "x: y\n\tcurl -fsS u | jq . $(if $(V),-v,) > $@\n\tpandoc -o $@ $< $(shell git rev-parse HEAD)\n"
    assert names(hc.makefile_uses(text, "Makefile")) == ["curl", "jq", "pandoc", "git"]
    assert hc.makefile_parse_errors(text) == []
    assert hc.makefile_parse_errors("x:\n\tok\n\tfi )\n") == [3]


def test_python_uses_raises_on_non_python():
    with pytest.raises(SyntaxError):
        hc.python_uses("def (:\n", "x.py")


def test_every_function_that_runs_its_arguments_is_declared():
    """A new wrapper function (f() { something "$@"; }) must say in FUNCTION_WRAPPERS whether its
    arguments run on the host, elsewhere, or are options: otherwise its commands would go unchecked."""
    undeclared = []
    for kind, rel in check_host_packages.host_files(REPO):
        if kind != "shell":
            continue
        for name in hc.functions_running_arguments((REPO / rel).read_text(encoding="utf-8")):
            if "%s:%s" % (rel, name) not in hc.FUNCTION_WRAPPERS:
                undeclared.append("%s:%s" % (rel, name))
    assert undeclared == []
    assert len(hc.FUNCTION_WRAPPERS) >= 9      # the scan above found the current ones


def test_the_declared_wrappers_exist():
    for key in hc.FUNCTION_WRAPPERS:
        rel, name = key.split(":")
        assert name in hc.shell_functions((REPO / rel).read_text(encoding="utf-8")), key
