# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""TCP MSS clamping rules and whether they cover a tunnel, in each direction.

Pure functions, no I/O. Two sources, both as recorded (Debian 12, nftables v1.0.6, iptables v1.8.9):

* ``nft list ruleset`` (text): a rule holding ``tcp option maxseg size set rt mtu`` (clamp to the
  route's MTU) or ``... size set 1240`` (a fixed size), with its ``oifname``/``iifname`` (or
  ``oif``/``iif``) matches: a name ``"wg0"``, a wildcard ``"tun*"``, an anonymous set
  ``{ "wg0", "tailscale0" }``, a named set ``@vpn`` (members unknown), each possibly ``!=``. OpenWrt's
  firewall4 writes one rule per zone with ``option mtu_fix 1``: ``oifname ... maxseg size set rt mtu``
  in ``mangle_postrouting`` (egress) and ``iifname ...`` in ``mangle_forward`` (ingress); iptables-nft
  rules are listed translated the same way.
* ``iptables-save`` (every table): ``-j TCPMSS --clamp-mss-to-pmtu`` or ``--set-mss N`` with
  ``-o``/``-i`` (``+`` a wildcard, ``! -o`` a negation); wg-quick's usual PostUp clamp is
  ``-t mangle -A POSTROUTING -o %i ... -j TCPMSS --clamp-mss-to-pmtu``.

