# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read OpenWrt ``uci`` command-line output (uci CLI of OpenWrt 19.07 to 24.10).

Pure functions, no I/O. The formats, as the uci CLI prints them:

- ``uci show [config]``: one line per section (``config.section=type``, type unquoted) followed by
  one line per option (``config.section.option='value'``). Values are single-quoted; a quote
  inside a value is written ``'\\''``; a list option is printed as its items, each quoted,
  separated by one space (``-d`` changes the separator; not supported here). ``uci show CONFIG``
  (and ``uci show`` of every config) prints anonymous sections as ``@type[N]``, N counting every
  section of that type, named or not, in file order; with ``-X`` under their internal name
  ``cfgXXXXXX`` (``cfg`` and six hex digits). ``uci show CONFIG.SECTION[.OPTION]`` always prints
  the internal name, even when SECTION is given as ``@type[N]``. ``uci show`` includes changes
  staged in the save directory (/tmp/.uci) but not yet committed.
- ``uci changes [config]``: the staged changes, one per line: ``config.section.option='v'`` (set),
  ``config.section='type'`` (section added, renamed or moved), ``-config.section[.option]``
  (delete), ``config.section.option+='v'`` (add_list), ``config.section.option-='v'`` (del_list).

A one-item list and a plain option look the same in ``uci show`` output; both parse to a string.

