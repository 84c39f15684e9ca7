# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read banIP's named nft counters and its ICMP flood limit from ``nft [-t] [-j] list ...``.

Format: nftables 1.0.6 (``nft -j`` JSON schema 1, and the text ``nft list`` prints). Recorded
from the table each release's own ``f_nftinit`` loads (net/banip/files/banip-functions.sh of
openwrt/packages openwrt-23.05@16c320b7fd = banIP 1.0.1, openwrt-24.10@42525d32c4 = 1.5.6,
openwrt-25.12@57654a9f48 = 1.8.12; tests/unit/fixtures/README.md):

* 1.0.1: counter ``cnt-icmpflood`` (``cnt_icmpflood`` from 1.5.0); two rules (one from
  1.5.3), ``ip protocol icmp limit rate over N/second ...`` and ``ip6 nexthdr ipv6-icmp limit
  rate over N/second ...``, each its own bucket; chain ``pre-routing`` at priority -150
  (``mangle`` in the listing; -175 from 1.5.1).
* 1.5.6: counter ``cnt_icmpflood``; one rule ``meta nfproto . meta l4proto { ipv4 . icmp, ipv6 .
  ipv6-icmp } limit rate over N/second ...``; priority -175. With pre-routing logging on, the
  same rule carries the log and a second limit, ``... limit rate over N/second log prefix
  "banIP/pre-icmp/drop: " limit rate 10/second counter name "cnt_icmpflood" drop``: the
  ``limit rate 10/second`` (no ``over``) throttles the log and the drop, it is not the flood limit.
* 1.8.12: as 1.5.6 without logging; with logging a separate log rule comes first, with the same
  match and ``limit rate over N/second`` but no counter (``... limit name "loglimit" log prefix
  ...``), then the counter/drop rule.

``-t`` (terse) leaves set elements out and nothing these functions read. Pass JSON where the
router's nft has ``-j``; text otherwise. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.target_json import load_target_json

# banIP >= 1.5.0 and older names of the ICMP flood counter
ICMP_COUNTER_NAMES = ("cnt_icmpflood", "cnt-icmpflood")

_TABLE = re.compile(r"^table (\S+) (\S+) \{$")
_COUNTER_BLOCK = re.compile(r"^counter (\S+) \{$")
_PACKETS = re.compile(r"^packets (\d+) bytes (\d+)$")
_RULE_COUNTER = re.compile(r'counter name "?(%s)"?' % "|".join(re.escape(name) for name in ICMP_COUNTER_NAMES))
# the flood limit: a packet rate the rule acts on when exceeded (a log rule's own ``limit rate 10/second`` has no ``over``)
_LIMIT = re.compile(r"limit rate over (\S+?)/(\S+)(?: burst (\d+) packets)?")
_HANDLE = re.compile(r"^(?P<rule>.*\S)\s+# handle (?P<handle>\d+)$")


def _is_json(text):
    return text.lstrip().startswith("{")


def _json_items(text):
    data = load_target_json(text, "nft -j")  # ParseError naming nft -j, also for hostile JSON
    items = data.get("nftables") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ParseError("nft -j output must be an object with an 'nftables' list")
    return [item for item in items if isinstance(item, dict)]


def _count(value, name, field):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ParseError("counter %r: %s must be a non-negative integer, got %r" % (name, field, value))
    return value


def _add(counters, tables, name, table, packets, bytes_):
    if name in counters and tables[name] != table:
        raise ParseError("counter %r is in tables %s and %s; pass table= to choose" % (name, tables[name], table))
    tables[name] = table
    counters[name] = {"packets": packets, "bytes": bytes_}


def _counters_json(text, table):
    counters, tables = {}, {}
    for item in _json_items(text):
        obj = item.get("counter")
        if not isinstance(obj, dict):
            continue
        name = obj.get("name")
        if not isinstance(name, str):
            raise ParseError("nft -j counter object without a name: %r" % (obj,))
        if table is not None and obj.get("table") != table:
            continue
        _add(counters, tables, name, obj.get("table"),
             _count(obj.get("packets"), name, "packets"), _count(obj.get("bytes"), name, "bytes"))
    return counters