A rule with ``oifname`` of the tunnel clamps the SYNs forwarded INTO it (``to_tunnel``); ``iifname``
of the tunnel the SYNs coming OUT of it (``from_tunnel``); a rule without an interface match clamps
both, and so does one that only excludes devices (``oifname != "eth0"``). A rule with no match on
the tunnel's side that names devices on the other (firewall4's ``oifname "wan"`` for the wan zone)
is another device's clamp and does not count. The kernel's ``rt mtu`` and ``--clamp-mss-to-pmtu`` take the smaller MTU of the route to the
destination and of the route back to the source (net/netfilter/nft_rt.c, xt_TCPMSS.c), so either
rule fits the SYN to the tunnel. A fixed size counts where it is at most the tunnel's MTU less
TCP_IPV4_HEADERS_BYTES. Rules in chains that only see the host's own traffic (nft base chains on
the ``input`` or ``output`` hook, iptables ``INPUT``/``OUTPUT``) are left out; jumps are not
followed: a rule in a regular chain counts whatever jumps to it.
"""

from __future__ import annotations

import re
import shlex

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.numbers import is_int

# IPv4 and TCP headers without options: the MSS that fits an MTU is the MTU less these
TCP_IPV4_HEADERS_BYTES = 40
# the hooks (nft) and built-in chains (iptables) that see only the host's own packets
LOCAL_HOOKS = ("input", "output")
DIRECTIONS = {"to_tunnel": "oifname", "from_tunnel": "iifname"}
PATH_MTU = "pmtu"  # rt mtu / --clamp-mss-to-pmtu

_NFT_TABLE = re.compile(r"^table (\S+) (\S+) \{$")
_NFT_CHAIN = re.compile(r"^chain (\S+) \{$")
_NFT_HOOK = re.compile(r"^type \S+ hook (\S+) ")
_NFT_SET_MSS = re.compile(r"\btcp option maxseg size set (?:(?P<rt>rt mtu)|(?P<size>\d+))(?:\s|$)")
_NFT_IFACE = re.compile(r"(?:^|\s)(?P<key>iifname|oifname|iif|oif) (?P<neg>!= )?"
                        r"(?P<value>\"(?:[^\"\\]|\\.)*\"|\{[^}]*\}|@\S+)")
_QUOTED = re.compile(r"\"((?:[^\"\\]|\\.)*)\"")
_IPT_CHAINS = ("PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING")


def _condition(op, value):
    """``{"op": "==" | "!=", "names": [...] | None}``: None for a named set (its members are not read)."""
    if value.startswith("@"):
        return {"op": op, "names": None}
    return {"op": op, "names": [name.replace("\\", "") for name in _QUOTED.findall(value)]}


def _nft_rule(line, lineno, chain, hook):
    found = _NFT_SET_MSS.search(line)
    if not found:
        raise ParseError("nft list ruleset line %d: a maxseg rule without 'size set rt mtu' or 'size set N', got %r"
                         % (lineno, line.strip()[:200]))
    rule = {"source": "nft", "line": lineno, "chain": chain, "hook": hook,
            "mss": PATH_MTU if found.group("rt") else int(found.group("size")), "oifname": [], "iifname": []}
    for match in _NFT_IFACE.finditer(line[:found.start()]):
        key = "oifname" if match.group("key").startswith("o") else "iifname"
        rule[key].append(_condition("!=" if match.group("neg") else "==", match.group("value")))
    return rule


def parse_nft_mss_clamps(text: str) -> list:
    """Parse ``nft list ruleset`` into its MSS clamping rules.

    firewall4 with ``mtu_fix`` on a zone of wg0 and tailscale0 (nftables 1.0.6)::

        table inet fw4 {
            chain mangle_postrouting {
                type filter hook postrouting priority mangle; policy accept;
                oifname { "wg0", "tailscale0" } tcp flags syn / fin,syn,rst tcp option maxseg size set rt mtu comment "..."

    (nft indents with tabs) → ``[{"source": "nft", "line": 4, "chain": "inet fw4 mangle_postrouting", "hook": "postrouting",
    "mss": "pmtu", "oifname": [{"op": "==", "names": ["wg0", "tailscale0"]}], "iifname": []}]``.
    ``mss`` is ``"pmtu"`` (``rt mtu``) or the fixed size in bytes; ``hook`` None for a regular chain.
    Empty output (no ruleset) → ``[]``.

    Raises ParseError naming the line for a rule that sets maxseg to something else, or a rule
    outside any chain.
    """
    if not isinstance(text, str):
        raise ParseError("nft list ruleset output must be text, got %s" % type(text).__name__)
    rules, table, chain, hook = [], None, None, None
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        found = _NFT_TABLE.match(stripped)
        if found:
            table, chain, hook = "%s %s" % found.groups(), None, None
            continue
        found = _NFT_CHAIN.match(stripped)
        if found:
            chain, hook = "%s %s" % (table, found.group(1)), None
            continue
        found = _NFT_HOOK.match(stripped)
        if found and chain:
            hook = found.group(1)
            continue
        if "tcp option maxseg size set" not in stripped:
            continue
        if chain is None:
            raise ParseError("nft list ruleset line %d: a maxseg rule outside any chain: %r" % (lineno, stripped[:200]))
        rules.append(_nft_rule(stripped, lineno, chain, hook))
    return rules


def _ipt_rule(words, lineno, table):
    chain = words[1]
    rule = {"source": "iptables", "line": lineno, "chain": "%s %s" % (table, chain),
            "hook": chain.lower() if chain in _IPT_CHAINS else None, "mss": None, "oifname": [], "iifname": []}
    # each word with the one before it (a "!" there negates it) and the two after it (its value; "! NAME" in old iptables)
    for before, word, after, second in zip(words[1:], words[2:], words[3:] + [None], words[4:] + [None, None]):
        if word in ("-o", "-i", "--out-interface", "--in-interface") and after is not None:
            negate, value = before == "!", after
            if after == "!" and second is not None:  # iptables before 1.4.3: -o ! wg0
                negate, value = True, second
            name = value[:-1] + "*" if value.endswith("+") else value
            rule["oifname" if word in ("-o", "--out-interface") else "iifname"].append(
                {"op": "!=" if negate else "==", "names": [name]})
        elif word == "--clamp-mss-to-pmtu":
            rule["mss"] = PATH_MTU
        elif word == "--set-mss" and after is not None and after.isdigit():
            rule["mss"] = int(after)
    if rule["mss"] is None:
        raise ParseError("iptables-save line %d: -j TCPMSS without --clamp-mss-to-pmtu or --set-mss N" % lineno)
    return rule


def parse_iptables_save_mss_clamps(text: str) -> list:
    """Parse ``iptables-save`` (all tables) into its TCPMSS rules.

    wg-quick's PostUp clamp (iptables v1.8.9)::

        *mangle
        -A POSTROUTING -o wg0 -p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu

    → ``[{"source": "iptables", "line": 2, "chain": "mangle POSTROUTING", "hook": "postrouting",
    "mss": "pmtu", "oifname": [{"op": "==", "names": ["wg0"]}], "iifname": []}]``; ``-o wg+`` gives
    the wildcard ``"wg*"``, ``! -o eth0`` ``{"op": "!=", ...}``, ``--set-mss 1240`` ``"mss": 1240``;
    ``hook`` None for a user chain. ``#`` comments and the other rules are skipped; empty output → ``[]``.

    Raises ParseError naming the line for a rule that does not split as shell words, a TCPMSS
    rule with neither option, or a rule before any ``*table`` line.
    """
    if not isinstance(text, str):
        raise ParseError("iptables-save output must be text, got %s" % type(text).__name__)
    rules, table = [], None
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("*"):
            table = stripped[1:]
            continue
        if not stripped.startswith("-A ") or "TCPMSS" not in stripped:
            continue
        try:
            words = shlex.split(stripped)
        except ValueError as exc:
            raise ParseError("iptables-save line %d: %s: %r" % (lineno, exc, stripped[:200])) from None
        if "-j" not in words or words[words.index("-j") + 1:][:1] != ["TCPMSS"]:
            continue
        if table is None:
            raise ParseError("iptables-save line %d: a rule before any *table line" % lineno)
        rules.append(_ipt_rule(words, lineno, table))
    return rules


def _name_matches(pattern, name):
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def _accepts(condition, device):
    """Whether an interface condition lets ``device`` through: True, False, or None (a named set)."""
    if condition["names"] is None:
        return None
    hit = any(_name_matches(pattern, device) for pattern in condition["names"])
    return hit if condition["op"] == "==" else not hit


def rule_covers(rule, key, device, mtu_bytes):
    """Whether ``rule`` clamps the SYNs whose ``key`` (oifname or iifname) is ``device``: True, False, None (unknown)."""
    if rule["hook"] in LOCAL_HOOKS:
        return False
    other = rule["iifname" if key == "oifname" else "oifname"]
    if not rule[key] and any(condition["op"] == "==" for condition in other):
        return False  # another device's clamp (firewall4's oifname "wan")
    if rule["mss"] != PATH_MTU:
        if not is_int(mtu_bytes):
            return None
        if rule["mss"] > mtu_bytes - TCP_IPV4_HEADERS_BYTES:
            return False
    answers = [_accepts(condition, device) for condition in rule[key]]
    if False in answers:
        return False
    return None if None in answers else True


def tunnel_mss_clamp(rules, device, mtu_bytes, complete) -> dict:
    """``{"to_tunnel": ..., "from_tunnel": ...}`` for ``device``: True (a rule clamps), False (none does), None (unknown).

    ``rules``: the rules of every source read; ``complete``: every installed source was read (see
    ``clamp_sources``). False only when complete and no rule could apply; a named set or a fixed
    size against an unknown MTU leaves it None.
    """
    out = {}
    for direction, key in DIRECTIONS.items():
        answers = [rule_covers(rule, key, device, mtu_bytes) for rule in rules]
        out[direction] = True if True in answers else None if (None in answers or not complete) else False
    return out


def clamp_sources(results) -> dict:
    """The rules of the sources that could be read, and how each was read.

    ``results``: ``{"nft": (status, text), "iptables": (status, text)}`` where status is ``"read"``
    (the command ran: ``text`` is its output), ``"not installed"``, or why it could not be read
    (``"rc=1: Operation not permitted (you must be root)"``). Output::

        {"rules": [...],                            # parse_nft_mss_clamps + parse_iptables_save_mss_clamps
         "sources": {"nft": "read", "iptables": "not installed"},
         "complete": True}                          # every installed source read, and at least one

    A source whose output does not parse counts as not read: its status becomes the ParseError's
    text. Raises ParseError when ``results`` has another shape.
    """
    parsers = {"nft": parse_nft_mss_clamps, "iptables": parse_iptables_save_mss_clamps}
    if not isinstance(results, dict) or set(results) != set(parsers):
        raise ParseError("clamp sources must be a dict with nft and iptables, got %r" % (results,))
    rules, sources = [], {}
    for name, parser in parsers.items():
        status, text = results[name]
        if status == "read":
            try:
                rules.extend(parser(text))
            except ParseError as exc:
                status = str(exc)[:200]
        sources[name] = status
    complete = all(status in ("read", "not installed") for status in sources.values()) and "read" in sources.values()
    return {"rules": rules, "sources": sources, "complete": complete}
