# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decode JSON a target printed (``iperf3 -J``, ``nft -j``, ``ip -j``): every failure is a ParseError naming the command.

A target's output is untrusted input. ``json.loads`` alone lets some of it escape as errors no caller
expects and whose message names no command: nesting deeper than the interpreter's recursion limit
(``[[[[...``, 100000 levels) raises RecursionError; an integer of more than 4300 digits raises a plain
ValueError on Python >= 3.11 (``sys.get_int_max_str_digits()``); a value that is no text raises
TypeError. Nesting just below the recursion limit decodes, and then breaks a caller that walks the
value recursively (``_iperf3._non_finite_places``). ``load_target_json`` turns each into
``ParseError`` (``NotJSON`` for text that is not JSON at all, so a caller can try another reading
or give its own hint), and refuses values nested deeper than ``MAX_DEPTH``: real output of the
commands read here nests fewer than 20 levels (``nft -j`` rules, the deepest, about 12).

Pure; no I/O.
"""

from __future__ import annotations

import json

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError

# Containers (objects and arrays) inside each other, the outermost counting as 1.
MAX_DEPTH = 100


class NotJSON(ParseError):
    """The text is not JSON (``json.JSONDecodeError``): ``command``, and ``lineno``/``colno``/``reason`` of the error.

    Message: ``"nft -j output is not JSON (line 1: Expecting value)"``.
    """

    def __init__(self, command, error):
        self.command, self.lineno, self.colno, self.reason = command, error.lineno, error.colno, error.msg
        super().__init__("%s output is not JSON (line %d: %s)" % (command, error.lineno, error.msg))


def _deeper_than(value, limit) -> bool:
    """Whether ``value`` (decoded JSON) has containers nested more than ``limit`` deep; iterative, so any depth."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def load_target_json(text, command: str, object_pairs_hook=None, max_depth: int = MAX_DEPTH):
    """``json.loads(text)`` of ``command``'s output, or ParseError naming ``command``; never another exception.

    ``load_target_json('[{"dst": "default"}]', "ip -j route show")`` → ``[{"dst": "default"}]``.
    ``object_pairs_hook`` is passed to ``json.loads`` (``_iperf3`` notes repeated keys with it).

    Raises (the message starts with ``"COMMAND output "``):

    * ``NotJSON`` for text that is not JSON (``"ip -j route show output is not JSON (line 1: Expecting value)"``);
    * ``ParseError`` for a value that is not text, nesting deeper than the interpreter can decode or
      than ``max_depth`` levels, and a number Python refuses to convert (over 4300 digits).
    """
    if not isinstance(text, str):
        raise ParseError("%s output must be text, got %s" % (command, type(text).__name__))
    try:
        value = json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise NotJSON(command, exc) from None
    except RecursionError:
        raise ParseError("%s output is JSON nested too deeply to read (no real output nests more than %d levels)"
                         % (command, max_depth)) from None
    except (ValueError, TypeError) as exc:  # ValueError: an int over sys.get_int_max_str_digits() digits
        raise ParseError("%s output holds a value that cannot be read: %s" % (command, str(exc).partition(";")[0][:160])) from None
    if isinstance(value, (dict, list)) and _deeper_than(value, max_depth):
        raise ParseError("%s output is JSON nested more than %d levels deep (no real output nests so deep)" % (command, max_depth))
    return value