def _counters_text(text, table):
    counters, tables = {}, {}
    current_table = current = None
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        match = _TABLE.match(stripped)
        if match:
            current_table = match.group(2)
            continue
        match = _COUNTER_BLOCK.match(stripped)
        if match:
            current = (match.group(1), lineno)
            continue
        if current is None:
            continue
        name, start = current
        match = _PACKETS.match(stripped)
        if match:
            if table is None or current_table == table:
                _add(counters, tables, name, current_table, int(match.group(1)), int(match.group(2)))
            current = None
        elif stripped == "}" or stripped.startswith("packets"):
            raise ParseError("nft list line %d: counter %r (line %d) has no 'packets N bytes N' line, got %r"
                             % (lineno, name, start, line[:200]))
    return counters


def parse_nft_counters(text: str, table=None) -> dict:
    """Parse the named counters in ``nft -j list counters`` / ``nft list table inet banIP``.

    JSON (nftables 1.0.6)::

        {"nftables": [{"metainfo": {...}}, {"counter": {"family": "inet", "name": "cnt_icmpflood",
         "table": "banIP", "handle": 2, "packets": 152, "bytes": 12748}}, ...]}

    or text::

        table inet banIP {
            counter cnt-icmpflood {
                packets 220417 bytes 18515028
            }

    → ``{"cnt_icmpflood": {"packets": 152, "bytes": 12748}}`` (``{"cnt-icmpflood": {"packets":
    220417, "bytes": 18515028}}`` for the text). Anonymous rule counters (``counter packets 0
    bytes 0 drop``) are not named and are left out. Keys are counter names; ``table``
    (``"banIP"``) keeps only that table's counters. Empty output → ``{}``.

    Raises ParseError for invalid or hostile JSON (too deep, huge numbers: ``_target_json``), a counter without integer packets/bytes (the line is
    named for text), or one name in two tables when ``table`` is not given.
    """
    if not isinstance(text, str):
        raise ParseError("nft output must be text, got %s" % type(text).__name__)
    if _is_json(text):
        return _counters_json(text, table)
    return _counters_text(text, table)


def _limit_from_json(limit, where):
    if not isinstance(limit, dict):
        raise ParseError("%s: limit must be an object, got %r" % (where, limit))
    if limit.get("rate_unit", "packets") != "packets" or limit.get("per") != "second":
        raise ParseError("%s: expected a packet rate per second, got %r" % (where, limit))
    rate, burst = limit.get("rate"), limit.get("burst")
    if isinstance(rate, bool) or not isinstance(rate, int):
        raise ParseError("%s: limit rate must be an integer, got %r" % (where, rate))
    if burst is not None and (isinstance(burst, bool) or not isinstance(burst, int)):
        raise ParseError("%s: limit burst must be an integer, got %r" % (where, burst))
    return rate, burst


def _flood_limits_json(exprs):
    """The flood limits of a rule's expressions: ``limit rate over`` (``"inv": true``); a log's own limit and a named one are not."""
    return [expr["limit"] for expr in exprs if isinstance(expr.get("limit"), dict) and expr["limit"].get("inv") is True]


def _icmp_limits_json(text):
    found = []
    for item in _json_items(text):
        rule = item.get("rule")
        if not isinstance(rule, dict):
            continue
        exprs = [expr for expr in rule.get("expr") or [] if isinstance(expr, dict)]
        names = [expr["counter"] for expr in exprs if isinstance(expr.get("counter"), str) and expr["counter"] in ICMP_COUNTER_NAMES]
        if not names:
            continue
        where = "rule %s in chain %s" % (rule.get("handle"), rule.get("chain"))
        limits = _flood_limits_json(exprs)
        if not limits:
            raise ParseError("%s: counter %r without a 'limit rate over' expression" % (where, names[0]))
        rate, burst = _limit_from_json(limits[0], where)
        found.append({"rate_per_second": rate, "burst_packets": burst, "counter": names[0]})
    return found


def _flood_limit_text(line, lineno, what):
    """``(rate, burst or None, match)`` of the line's ``limit rate over N/second [burst B packets]``; ParseError when it has none."""
    limit = _LIMIT.search(line)
    if not limit or not limit.group(1).isdigit() or limit.group(2) != "second":
        raise ParseError("nft list line %d: %s has no 'limit rate over N/second', got %r" % (lineno, what, line.strip()[:200]))
    return int(limit.group(1)), int(limit.group(3)) if limit.group(3) else None, limit


