# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""banIP's live ICMP flood rule(s) from ``nft -t -a list chain inet banIP pre-routing``, and the nft
script that rewrites their rate in place.

(banip_icmp's own module until plugin_utils/parse/nft.py has the same functions; the lead unifies them.)

Which rules: in chain ``pre-routing`` of ``table inet banIP``, every rule that matches ICMP and
carries ``limit rate over N/second`` (banIP's f_nftinit, net/banip/files/banip-functions.sh):

- banIP 1.0.x (OpenWrt 23.05, @16c320b7fd): two drop rules, ``ip protocol icmp ...`` and
  ``ip6 nexthdr ipv6-icmp ...``, each counting into ``cnt-icmpflood``;
- banIP 1.5.x (24.10, @42525d32c4): one drop rule ``meta nfproto . meta l4proto { ipv4 . icmp,
  ipv6 . ipv6-icmp } limit rate over N/second ... counter name "cnt_icmpflood" drop`` (with
  logging on, its log statement sits in the same rule);
- banIP 1.8.x (25.12, @57654a9f48): that rule, and with logging on a second rule before it with the
  same match and limit and a log statement, no counter.

All of them carry banIP's limit and are rebuilt from ``ban_icmplimit`` by banIP's own (re)start, so
all of them are rewritten together. Format: nftables 1.0.6's text listing with ``-a`` (``# handle N``
at the end of each rule), as the lab's banIP model and tests/unit/fixtures/nft_chain/ record it. Pure
functions, no I/O.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

TABLE = "inet banIP"
CHAIN = "pre-routing"
_CHAIN_HEAD = re.compile(r"^chain (\S+) \{(?: # handle \d+)?$")
_HANDLE = re.compile(r"^(?P<rule>.*\S) # handle (?P<handle>\d+)$")
_LIMIT_OVER = re.compile(r"\blimit rate over (?P<rate>\d+)/second\b")
_ICMP = re.compile(r"\b(ip protocol icmp|ip6 nexthdr (ipv6-icmp|icmpv6)|ipv4 \. icmp|meta l4proto (icmp|ipv6-icmp|icmpv6))\b")
_COUNTER = re.compile(r'\bcounter name "?([A-Za-z0-9_-]+)"?')
# banIP's ICMP flood limit is 1-10000 packets/s in the role; nft takes any 32-bit rate
MAX_RATE_PER_SECOND = 4294967295


def parse_icmp_flood_rules(text: str) -> list:
    """``nft -t -a list chain inet banIP pre-routing`` → banIP's ICMP flood rules, in chain order.

    ``text``: the listing (``table inet banIP {`` / ``chain pre-routing { # handle 2`` / rules ending
    in ``# handle N`` / ``}``). Returns ``[{"handle": 7, "rate_per_second": 25, "counter":
    "cnt_icmpflood", "kind": "drop", "rule": "meta nfproto . meta l4proto { ipv4 . icmp, ipv6 .
    ipv6-icmp } limit rate over 25/second counter name \\"cnt_icmpflood\\" drop"}]``; ``kind`` is
    ``"drop"`` for a rule that drops, ``"log"`` for 1.8's separate log rule; ``rule`` is the rule as
    listed without its handle (rates in packets/s). ``[]`` for a chain without such a rule
    (``ban_icmplimit 0``). Raises ParseError when the text is not a listing of chain ``pre-routing``,
    or a rule has no handle (listed without ``-a``).
    """
    if not isinstance(text, str):
        raise ParseError("expected the text of nft -t -a list chain inet banIP pre-routing, got %s" % type(text).__name__)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) < 3 or lines[0] != "table %s {" % TABLE:
        raise ParseError("not a listing of table %s: %r" % (TABLE, lines[0] if lines else text))
    head = _CHAIN_HEAD.match(lines[1])
    if not head or head.group(1) != CHAIN:
        raise ParseError("not a listing of chain %s: %r" % (CHAIN, lines[1]))
    rules = []
    for line in lines[2:]:
        if line == "}" or line.startswith("type ") or line.startswith("policy "):
            continue
        match = _HANDLE.match(line)
        if not match:
            raise ParseError("rule without a handle (list the chain with -a): %r" % line)
        rule = match.group("rule")
        limit = _LIMIT_OVER.search(rule)
        if not limit or not _ICMP.search(rule):
            continue
        rate = int(limit.group("rate"))
        if not 0 < rate <= MAX_RATE_PER_SECOND:
            raise ParseError("ICMP flood rule with an impossible rate %d/second: %r" % (rate, line))
        counter = _COUNTER.search(rule)
        rules.append({"handle": int(match.group("handle")), "rate_per_second": rate,
                      "counter": counter.group(1) if counter else None,
                      "kind": "drop" if re.search(r"\bdrop$", rule) else "log", "rule": rule})
    return rules


