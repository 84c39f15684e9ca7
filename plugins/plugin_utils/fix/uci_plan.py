# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan one uci change: which ``uci`` commands a wanted option value needs, and the diff.

Pure functions, no I/O: the ``uci`` action plugin reads ``uci -q show CONFIG``, parses it with
``_uci.parse_uci_show(text, keep_secrets=True)``, calls plan_uci_change and runs the commands.
Commands follow the OpenWrt uci CLI: ``uci set c.s=type``, ``uci set c.s.o=value``,
``uci delete c.s[.o]``, ``uci add_list c.s.o=value``, ``uci del_list c.s.o=value``.
"""

from __future__ import annotations

import copy
import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import (
    REDACTED, format_uci_section, is_secret_option, is_secret_value, redact_uci, resolve_section, uci_quote)

REDACTED_CHANGED = "<redacted, changed>"
STATES = ("present", "absent")
LIST_MODES = ("replace", "add_list", "del_list")

_CONFIG = re.compile(r"[A-Za-z0-9_-]+")
_NAME = re.compile(r"[A-Za-z0-9_]+")
_TYPE = re.compile(r"[A-Za-z0-9_-]+")
_REF = re.compile(r"@[A-Za-z0-9_-]+\[-?\d+\]")


def normalize_uci_value(value, option="value"):
    """Turn a task value into what ``uci show`` would print back: a string or a list of strings.

    ``"1420"`` → ``"1420"``; ``1420`` → ``"1420"``; ``["10.0.0.0/24"]`` → ``["10.0.0.0/24"]``.
    Raises ParseError naming the option and value for booleans (write ``'1'``/``'0'``: YAML
    ``yes`` is ambiguous), floats, None, dicts, nested lists, an empty string (uci would delete
    the option) or an empty list.
    """
    if isinstance(value, bool):
        raise ParseError("%s: booleans are ambiguous in uci, write '1' or '0', got %r" % (option, value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if value == "":
            raise ParseError("%s: an empty value deletes the option in uci; use state=absent, got ''" % option)
        return value
    if isinstance(value, (list, tuple)):
        if not value:
            raise ParseError("%s: empty list; use state=absent to delete the option, got []" % option)
        items = []
        for item in value:
            if isinstance(item, (list, tuple, dict)) or item is None:
                raise ParseError("%s: list items must be strings, got %r" % (option, item))
            items.append(normalize_uci_value(item, option))
        return items
    raise ParseError("%s: value must be a string, an integer or a list of them, got %r" % (option, value))


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _shown(items):
    """What ``uci show`` parses back to for a list: None, one string, or a list."""
    if not items:
        return None
    return items[0] if len(items) == 1 else list(items)


def _same(current, wanted):
    return _as_list(current) == _as_list(wanted)


def _check_params(params):
    config, ref = params.get("config"), params.get("section")
    option, value = params.get("option"), params.get("value")
    state = params.get("state") or "present"
    list_mode = params.get("list_mode") or "replace"
    stype = params.get("type")
    if not isinstance(config, str) or not _CONFIG.fullmatch(config):
        raise ParseError("config must be [A-Za-z0-9_-]+, got %r" % (config,))
    if not isinstance(ref, str) or not (_NAME.fullmatch(ref) or _REF.fullmatch(ref)):
        raise ParseError("section must be a section name ([A-Za-z0-9_]+) or @type[N], got %r" % (ref,))
    if option is not None and (not isinstance(option, str) or not _NAME.fullmatch(option)):
        raise ParseError("option must be [A-Za-z0-9_]+, got %r" % (option,))
    if stype is not None and (not isinstance(stype, str) or not _TYPE.fullmatch(stype)):
        raise ParseError("type must be [A-Za-z0-9_-]+, got %r" % (stype,))
    if state not in STATES:
        raise ParseError("state must be one of %s, got %r" % (", ".join(STATES), state))
    if list_mode not in LIST_MODES:
        raise ParseError("list_mode must be one of %s, got %r" % (", ".join(LIST_MODES), list_mode))
    if state == "absent":
        if value is not None:
            raise ParseError("value is not used with state=absent (use list_mode=del_list to remove "
                             "list items), got %r" % ("<redacted>" if option and is_secret_option(option) else value,))
        if list_mode != "replace":
            raise ParseError("list_mode=%s needs state=present, got state=absent" % list_mode)
    elif option is not None and value is None:
        raise ParseError("value is required to set option %r (state=present)" % option)
    elif option is None and value is not None:
        raise ParseError("option is required with value")
    if list_mode != "replace" and option is None:
        raise ParseError("list_mode=%s needs option and value" % list_mode)
    if _REF.fullmatch(ref) and stype is not None:
        raise ParseError("type creates named sections only, got section %r" % ref)
    if value is not None:
        secret = is_secret_value(option, value)
        if secret and (isinstance(value, (list, tuple, dict)) or list_mode != "replace"):
            # one line, one value: the router redacts a secret's whole line, so a list could never be read back
            raise ParseError("value: %s is a secret option and takes one string, got a %s (not shown)"
                             % (option, "list_mode=%s" % list_mode if list_mode != "replace" else type(value).__name__))
        try:
            value = normalize_uci_value(value, "value")
        except ParseError as exc:
            if secret:
                raise ParseError("value: %s is a secret option; its value is not a string or integer "
                                 "(the value is not shown)" % option) from None
            raise ParseError(str(exc)) from None
        for item in _as_list(value):
            if "\n" in item or "\r" in item:
                raise ParseError("value: uci values are one line; a line break is not allowed, got %r"
                                 % ("<redacted>" if secret else item))
        if list_mode != "replace":
            value = _as_list(value)
    return config, ref, stype, option, value, state, list_mode


def check_uci_params(params: dict) -> None:
    """Check the uci action's options before anything runs on the router; ParseError names the option and value.

    ``{"config": "network;reboot", "section": "lan", ...}`` → ParseError ``config must be [A-Za-z0-9_-]+, got
    'network;reboot'``. The same checks plan_uci_change makes, so a bad name fails without a ``uci show``.
    """
    _check_params(params)


class _Commands:
    """Collect argv lists and the same with secret values replaced, for logs and results."""

    def __init__(self):
        self.argv = []
        self.shown = []

    def add(self, verb, path, value=None, secret=False):
        if value is None:
            argv = ["uci", verb, path]
            shown = argv
        else:
            argv = ["uci", verb, "%s=%s" % (path, value)]
            shown = ["uci", verb, "%s=%s" % (path, REDACTED if secret else value)]
        self.argv.append(argv)
        self.shown.append(shown)


def _redacted_pair(before, after):
    """Redact both sides; a secret that changed shows REDACTED_CHANGED after."""
    shown_before, shown_after = redact_uci(before), redact_uci(after)
    if before is not None and after is not None:
        for option, value in after["options"].items():
            if (is_secret_option(option) and option in before["options"]
                    and before["options"][option] != value):
                shown_after["options"][option] = REDACTED_CHANGED
    return shown_before, shown_after


def plan_uci_change(parsed: dict, params: dict) -> dict:
    """Compute the uci commands that bring one option (or section) to the wanted state.

    ``parsed`` is ``parse_uci_show(text, keep_secrets=True)`` of ``uci show CONFIG``; ``params``
    holds the action's options: ``config``, ``section`` (name or ``@type[N]``), ``type``,
    ``option``, ``value`` (str, int or list), ``state`` (present/absent), ``list_mode``
    (replace/add_list/del_list). Example, case 01's network config::

        {"config": "network", "section": "@wireguard_wg0[0]", "option": "persistent_keepalive",
         "value": "5"}
        → {"changed": True, "section": "@wireguard_wg0[0]",
           "commands": [["uci", "set", "network.@wireguard_wg0[0].persistent_keepalive=5"]],
           "commands_redacted": [...same, secret values replaced...],
           "before": {"type": "wireguard_wg0", "options": {..., "persistent_keepalive": "25"}},
           "after": {... "persistent_keepalive": "5"}, "diff": {"before": "network...", ...}}

    Rules: only the given option changes; ``changed`` is False when the value is already there
    (a one-item list equals the same string, since ``uci show`` prints them alike); deleting
    an option or section that is not there is no change; ``add_list`` adds only missing items,
    ``del_list`` removes present ones (and deletes the option when none would be left);
    ``replace`` with a list deletes the option then adds each item. A missing named section is
    created with ``uci set CONFIG.NAME=TYPE`` when ``type`` is given. ``before``/``after``
    (None when the section is absent) and ``diff`` have secrets redacted; only ``commands``
    carries the values.

    Raises ParseError naming the option and value for bad parameters, a missing section
    without ``type``, a missing ``@type[N]`` or a section of another type.
    """
    config, ref, stype, option, value, state, list_mode = _check_params(params)
    sections = parsed.get(config, {}) if isinstance(parsed, dict) else {}
    try:
        name = resolve_section({config: sections}, config, ref)
    except ParseError as exc:
        if state == "absent":
            name = None
        elif _REF.fullmatch(ref):
            raise ParseError("section: %s; this action creates named sections only" % exc) from None
        elif stype is None:
            raise ParseError("section %r does not exist in %s; give type to create it" % (ref, config)) from None
        else:
            name = ref
    current = sections.get(name) if name else None
    if current is not None and stype is not None and current["type"] != stype:
        raise ParseError("type: section %r of %s has type %r, not %r" % (ref, config, current["type"], stype))

    commands = _Commands()
    before = None if current is None else {"type": current["type"], "options": copy.deepcopy(current["options"])}
    after = copy.deepcopy(before)
    if name is None:  # absent and nothing to delete
        return _result(config, ref, ref, commands, before, after)
    path = "%s.%s" % (config, name)
    secret = is_secret_value(option, value)
    if current is None:
        commands.add("set", path, stype)
        after = {"type": stype, "options": {}}
    if option is None:
        if state == "absent":
            commands.add("delete", path)
            after = None
        return _result(config, ref, name, commands, before, after)

    path = "%s.%s" % (path, option)
    options = after["options"]
    now = options.get(option)
    if state == "absent":
        if now is not None:
            commands.add("delete", path)
            del options[option]
    elif list_mode == "replace":
        if not _same(now, value):
            if isinstance(value, str):
                commands.add("set", path, value, secret)
            else:
                if now is not None:
                    commands.add("delete", path)
                for item in value:
                    commands.add("add_list", path, item, secret)
            options[option] = _shown(_as_list(value))
    elif list_mode == "add_list":
        items = _as_list(now)
        for item in value:
            if item not in items:
                commands.add("add_list", path, item, secret)
                items.append(item)
        options[option] = _shown(items)
    else:  # del_list
        items = _as_list(now)
        remaining = [item for item in items if item not in value]
        if len(remaining) != len(items):
            if not remaining:
                commands.add("delete", path)
            else:
                for item in dict.fromkeys(value):
                    if item in items:
                        commands.add("del_list", path, item, secret)
        if remaining:
            options[option] = _shown(remaining)
        else:
            options.pop(option, None)
    return _result(config, ref, name, commands, before, after)


def _result(config, ref, name, commands, before, after):
    shown_before, shown_after = _redacted_pair(before, after)
    return {
        "changed": bool(commands.argv),
        "section": name,
        "commands": commands.argv,
        "commands_redacted": commands.shown,
        "before": shown_before,
        "after": shown_after,
        "diff": {
            "before": format_uci_section(config, name, shown_before),
            "after": format_uci_section(config, name, shown_after),
            # the lines of `uci show CONFIG`: `uci show CONFIG.@type[N]` would name the section cfgXXXXXX
            "before_header": "uci show %s, section %s" % (config, ref),
            "after_header": "uci show %s, section %s" % (config, ref),
        },
    }


def _value_text(value):
    if value is None:
        return "not set"
    if value in (REDACTED, REDACTED_CHANGED):
        return REDACTED
    return uci_quote(value)


def readback_mismatch(parsed: dict, params: dict) -> str | None:
    """What a config read back after a write holds where the task's change did not take; None if it took.

    ``parsed`` is ``parse_uci_show(text, keep_secrets=True)`` of ``uci -q show CONFIG`` read after the
    ``uci`` commands (secrets already redacted on the router), ``params`` the action's options.
    ``uci batch`` exits 0 even when its line failed, so this, not an exit status, tells whether a
    write took. Example: mtu still 1500 after a ``uci set network.wg0.mtu=1420`` that failed →
    ``"network.wg0.mtu is '1500', wanted '1420'"``; a secret → ``"network.wg0.private_key is
    <redacted>, wanted <redacted> (another value, not shown)"``; the section gone → ``"section 'wg0'
    does not exist in network; give type to create it"``.
    """
    try:
        plan = plan_uci_change(parsed, params)
    except ParseError as exc:
        return str(exc)
    if not plan["changed"]:
        return None
    config, option = params["config"], params.get("option")
    before, after = plan["before"], plan["after"]
    if option is None:
        where = "section %s.%s" % (config, plan["section"])
        found = "is missing" if before is None else "has type %s" % uci_quote(before["type"])
        wanted = "deleted" if after is None else "of type %s" % uci_quote(after["type"])
        return "%s %s, wanted %s" % (where, found, wanted)
    found = None if before is None else before["options"].get(option)
    wanted = None if after is None else after["options"].get(option)
    found, wanted = _value_text(found), _value_text(wanted)
    note = " (another value, not shown)" if found == wanted else ""   # a secret, or a key-shaped part
    return "%s.%s.%s is %s, wanted %s%s" % (config, plan["section"], option, found, wanted, note)