def _icmp_limits_text(text):
    found = []
    for lineno, line in enumerate(text.splitlines(), 1):
        counter = _RULE_COUNTER.search(line)
        if not counter:
            continue
        rate, burst, _limit = _flood_limit_text(line, lineno, "rule with counter %r" % counter.group(1))
        found.append({"rate_per_second": rate, "burst_packets": burst, "counter": counter.group(1)})
    return found


def find_icmp_limit(text: str):
    """Find banIP's ICMP flood limit rule in ``nft [-j] list chain inet banIP pre-routing`` (or table/ruleset).

    The rule is found by its counter, ``cnt_icmpflood`` (banIP >= 1.5.0) or ``cnt-icmpflood``
    (older), whatever it matches on. banIP 1.8 text::

        meta nfproto . meta l4proto { ipv4 . icmp, ipv6 . ipv6-icmp } limit rate over 25/second
        counter name "cnt_icmpflood" drop

    → ``{"rate_per_second": 25, "burst_packets": None, "counter": "cnt_icmpflood", "rules": 1,
    "rates_per_second": [25]}``; the same rule from ``nft -j`` gives ``"burst_packets": 5``: nft 1.0.6
    leaves the default burst of 5 packets out of its text, so text without ``burst N packets`` gives None.
    banIP before 1.5.3 has one rule per family (``ip protocol icmp``, ``ip6 nexthdr
    ipv6-icmp``), each its own bucket: ``rules`` is 2 and the values are the first rule's (the
    IPv4 one, the bucket mwan3track's IPv4 pings share); ``rates_per_second`` lists every rule's
    limit in rule order (``[250, 10]``: the IPv6 rule still at 10/s), which the fault's plan
    decides from as the fixing role does. The limit is the rule's ``limit rate
    over``: banIP 1.5.6's logging rule also holds ``limit rate 10/second`` (the log's), which is
    not read; banIP 1.8's separate log rule has no counter and is not counted. ``nft -t`` output
    gives the same answer.

    Returns None when no rule uses either counter (banIP not loaded, or no ICMP limiter in the
    listed chain/table).
    Raises ParseError for invalid or hostile JSON (``_target_json``), or a rule with the counter but no ``limit rate over``
    in packets per second (the line or rule handle is named).
    """
    if not isinstance(text, str):
        raise ParseError("nft output must be text, got %s" % type(text).__name__)
    found = _icmp_limits_json(text) if _is_json(text) else _icmp_limits_text(text)
    if not found:
        return None
    return dict(found[0], rules=len(found), rates_per_second=[rule["rate_per_second"] for rule in found])


def icmp_flood_counter(counters: dict):
    """Pick banIP's ICMP flood counter out of parse_nft_counters' result, whichever name it has.

    ``{"cnt_icmpflood": {"packets": 152, "bytes": 12748}, "cnt_udpflood": {...}}`` →
    ``{"name": "cnt_icmpflood", "packets": 152, "bytes": 12748}``; ``{"cnt-icmpflood": ...}``
    (banIP before 1.5.0) → the same with ``"name": "cnt-icmpflood"``. Returns None when neither
    name is there (banIP's table not loaded). Raises ParseError when ``counters`` is not a dict.
    """
    if not isinstance(counters, dict):
        raise ParseError("counters must be a dict from parse_nft_counters, got %s" % type(counters).__name__)
    for name in ICMP_COUNTER_NAMES:
        if name in counters:
            return dict(counters[name], name=name)
    return None


