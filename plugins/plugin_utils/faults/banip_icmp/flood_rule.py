# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""banIP's live ICMP flood limit from ``nft -t -a list chain inet banIP pre-routing``, and the nft
script that rewrites it in place (role banip_icmp).

Which rules carry the limit, per release, and how one rule's rate is rewritten is nft.py's
(icmp_flood_rules, replace_flood_rate: banIP 1.0.1's two per-family rules, 1.5.6's one shared rule,
1.8.12's log rule in front of it; tested on each release's recorded table). This module adds what
the role needs around them: that the listing is really banIP's ``pre-routing`` chain, the one rate all
rules share, the words for it, and the ``nft -f`` script. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.nft import icmp_flood_rules, replace_flood_rate

TABLE = "inet banIP"
CHAIN = "pre-routing"
_CHAIN_HEAD = re.compile(r"^chain (\S+) \{(?: # handle \d+)?$")
# nft takes any 32-bit rate; the role asks 1-10000 packets/s
MAX_RATE_PER_SECOND = 4294967295


def parse_icmp_flood_rules(text: str) -> list:
    """``nft -t -a list chain inet banIP pre-routing`` → banIP's ICMP flood rules, in chain order.

    ``text``: the listing (``table inet banIP {`` / ``chain pre-routing { # handle 2`` / rules ending
    in ``# handle N`` / ``}``). Returns nft.icmp_flood_rules' list: ``[{"handle": 7, "rate_per_second": 25,
    "counter": "cnt_icmpflood", "kind": "drop", "burst_packets": None, "rule": "meta nfproto . meta l4proto
    { ipv4 . icmp, ipv6 . ipv6-icmp } limit rate over 25/second counter name \\"cnt_icmpflood\\" drop"}]``;
    ``kind`` is ``"log"`` for 1.8's separate log rule. ``[]`` for a chain without such a rule
    (``ban_icmplimit 0``). Raises ParseError when the text is not a listing of chain ``pre-routing``
    of table ``inet banIP``, or as icmp_flood_rules does (a flood rule without a handle: not ``-a``).
    """
    if not isinstance(text, str):
        raise ParseError("expected the text of nft -t -a list chain inet banIP pre-routing, got %s" % type(text).__name__)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) < 3 or lines[0] != "table %s {" % TABLE:
        raise ParseError("not a listing of table %s: %r" % (TABLE, lines[0] if lines else text))
    head = _CHAIN_HEAD.match(lines[1])
    if not head or head.group(1) != CHAIN:
        raise ParseError("not a listing of chain %s: %r" % (CHAIN, lines[1]))
    rules = icmp_flood_rules(text)
    for rule in rules:
        if not 0 < rule["rate_per_second"] <= MAX_RATE_PER_SECOND:
            raise ParseError("ICMP flood rule with an impossible rate %s/second: %r" % (rule["rate_per_second"], rule["rule"]))
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
        if not isinstance(text, str) or not isinstance(rule.get("handle"), int):
            raise ValueError("not an ICMP flood rule with handle and limit: %r" % (rule,))
        try:
            new = replace_flood_rate(text, rate_per_second)
        except ParseError as exc:
            raise ValueError("not an ICMP flood rule with handle and limit: %s" % exc) from None
        script.append("replace rule %s %s handle %d %s" % (TABLE, CHAIN, rule["handle"], new))
    return script


def shell_quote(word) -> str:
    """``word`` as one single-quoted POSIX shell word (for the raw command that feeds the script to ``nft -f -``)."""
    return "'%s'" % str(word).replace("'", "'\\''")
