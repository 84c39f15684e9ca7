"""scripts/host_packages.py: the project's package lists and dpkg's answers, on recorded dpkg output."""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "unit" / "fixtures" / "dpkg_query_S"
sys.path.insert(0, str(REPO / "scripts"))

import host_packages as hp  # noqa: E402


def fixture(name):
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name, expected", [
    ("merged_usr_ping.txt", {"/bin/ping": ["iputils-ping"]}),
    ("diverted_sh.txt", {"/bin/sh": ["dash"]}),
    ("alternative_target_mawk.txt", {"/usr/bin/mawk": ["mawk"]}),
    ("unowned_alternative_awk.txt", {}),
])
def test_parse_dpkg_search(name, expected):
    assert hp.parse_dpkg_search(fixture(name)) == expected


def test_parse_dpkg_search_many_owners_drops_architectures():
    owners = hp.parse_dpkg_search(fixture("directory_many_owners.txt"))["/usr/share/doc"]
    assert owners[:3] == ["iperf3", "libiperf0", "libsctp1"]
    assert len(owners) == 25 and not any(":" in name for name in owners)


@pytest.mark.parametrize("path, expected", [
    ("/usr/bin/ping", ["/usr/bin/ping", "/bin/ping"]),
    ("/bin/ping", ["/bin/ping", "/usr/bin/ping"]),
    ("/usr/sbin/nft", ["/usr/sbin/nft", "/sbin/nft"]),
    ("/usr/local/bin/x", ["/usr/local/bin/x"]),
    ("/usr/binary", ["/usr/binary"]),
])
def test_merged_usr_spellings(path, expected):
    assert hp.merged_usr_spellings(path) == expected


LINKS = {"/usr/bin/awk": "/etc/alternatives/awk", "/etc/alternatives/awk": "/usr/bin/mawk",
         "/usr/bin/python3": "python3.11", "/usr/bin/loop": "/usr/bin/loop"}


def readlink(path):
    if path in LINKS:
        return LINKS[path]
    raise OSError(22, "not a link")


def dpkg(recorded):
    """A dpkg_search that answers from recorded stdout, one recording per path asked for (dpkg-query -S
    prints one line per owned path, in any order, so the recordings are concatenated)."""
    return lambda paths: "".join(recorded.get(path, "") for path in paths)


def test_owning_package_follows_merged_usr_and_alternatives():
    recorded = {"/usr/bin/ping": fixture("merged_usr_ping.txt"), "/usr/bin/awk": fixture("unowned_alternative_awk.txt"),
                "/etc/alternatives/awk": "", "/usr/bin/mawk": fixture("alternative_target_mawk.txt")}
    assert hp.owning_package("/usr/bin/ping", dpkg(recorded), readlink) == "iputils-ping"
    assert hp.owning_package("/usr/bin/awk", dpkg(recorded), readlink) == "mawk"


def test_owning_package_none_when_nobody_owns_it():
    assert hp.owning_package("/usr/local/bin/ping", dpkg({}), readlink) is None
    assert hp.owning_package("/usr/bin/loop", dpkg({}), readlink) is None      # a link loop ends


def test_link_chain_relative_target():
    assert hp.link_chain("/usr/bin/python3", readlink) == ["/usr/bin/python3", "/usr/bin/python3.11"]


def test_locate_uses_only_the_system_path():
    present = {"/usr/bin/ping", "/root/.pyenv/shims/python3", "/opt/x"}
    assert hp.locate("ping", is_executable=present.__contains__) == "/usr/bin/ping"
    assert hp.locate("python3", is_executable=present.__contains__) is None
    assert hp.locate("python3", ("/root/.pyenv/shims",), present.__contains__) == "/root/.pyenv/shims/python3"
    assert hp.locate("/opt/x", is_executable=present.__contains__) == "/opt/x"
    assert hp.locate("/opt/y", is_executable=present.__contains__) is None


def test_read_lists():
    assert hp.read_requirements_apt("# c\nmake\n\n  iperf3  # why\n") == {"make", "iperf3"}
    assert hp.read_requirements_pip("ansible-core==2.19.14\nPyYAML==6.0.4\nruamel.yaml==0.19\n# x\n") == {
        "ansible-core", "pyyaml", "ruamel-yaml"}
    assert hp.read_command_table("# c\nping  iputils-ping\nansible pip:ansible-core # x\n") == {
        "ping": "iputils-ping", "ansible": "pip:ansible-core"}


@pytest.mark.parametrize("text, error", [
    ("ping\n", "t.txt:1: want 'COMMAND PACKAGE', got 'ping'"),
    ("# c\nping a b\n", "t.txt:2: want 'COMMAND PACKAGE'"),
    ("ping a\nping b\n", "t.txt:2: ping is listed twice"),
])
def test_read_command_table_errors(text, error):
    with pytest.raises(hp.ListError, match=error.replace("(", r"\(")):
        hp.read_command_table(text, "t.txt")


def test_owning_package_none_when_a_owned_link_points_at_a_file_put_there_by_hand():
    links = {"/usr/bin/python3": "/usr/local/bin/python3.12"}

    def relink(path):
        if path in links:
            return links[path]
        raise OSError(22, "not a link")
    recorded = {"/usr/bin/python3": "python3-minimal: /usr/bin/python3\n"}
    assert hp.owning_package("/usr/bin/python3", dpkg(recorded), relink) is None


def test_owner_table_asks_dpkg_once_for_every_spelling_of_every_link():
    asked = []

    def search(paths):
        asked.append(list(paths))
        return fixture("merged_usr_ping.txt") + fixture("alternative_target_mawk.txt")
    owners = hp.owner_table(["/usr/bin/ping", "/usr/bin/awk"], search, readlink)
    assert asked == [["/bin/awk", "/bin/mawk", "/bin/ping", "/etc/alternatives/awk", "/usr/bin/awk",
                      "/usr/bin/mawk", "/usr/bin/ping"]]
    assert hp.owning_package("/usr/bin/awk", readlink=readlink, owners=owners) == "mawk"
    assert hp.owning_package("/usr/bin/ping", readlink=readlink, owners=owners) == "iputils-ping"