def live_icmp_limit(rc, stdout) -> dict:
    """The live ICMP flood limit from a raw run of ``nft -t -a list chain inet banIP pre-routing``.

    ``rc``/``stdout``: the command's exit status and output. → ``{"chain_loaded": True, "rules":
    [...parse_icmp_flood_rules...], "rates_per_second": [25], "rate_per_second": 25}``;
    ``rate_per_second`` is the one rate all rules share, None when there is no rule or they differ
    (``rates_per_second`` lists each distinct rate, sorted). A failed listing (table or chain not
    loaded, e.g. while banIP rebuilds it) → ``{"chain_loaded": False, "rules": [],
    "rates_per_second": [], "rate_per_second": None}``. Raises ParseError on output that is not the
    chain's listing although the command succeeded.
    """
    if rc != 0:
        return {"chain_loaded": False, "rules": [], "rates_per_second": [], "rate_per_second": None}
    rules = parse_icmp_flood_rules(stdout)
    rates = sorted({rule["rate_per_second"] for rule in rules})
    return {"chain_loaded": True, "rules": rules, "rates_per_second": rates,
            "rate_per_second": rates[0] if len(rates) == 1 else None}


def live_icmp_limit_text(live) -> str:
    """``live_icmp_limit``'s answer in words: ``"25/s"``, ``"10/s and 250/s (rules differ)"``, ``"no ICMP flood
    rule"`` or ``"table inet banIP not loaded"``."""
    if not live.get("chain_loaded"):
        return "table %s not loaded" % TABLE
    rates = live.get("rates_per_second") or []
    if not rates:
        return "no ICMP flood rule"
    if len(rates) == 1:
        return "%d/s" % rates[0]
    return "%s (rules differ)" % " and ".join("%d/s" % rate for rate in rates)


def replace_script(rules, rate_per_second) -> list:
    """The nft script (one line per rule) that rewrites each rule's ``limit rate over N/second`` to ``rate_per_second``, in place.

    ``rules``: parse_icmp_flood_rules' list; ``rate_per_second``: 1-4294967295. →
    ``["replace rule inet banIP pre-routing handle 7 meta nfproto ... limit rate over 250/second
    counter name \\"cnt_icmpflood\\" drop"]``. ``nft -f`` applies the lines as one transaction: every
    rule is rewritten or none. The rule keeps its handle, position, match, log statement and named
    counter (its packet count goes on); banIP's sets are not touched. Raises ValueError for a rate
    outside 1-4294967295, or a rule without handle or limit.
    """
    if isinstance(rate_per_second, bool) or not isinstance(rate_per_second, int) or not 0 < rate_per_second <= MAX_RATE_PER_SECOND:
        raise ValueError("rate_per_second must be a whole number 1-%d, got %r" % (MAX_RATE_PER_SECOND, rate_per_second))
    script = []
    for rule in rules:
        text = rule.get("rule") if isinstance(rule, dict) else None
        if not isinstance(rule.get("handle") if text else None, int) or not _LIMIT_OVER.search(text):
            raise ValueError("not an ICMP flood rule with handle and limit: %r" % (rule,))
        new = _LIMIT_OVER.sub("limit rate over %d/second" % rate_per_second, text, count=1)
        script.append("replace rule %s %s handle %d %s" % (TABLE, CHAIN, rule["handle"], new))
    return script


def shell_quote(word) -> str:
    """``word`` as one single-quoted POSIX shell word (for the raw command that feeds the script to ``nft -f -``)."""
    return "'%s'" % str(word).replace("'", "'\\''")
