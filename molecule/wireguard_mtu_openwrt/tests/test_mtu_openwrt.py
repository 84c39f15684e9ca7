# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""wireguard_mtu on the python-free router: wg0 at 1340 live and in uci, the MSS clamp as a fw4 include and live."""

import re

INCLUDE = "/usr/share/nftables.d/chain-post/mangle_forward/tunnelfix-mss-wg0.nft"
RULES = ['%s "wg0" meta nfproto %s tcp flags syn / fin,syn,rst tcp option maxseg size > %d tcp option maxseg size set %d '
         'comment "tunnelfix-mss wg0"' % (way, family, mss, mss)
         for way in ("oifname", "iifname") for family, mss in (("ipv4", 1300), ("ipv6", 1280))]


def _rules(listing):
    """The rules of an ``nft -a list chain`` listing, without their handles."""
    return [re.sub(r" # handle \d+$", "", line.strip()) for line in listing.splitlines()
            if re.search(r" # handle \d+$", line) and not line.strip().startswith(("chain ", "table "))]


def test_live_mtu(host):
    """The running device, as the kernel reports it."""
    link = host.check_output("ip -o link show dev wg0")
    assert re.search(r" mtu (\d+) ", link).group(1) == "1340", link


def test_mtu_committed_in_uci(uci_get, uci_changes):
    assert uci_get("network.wg0.mtu") == "1340"
    assert uci_changes("network") == []


def test_the_include_holds_the_clamp_rules(host):
    include = host.file(INCLUDE)
    assert include.content_string.splitlines() == RULES
    assert include.mode == 0o644


def test_the_live_chain_holds_exactly_those_rules(host):
    """Judged by the live ruleset: fw4's table and chain, declared as fw4 declares mangle_forward."""
    listing = host.check_output("nft -a list chain inet fw4 mangle_forward")
    assert "type filter hook forward priority mangle; policy accept;" in listing
    assert [rule for rule in _rules(listing) if "tunnelfix-mss" in rule] == RULES


def test_what_a_fw4_reload_builds_from_the_include_is_the_live_rule(host):
    """fw4 puts chain-post/mangle_forward/*.nft as an include at the end of its mangle_forward chain (firewall4
    ruleset.uc, fw4.uc): built that way in a scratch table, the include gives the same rules the role loaded live."""
    lines = ("table inet tunnelfix_reload_check {", "chain mangle_forward {",
             "type filter hook forward priority mangle; policy accept;", 'include "%s"' % INCLUDE, "}", "}")
    try:
        host.check_output("printf '%%s\\n' %s | nft -f -" % " ".join("'%s'" % line for line in lines))
        reloaded = _rules(host.check_output("nft -a list chain inet tunnelfix_reload_check mangle_forward"))
    finally:
        host.run("nft delete table inet tunnelfix_reload_check")
    live = [rule for rule in _rules(host.check_output("nft -a list chain inet fw4 mangle_forward")) if "tunnelfix-mss" in rule]
    assert reloaded == live == RULES


def test_the_include_is_kept_across_sysupgrade(host):
    """sysupgrade keeps what a line of /etc/sysupgrade.conf names (blank and ``#`` lines skipped, each word a path:
    package/base-files/files/sbin/sysupgrade): the include once, in the role's marked block, the user's lines as they were."""
    lines = host.file("/etc/sysupgrade.conf").content_string.splitlines()
    assert lines == ["## kept over a firmware upgrade", "# /etc/example.conf", "/etc/tunnelfix-user.conf",
                     "# BEGIN tunnelfix.fleet wireguard_mtu wg0", INCLUDE, "# END tunnelfix.fleet wireguard_mtu wg0"]
    named = [word for line in lines if line.strip() and not line.startswith("#") for word in line.split()]
    assert named.count(INCLUDE) == 1 and host.file(INCLUDE).is_file


def test_no_guard_left(host):
    assert not host.file("/var/run/tunnelfix-rollback/wireguard_mtu.lock").exists