def icmp_flood_rules(text: str) -> list:
    """banIP's ICMP flood-limit rules, with handle and text, from ``nft -a list chain inet banIP pre-routing``.

    For replacing a rule in place: ``nft replace rule inet banIP pre-routing handle H <rule>``
    with ``rule`` from replace_flood_rate keeps the handle and the named counter's value
    (checked with nftables 1.0.6 on every release's table). The flood rules are the rules with
    the ICMP counter (``cnt_icmpflood``/``cnt-icmpflood``, ``"kind": "drop"``) and, from banIP
    1.8 with pre-routing logging on, the log rule in front of one: no counter, the same match
    and ``limit rate over N/second`` (``"kind": "log"``). banIP writes both from one
    ``ban_icmplimit``, so both are returned. banIP 1.0.1 text (tests/unit/fixtures/nft_a_list_chain/23.05_banip_default.txt)::

        ip protocol icmp limit rate over 10/second counter name "cnt-icmpflood" drop # handle 16
        ip6 nexthdr ipv6-icmp limit rate over 10/second counter name "cnt-icmpflood" drop # handle 17

    → ``[{"handle": 16, "rule": 'ip protocol icmp limit rate over 10/second counter name
    "cnt-icmpflood" drop', "kind": "drop", "counter": "cnt-icmpflood", "rate_per_second": 10,
    "burst_packets": None}, {"handle": 17, ...}]`` in chain order. ``burst_packets`` is None
    where nft hides the default burst (5). ``[]`` when the chain has no such rule
    (``ban_icmplimit`` 0) or the text is empty.

    Raises ParseError naming the line for a flood rule without ``# handle N`` (not ``nft -a``
    output) or with a counter but no ``limit rate over N/second``, and for input that is not text.
    """
    if not isinstance(text, str):
        raise ParseError("nft -a list chain output must be text, got %s" % type(text).__name__)
    rules = []
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if "limit rate over" not in stripped and not _RULE_COUNTER.search(stripped):
            continue
        rules.append((lineno, stripped))
    drops = []
    for lineno, stripped in rules:
        counter = _RULE_COUNTER.search(stripped)
        if counter:
            _rate, _burst, limit = _flood_limit_text(stripped, lineno, "rule with counter %r" % counter.group(1))
            drops.append(stripped[:limit.start()])
    found = []
    for lineno, stripped in rules:
        counter = _RULE_COUNTER.search(stripped)
        limit = _LIMIT.search(stripped)
        if counter is None and not (limit and stripped[:limit.start()] in drops):
            continue  # another flood limit (UDP, SYN)
        what = "rule with counter %r" % counter.group(1) if counter else "ICMP flood log rule"
        rate, burst, _limit = _flood_limit_text(stripped, lineno, what)
        handle = _HANDLE.match(stripped)
        if not handle:
            raise ParseError("nft list line %d: %s without '# handle N' (list the chain with nft -a), got %r"
                             % (lineno, what, stripped[:200]))
        found.append({"handle": int(handle.group("handle")), "rule": handle.group("rule"),
                      "kind": "drop" if counter else "log", "counter": counter.group(1) if counter else None,
                      "rate_per_second": rate, "burst_packets": burst})
    return found


def replace_flood_rate(rule: str, rate_per_second) -> str:
    """A flood rule's text with its ``limit rate over N/second`` set to ``rate_per_second``; nothing else changes.

    ``rule``: one rule's text as icmp_flood_rules returns it. ``'meta nfproto . meta l4proto {
    ipv4 . icmp, ipv6 . ipv6-icmp } limit rate over 25/second log prefix "banIP/pre-icmp/drop: "
    limit rate 10/second counter name "cnt_icmpflood" drop'`` (banIP 1.5.6 with logging), 250 →
    the same with ``limit rate over 250/second``; the log's ``limit rate 10/second``, a named
    ``limit name "loglimit"`` and a ``burst N packets`` stay as they are.

    Raises ValueError naming ``rate_per_second`` when it is not a whole number 1 or more (0 means
    no rule in banIP: remove it, do not replace it), and ParseError when the rule has no
    ``limit rate over N/second`` or more than one, or carries a ``# handle`` comment.
    """
    if isinstance(rate_per_second, bool) or not isinstance(rate_per_second, int) or rate_per_second < 1:
        raise ValueError("rate_per_second must be a whole number 1 or more, got %r" % (rate_per_second,))
    if not isinstance(rule, str):
        raise ParseError("rule must be text, got %s" % type(rule).__name__)
    limits = list(_LIMIT.finditer(rule))
    if len(limits) != 1 or not limits[0].group(1).isdigit() or limits[0].group(2) != "second":
        raise ParseError("rule must hold exactly one 'limit rate over N/second', got %r" % rule[:200])
    if "# handle" in rule:
        raise ParseError("rule must be the rule's text without its '# handle N' comment, got %r" % rule[:200])
    limit = limits[0]
    return rule[:limit.start(1)] + str(rate_per_second) + rule[limit.end(1):]
