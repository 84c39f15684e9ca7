# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read banIP's named nft counters and its ICMP flood limit from ``nft -j list ...`` or ``nft list ...``.

Format: nftables 1.0.6 (``nft -j`` JSON schema 1, and the text ``nft list`` prints), recorded
with tables shaped like banIP 1.8 (``cnt_icmpflood``, one rule for IPv4 and IPv6) and banIP
1.0 (``cnt-icmpflood``, one rule per family). Pass JSON where the router's nft has ``-j``;
text otherwise. Pure functions, no I/O.
"""

from __future__ import annotations

import json
import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

# banIP >= 1.5.0 and older names of the ICMP flood counter
ICMP_COUNTER_NAMES = ("cnt_icmpflood", "cnt-icmpflood")

_TABLE = re.compile(r"^table (\S+) (\S+) \{$")
_COUNTER_BLOCK = re.compile(r"^counter (\S+) \{$")
_PACKETS = re.compile(r"^packets (\d+) bytes (\d+)$")
_RULE_COUNTER = re.compile(r'counter name "?(%s)"?' % "|".join(re.escape(name) for name in ICMP_COUNTER_NAMES))
_LIMIT = re.compile(r"limit rate (?:over )?(\S+?)/(\S+)(?: burst (\d+) packets)?")


def _is_json(text):
    return text.lstrip().startswith("{")


def _json_items(text):
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError("nft -j output is not JSON (line %d: %s)" % (exc.lineno, exc.msg)) from None
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

    Raises ParseError for invalid JSON, a counter without integer packets/bytes (the line is
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


def _icmp_limits_json(text):
    found = []
    for item in _json_items(text):
        rule = item.get("rule")
        if not isinstance(rule, dict):
            continue
        exprs = [expr for expr in rule.get("expr") or [] if isinstance(expr, dict)]
        names = [expr["counter"] for expr in exprs if expr.get("counter") in ICMP_COUNTER_NAMES]
        if not names:
            continue
        where = "rule %s in chain %s" % (rule.get("handle"), rule.get("chain"))
        limits = [expr["limit"] for expr in exprs if "limit" in expr]
        if not limits:
            raise ParseError("%s: counter %r without a 'limit' expression" % (where, names[0]))
        rate, burst = _limit_from_json(limits[0], where)
        found.append({"rate_per_second": rate, "burst_packets": burst, "counter": names[0]})
    return found


def _icmp_limits_text(text):
    found = []
    for lineno, line in enumerate(text.splitlines(), 1):
        counter = _RULE_COUNTER.search(line)
        if not counter:
            continue
        limit = _LIMIT.search(line)
        if not limit or not limit.group(1).isdigit() or limit.group(2) != "second":
            raise ParseError("nft list line %d: rule with counter %r has no 'limit rate [over] N/second', got %r"
                             % (lineno, counter.group(1), line.strip()[:200]))
        found.append({"rate_per_second": int(limit.group(1)),
                      "burst_packets": int(limit.group(3)) if limit.group(3) else None,
                      "counter": counter.group(1)})
    return found


def find_icmp_limit(text: str):
    """Find banIP's ICMP flood limit rule in ``nft [-j] list chain inet banIP pre-routing`` (or table/ruleset).

    The rule is found by its counter, ``cnt_icmpflood`` (banIP >= 1.5.0) or ``cnt-icmpflood``
    (older), whatever it matches on. banIP 1.8 text::

        meta nfproto . meta l4proto { ipv4 . icmp, ipv6 . ipv6-icmp } limit rate over 25/second
        counter name "cnt_icmpflood" drop

    → ``{"rate_per_second": 25, "burst_packets": None, "counter": "cnt_icmpflood", "rules": 1}``;
    the same rule from ``nft -j`` gives ``"burst_packets": 5``: nft 1.0.6 leaves the default
    burst of 5 packets out of its text, so text without ``burst N packets`` gives None.
    banIP before 1.5.3 has one rule per family (``ip protocol icmp``, ``ip6 nexthdr
    ipv6-icmp``), each its own bucket: ``rules`` is 2 and the values are the first rule's.

    Returns None when no rule uses either counter (banIP not loaded, or no ICMP limiter in the
    listed chain/table).
    Raises ParseError for invalid JSON, or a rule with the counter but no packets-per-second
    limit (the line or rule handle is named).
    """
    if not isinstance(text, str):
        raise ParseError("nft output must be text, got %s" % type(text).__name__)
    found = _icmp_limits_json(text) if _is_json(text) else _icmp_limits_text(text)
    if not found:
        return None
    return dict(found[0], rules=len(found))


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