Secret options (see is_secret_option) are replaced by REDACTED unless the caller asks for them
(``keep_secrets=True``), so no caller can print them by accident.
"""

from __future__ import annotations

import re

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wireguard import KEY_SHAPED

REDACTED = "<redacted>"

# uci names: sections and options are [A-Za-z0-9_]; configs also allow '-'; types are
# printable without spaces (wifi-iface, wireguard_wg0).
_CONFIG = r"[A-Za-z0-9_-]+"
_NAME = r"[A-Za-z0-9_]+"
_TYPE = r"[!-~]+?"
_SECTION_REF = re.compile(r"@(?P<type>[^\s\[\]=.]+)\[(?P<index>-?\d+)\]")
_KEY = re.compile(
    r"(?P<config>%s)\.(?:@(?P<type>[^\s\[\]=.]+)\[(?P<index>-?\d+)\]|(?P<name>%s))(?:\.(?P<option>%s))?"
    % (_CONFIG, _NAME, _NAME))
_ANONYMOUS_NAME = re.compile(r"cfg[0-9a-f]{6}")
_CHANGE_KEY = re.compile(r"(?P<delete>-)?(?P<config>%s)\.(?P<section>%s|@[^\s\[\]=.]+\[-?\d+\])(?:\.(?P<option>%s))?"
                         % (_CONFIG, _NAME, _NAME))

# Option names whose value is a secret: WireGuard keys, wireless keys, PPP/VPN passwords.
# The router's common ones beside WireGuard's: the SIM PIN of a 3g/qmi/mbim/ncm backup modem
# (pincode, pin), the 6in4 tunnel broker's updatekey, wireless keys, PPP/VPN passwords.
SECRET_NAMES = frozenset(("key", "psk", "password", "passwd", "pass", "secret", "private_key",
                          "preshared_key", "auth_secret", "acct_secret", "dae_secret", "sae_password",
                          "priv_key_pwd", "priv_key2_pwd", "token", "api_key", "pincode", "pin",
                          "updatekey", "apikey", "wps_pin"))
SECRET_PARTS = ("password", "passwd", "passphrase", "secret", "private_key", "privatekey", "preshared_key",
                "presharedkey", "psk", "token", "pincode", "updatekey", "credential")
# Options that hold a public key (kept although key-shaped): wireguard peers' public_key.
PUBLIC_KEY_OPTION = re.compile(r"(?i).*(public_?key|pubkey)")
WEP_KEY_PATTERN = "key[1-4]"
_WEP_KEY = re.compile(WEP_KEY_PATTERN)


def is_secret_option(name) -> bool:
    """Tell whether a uci option holds a secret: ``private_key`` → True, ``public_key`` → False.

    Secret: ``key``, ``key1``-``key4`` (wireless), ``private_key``, ``preshared_key``, ``password``,
    ``psk``, ``secret`` and any name containing password, passwd, secret, private_key,
    preshared_key, psk or token (``ppp_password``, ``auth_secret``).
    """
    lowered = str(name).lower()
    if lowered in SECRET_NAMES or _WEP_KEY.fullmatch(lowered):
        return True
    return any(part in lowered for part in SECRET_PARTS)


def is_secret_value(option, value) -> bool:
    """A value to keep off command lines and out of results: a secret option's, or one holding a
    WireGuard-key-shaped token under any option but a public key (the router redacts it by shape,
    so it is compared and written like a secret)."""
    if option is not None and is_secret_option(option):
        return True
    if option is not None and PUBLIC_KEY_OPTION.fullmatch(str(option)):
        return False
    return any(isinstance(item, str) and KEY_SHAPED.search(item) for item in (value if isinstance(value, list) else [value]))


def redact_key_shapes(option, value):
    """``value`` with every WireGuard-key-shaped token replaced by REDACTED, unless ``option`` holds a
    public key (PUBLIC_KEY_OPTION). Catches keys under names no list knows (a typo'd ``privatekey``, a
    preshared key pasted into a peer's ``description``). Lists are redacted item by item."""
    if option is not None and PUBLIC_KEY_OPTION.fullmatch(str(option)):
        return value
    if isinstance(value, list):
        return [redact_key_shapes(option, item) for item in value]
    if isinstance(value, str):
        return KEY_SHAPED.sub(REDACTED, value)
    return value


def redact_uci(values):
    """Return a copy of ``{option: value}`` with every secret value replaced by REDACTED, and every
    key-shaped token in the other values (redact_key_shapes).

    ``{"proto": "wireguard", "private_key": "KKKK…=", "addresses": ["10.0.0.1/24"]}`` →
    ``{"proto": "wireguard", "private_key": "<redacted>", "addresses": ["10.0.0.1/24"]}``.
    Also accepts a section (``{"type": …, "options": {…}}``), a config (``{section: section}``)
    or the whole parse_uci_show result, and redacts the options inside. None gives None.
    """
    if values is None:
        return None
    if not isinstance(values, dict):
        raise ParseError("uci values to redact must be a dict, got %s" % type(values).__name__)
    if isinstance(values.get("options"), dict) and "type" in values:
        return dict(values, options=redact_uci(values["options"]))
    redacted = {}
    for key, value in values.items():
        if isinstance(value, dict):
            redacted[key] = redact_uci(value)
        elif is_secret_option(key) and value is not None:
            redacted[key] = REDACTED
        else:
            redacted[key] = redact_key_shapes(key, list(value) if isinstance(value, list) else value)
    return redacted


_TRUE = frozenset(("1", "yes", "on", "true", "enabled"))
_FALSE = frozenset(("0", "no", "off", "false", "disabled"))


def parse_uci_bool(value, where="value"):
    """Read a uci boolean the way OpenWrt's config_get_bool does; None (unset) stays None.

    ``"1"``, ``"yes"``, ``"on"``, ``"true"``, ``"enabled"`` → True; ``"0"``, ``"no"``, ``"off"``,
    ``"false"``, ``"disabled"`` → False (any case); ``None`` → None.
    Raises ParseError naming ``where`` (``"banip.global.ban_enabled"``) and the value otherwise.
    """
    if value is None:
        return None
    lowered = value.lower() if isinstance(value, str) else None
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ParseError("%s: expected a uci boolean (1/0, yes/no, on/off, true/false), got %r" % (where, value))


def parse_uci_int(value, where="value", minimum=0):
    """Read a uci integer option; None (unset) stays None.

    ``"25"`` → 25; ``None`` → None. Raises ParseError naming ``where`` and the value for
    anything that is not a whole number >= ``minimum`` (a list, ``"2s"``, ``"-1"``).
    """
    if value is None:
        return None
    if not isinstance(value, str) or not re.fullmatch(r"-?[0-9]+", value.strip()) or int(value) < minimum:
        raise ParseError("%s: expected a whole number >= %d, got %r" % (where, minimum, value))
    return int(value)


def uci_quote(value) -> str:
    """Quote a value the way ``uci show`` prints it; also a safe POSIX shell word.

    ``"site-b"`` → ``"'site-b'"``; ``"it's"`` → ``"'it'\\\\''s'"`` (that is ``'it'\\''s'``);
    ``""`` → ``"''"``. A list gives its items quoted and joined by one space, as ``uci show``
    prints a list option: ``["a b", "c"]`` → ``"'a b' 'c'"``.
    """
    if isinstance(value, (list, tuple)):
        return " ".join(uci_quote(item) for item in value)
    if not isinstance(value, str):
        raise ParseError("uci value must be a string or a list of strings, got %r" % (value,))
    return "'" + value.replace("'", "'\\''") + "'"


def _read_value(text, pos, lineno):
    """Read quoted list items from ``text[pos:]`` up to the end of the line; return (items, pos)."""
    items = []
    while True:
        if pos >= len(text) or text[pos] != "'":
            raise ParseError("line %d: expected a quoted value as printed by uci show, got %r"
                             % (lineno, text[pos:pos + 60].split("\n")[0]))
        chunks = []
        while pos < len(text) and text[pos] == "'":
            end = text.find("'", pos + 1)
            if end < 0:
                raise ParseError("line %d: quote opened but never closed" % lineno)
            chunks.append(text[pos + 1:end])
            pos = end + 1
            if text.startswith("\\'", pos):  # '\'' : close, escaped quote, reopen
                chunks.append("'")
                pos += 2
        items.append("".join(chunks))
        if pos >= len(text) or text[pos] == "\n":
            return items, pos + 1
        if text[pos] != " ":
            raise ParseError("line %d: unexpected %r after a quoted value" % (lineno, text[pos]))
        pos += 1


def _section_entry(sections, counts, name, stype, anonymous, index=None):
    if index is None:
        index = counts.get(stype, 0)
    counts[stype] = max(counts.get(stype, 0), index + 1) if index >= 0 else counts.get(stype, 0)
    sections[name] = {"type": stype, "anonymous": anonymous, "index": index, "options": {}}
    return sections[name]


def parse_uci_show(text: str, keep_secrets: bool = False) -> dict:
    """Parse ``uci show`` or ``uci -X show`` output of one or more configs.

    Format: OpenWrt uci CLI ``show`` (see the module docstring)::

        network.wg0=interface
        network.wg0.proto='wireguard'
        network.wg0.private_key='KKKK…='
        network.@wireguard_wg0[0]=wireguard_wg0
        network.@wireguard_wg0[0].allowed_ips='10.77.0.0/24' '192.168.20.0/24'
        network.dc=wireguard_wg0

    → ``{"network": {"wg0": {"type": "interface", "anonymous": False, "index": 0,
    "options": {"proto": "wireguard", "private_key": "<redacted>"}},
    "@wireguard_wg0[0]": {"type": "wireguard_wg0", "anonymous": True, "index": 0,
    "options": {"allowed_ips": ["10.77.0.0/24", "192.168.20.0/24"]}},
    "dc": {"type": "wireguard_wg0", "anonymous": False, "index": 1, "options": {}}}}``.

    Sections keep the name uci printed (``@type[N]`` or ``cfgXXXXXX``; the latter is taken as
    anonymous). ``index`` is the position among the config's sections of the same type, the N
    of ``@type[N]``. A list of two or more items gives a list of strings, anything else a
    string. Values may span lines (a quoted newline). Output of ``uci show config.section``
    (options without their section line) gives ``"type": None``. Secret values are REDACTED
    unless ``keep_secrets`` is True. Empty text gives ``{}``.

    Raises ParseError naming the line for anything else (``uci: Entry not found`` belongs on
    stderr; do not pass ``2>&1`` output).
    """
    if not isinstance(text, str):
        raise ParseError("uci show output must be text, got %s" % type(text).__name__)
    configs = {}
    type_counts = {}
    pos = 0
    lineno = 0
    while pos < len(text):
        lineno += 1
        eol = text.find("\n", pos)
        if eol < 0:
            eol = len(text)
        line = text[pos:eol]
        if not line.strip():
            pos = eol + 1
            continue
        key, sep, rest = line.partition("=")
        match = _KEY.fullmatch(key)
        if not sep or not match:
            # The value is not quoted: a line that does not parse may be the continuation of a secret.
            raise ParseError("line %d: expected config.section[.option]=value as printed by uci show (the line "
                             "is not shown: it may continue a secret value)" % lineno)
        config = match.group("config")
        sections = configs.setdefault(config, {})
        counts = type_counts.setdefault(config, {})
        stype = match.group("type")
        name = match.group("name") or "@%s[%s]" % (stype, match.group("index"))
        option = match.group("option")
        if option is None:
            if not re.fullmatch(_TYPE, rest):
                raise ParseError("line %d: section %s.%s has no valid type: %r" % (lineno, config, name, rest[:60]))
            if stype is not None and stype != rest:
                raise ParseError("line %d: section %s.%s has type %r, not %r" % (lineno, config, name, rest, stype))
            if name in sections and sections[name]["type"] is not None:
                raise ParseError("line %d: section %s.%s appears twice" % (lineno, config, name))
            index = int(match.group("index")) if stype is not None else None
            anonymous = stype is not None or bool(_ANONYMOUS_NAME.fullmatch(name))
            options = sections[name]["options"] if name in sections else {}
            _section_entry(sections, counts, name, rest, anonymous, index)["options"].update(options)
            pos = eol + 1
            continue
        if name not in sections:
            index = int(match.group("index")) if stype is not None else -1
            sections[name] = {"type": stype, "anonymous": stype is not None or bool(_ANONYMOUS_NAME.fullmatch(name)),
                              "index": index, "options": {}}
        value_start = pos + len(key) + 1
        if rest.startswith("'"):
            items, pos = _read_value(text, value_start, lineno)
            lineno += text.count("\n", value_start, pos - 1)
        else:  # uci before 2015 printed values unquoted; take the line as one string
            items, pos = [rest], eol + 1
        value = items[0] if len(items) == 1 else items
        if not keep_secrets:
            value = REDACTED if is_secret_option(option) else redact_key_shapes(option, value)
        sections[name]["options"][option] = value
    return configs


def resolve_section(parsed: dict, config: str, ref: str) -> str:
    """Find the section a uci reference names; return its key in ``parsed[config]``.

    ``ref`` is a section name (``wg0``, ``cfg0a1b2c``) or ``@type[N]``: the N-th section of that
    type counting from 0, or from the end when negative (``@wireguard_wg0[-1]`` is the last),
    as the uci CLI resolves it. ``resolve_section(p, "network", "@wireguard_wg0[1]")`` →
    ``"dc"`` for case 11's network config (a named section counts too).

    Raises ParseError naming the reference when the config is not in ``parsed``, the reference
    is neither a name nor ``@type[N]``, or no section matches.
    """
    if not isinstance(parsed, dict) or config not in parsed:
        raise ParseError("config %r not found in uci show output" % (config,))
    sections = parsed[config]
    if not isinstance(ref, str):
        raise ParseError("section must be a name or @type[N], got %r" % (ref,))
    match = _SECTION_REF.fullmatch(ref)
    if match:
        stype, index = match.group("type"), int(match.group("index"))
        of_type = sorted((s["index"], name) for name, s in sections.items() if s["type"] == stype)
        if -len(of_type) <= index < len(of_type):
            return of_type[index][1]
        raise ParseError("section %r not found in %s: it has %d section(s) of type %s"
                         % (ref, config, len(of_type), stype))
    if not re.fullmatch(_NAME, ref):
        raise ParseError("section %r is neither a section name ([A-Za-z0-9_]) nor @type[N]" % (ref,))
    if ref not in sections:
        raise ParseError("section %r not found in %s" % (ref, config))
    return ref


def format_uci_section(config: str, name: str, section) -> str:
    """Render one section as ``uci show`` prints it (for diffs); None gives ``""``.

    ``("network", "wg0", {"type": "interface", "options": {"proto": "wireguard"}})`` →
    ``"network.wg0=interface\\nnetwork.wg0.proto='wireguard'\\n"``. Values are written as given,
    so redact first (redact_uci).
    """
    if section is None:
        return ""
    lines = ["%s.%s=%s" % (config, name, section.get("type") or "")]
    for option, value in section.get("options", {}).items():
        lines.append("%s.%s.%s=%s" % (config, name, option, uci_quote(value)))
    return "\n".join(lines) + "\n"


def staged_change_names(changes: list) -> str:
    """parse_uci_changes result -> ``"network.lan.ipaddr (set), network.wan.metric (delete)"``: what
    is staged, by name and operation only (never a value), in order, each path once."""
    named = {}
    for change in changes:
        path = ".".join(part for part in (change["config"], change["section"], change["option"]) if part)
        named.setdefault(path, change["op"])
    return ", ".join("%s (%s)" % item for item in named.items())


def parse_uci_changes(text: str, keep_secrets: bool = False) -> list:
    """Parse ``uci changes [config]`` output into a list of staged changes, in order.

    Format: OpenWrt uci CLI ``changes`` (see the module docstring)::

        network.wg0.listen_port='51821'
        -network.wg0.nohostroute
        network.wg0.allowed_ips+='10.9.0.0/24'
        network.wan6='interface'

    → ``[{"op": "set", "config": "network", "section": "wg0", "option": "listen_port",
    "value": "51821"}, {"op": "delete", …, "option": "nohostroute", "value": None},
    {"op": "add_list", …, "value": "10.9.0.0/24"}, {"op": "set", "section": "wan6",
    "option": None, "value": "interface"}]``.

    ``op`` is set, delete, add_list or del_list; a section-level ``set`` is an added, renamed or
    moved section (uci prints them alike). Secret values are REDACTED unless ``keep_secrets``.
    Raises ParseError naming the line for anything else.
    """
    if not isinstance(text, str):
        raise ParseError("uci changes output must be text, got %s" % type(text).__name__)
    changes = []
    pos = 0
    lineno = 0
    while pos < len(text):
        lineno += 1
        eol = text.find("\n", pos)
        if eol < 0:
            eol = len(text)
        line = text[pos:eol]
        if not line.strip():
            pos = eol + 1
            continue
        match = _CHANGE_KEY.match(line)
        if not match:
            raise ParseError("line %d: expected [-]config.section[.option][=|+=|-=]'value' as printed by uci changes, got %r"
                             % (lineno, line[:200]))
        change = {"op": "delete", "config": match.group("config"), "section": match.group("section"),
                  "option": match.group("option"), "value": None}
        after = line[match.end():]
        if match.group("delete"):
            if after:
                raise ParseError("line %d: unexpected %r after a delete" % (lineno, after[:60]))
            changes.append(change)
            pos = eol + 1
            continue
        for op, marker in (("add_list", "+="), ("del_list", "-="), ("set", "=")):
            if after.startswith(marker):
                break
        else:
            raise ParseError("line %d: expected =, += or -= after %r" % (lineno, match.group(0)))
        value_start = pos + match.end() + len(marker)
        items, pos = _read_value(text, value_start, lineno)
        lineno += text.count("\n", value_start, pos - 1)
        if len(items) != 1:
            raise ParseError("line %d: expected one quoted value, got %d" % (lineno, len(items)))
        change["op"] = op
        change["value"] = REDACTED if (change["option"] and is_secret_option(change["option"])
                                       and not keep_secrets) else items[0]
        changes.append(change)
    return changes
