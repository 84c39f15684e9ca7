# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fail when a built collection artifact holds a secret, an inventory-shaped path or a path outside the allow-list.

    python3 scripts/scan_artifact.py ARTIFACT.tar.gz [GALAXY_YML]

scripts/build_collection.sh runs this on every artifact it builds and deletes the artifact when it
fails. Needs Python 3 with PyYAML (ansible-core depends on it: the venv that runs ansible-galaxy has it).

Paths (each member's path inside the tarball):

- outside the allow-list: galaxy.yml's ``manifest.directives`` (what ansible-galaxy packs) give the
  allowed top-level names: each ``include`` path and each ``recursive-include``/``graft`` folder, plus
  the MANIFEST.json and FILES.json ansible-galaxy writes. Any other top-level name fails;
- not a regular file or folder (a link could point outside the collection);
- inventory-shaped (galaxy.yml's excludes leave these out; the scan fails if one got in anyway), at any
  depth: anything under a folder named ``host_vars`` or ``group_vars`` (Ansible's per-host and
  per-group variables), or ``inventory``/``inventories`` (except ``plugins/inventory/``, the inventory
  plugin type's folder); a file named ``inventory`` or ``inventory*.{yml,yaml,ini,json,cfg}``, ``hosts``
  or ``hosts.{yml,yaml,ini}``; a vault-named file: ``*.vault``, ``*vault*.yml``, ``*vault*.yaml``.

Content, line by line. A FAIL line names the file, the line and the kind of secret, never the value. A member
is read as UTF-8 (a leading byte order mark dropped) or, when it starts with a UTF-16 byte order mark, as UTF-16.

Token shapes (found anywhere in a line):

- WireGuard key: 44 base64 characters encoding 32 bytes (wg(8): 43 characters, the last one of
  ``AEIMQUYcgkosw480``, then ``=``), not inside a longer base64 run;
- private key blocks: a PEM ``BEGIN ... PRIVATE KEY`` line between five dashes each side (RFC 7468's
  labels, the older ``RSA``/``EC``/``DSA`` ones, and OpenSSH's ``OPENSSH PRIVATE KEY``, PROTOCOL.key),
  the OpenPGP armor line ``BEGIN PGP PRIVATE KEY BLOCK`` (RFC 4880, section 6.2) and the first line of
  a PuTTY key file, ``PuTTY-User-Key-File-<version>:`` (PuTTY manual, appendix C, PPK file format);
- Ansible Vault: the header of a file or ``!vault`` value encrypted with Ansible Vault, ``$ANSIBLE_VAULT``
  then ``;1.1;AES256`` or ``;1.2;AES256;<vault id>`` (Ansible docs, "Format of files encrypted with
  Ansible Vault"): an encrypted inventory secret is still an inventory secret and does not ship;
- GitHub tokens: ``ghp_`` (personal access token), ``gho_`` (OAuth), ``ghu_`` (app user-to-server),
  ``ghs_`` (app server-to-server), ``ghr_`` (refresh), then 36 or more of ``[A-Za-z0-9_]`` (today's
  length; GitHub changelog 2021-03-31, "Authentication token format updates are generally available":
  prefixes, character set, lengths up to 255), and ``github_pat_`` (fine-grained personal access token)
  then 22 or more of them (GitHub docs, "About authentication to GitHub", GitHub's token formats);
- GitLab personal access token: ``glpat-`` then 20 or more of ``[A-Za-z0-9_-]`` (GitLab docs,
  personal access token prefix);
- Slack token: ``xoxb-`` (bot), ``xoxp-`` (user; Slack API docs, "Token types"), ``xoxa-``, ``xoxe-``,
  ``xoxr-``, ``xoxs-``, then 10 or more of ``[A-Za-z0-9-]``;
- AWS access key ID: ``AKIA`` (long-term) or ``ASIA`` (temporary, STS) then 16 of ``[A-Z0-9]``, 20 in
  all (AWS IAM User Guide, "IAM identifiers", unique ID prefixes; STS GetAccessKeyInfo);
- AWS secret access key: the value of any key ending in ``secret_access_key`` (``aws_secret_access_key``
  in the AWS CLI's credentials file, the ``AWS_SECRET_ACCESS_KEY`` environment variable) when it is 40
  of ``[A-Za-z0-9/+]`` (AWS IAM User Guide, access keys: an access key ID and a 40-character secret
  access key, ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`` in its examples);
- Google API key: ``AIza`` then 35 of ``[A-Za-z0-9_-]``, 39 in all (Google Cloud docs, "Manage API keys":
  the key string, e.g. ``AIzaSy`` and 33 more characters);
- package registry and cloud tokens by their documented prefixes: PyPI ``pypi-AgE...`` (an API token is a
  macaroon; PyPI help, "API tokens"), npm ``npm_`` and 36 characters (npm docs, "About access tokens"), Docker
  Hub ``dckr_pat_`` (Docker docs, "Personal access tokens") and DigitalOcean ``dop_v1_``/``doo_v1_``/``dor_v1_``
  and 64 hexadecimal digits (DigitalOcean docs, "How to Create a Personal Access Token");
- webhook URLs, which are their own credential: Slack's ``hooks.slack.com/services/T.../B.../<secret>``
  (Slack API docs, "Sending messages using incoming webhooks") and Discord's
  ``discord.com/api/webhooks/<id>/<token>``;
- a base64-encoded private key block: a base64 run starting ``LS0tLS1CRUdJTi`` (``-----BEGIN``) whose first
  bytes decode to a line naming a ``PRIVATE KEY`` (a Kubernetes Secret's ``tls.key``, a ``b64encode``d variable).

Secrets known by what surrounds them (reported only when the line has no token shape above, so a GitHub token
in a URL is reported once, as the token); the secret's value is checked like a variable's value (below):

- credentials in a URL: ``scheme://user:password@host`` (RFC 3986, section 3.2.1), unless the password is
  the word ``password``, ``passwd``, ``pass``, ``pwd``, ``secret`` or ``token`` (the form shown in docs);
- an HTTP ``Authorization`` header with a ``Bearer``, ``Basic`` or ``token`` credential of 12 or more characters
  (RFC 9110, section 11.6.2);
- a secret on a command line: ``sshpass -p SECRET``, ``curl -u USER:SECRET`` (``--user``), and
  ``--token``, ``--api-key``, ``--access-token`` followed by a value (``ansible-galaxy collection publish
  --token ...``).

A token is a placeholder, not reported, when its random part uses at most 4 distinct characters
(``ghp_xxxx...``, the house's ``AAAA...A=``; a random WireGuard key's 43 characters have about 30
distinct ones, 4 or fewer has probability below 10^-40) or holds ``EXAMPLE`` (AWS's documented
``AKIAIOSFODNN7EXAMPLE`` and ``...EXAMPLEKEY``).

Secrets in variables: a secret-named key with a literal value. The key (case-insensitive, ``-`` read as
``_``) ends in ``password``, ``passwd``, ``passphrase``, ``secret``, ``token``, ``api_key``/``apikey``,
``private_key``/``privatekey``, ``preshared_key``/``presharedkey``, ``secret_key``,
``secret_access_key`` or ``account_key``/``accountkey`` (an Azure storage connection string's
``AccountKey=``), or ends in ``_pass`` or ``_pwd`` (``MYSQL_PWD``), or is or ends in ``psk`` (so
``ansible_password``, ``ansible_become_password``, ``ansible_ssh_pass``, ``ansible_become_pass``, ``wg_preshared_key``,
``PrivateKey``; not ``password_file``, ``token_count`` or ``ansible_ssh_private_key_file``). Forms:

- YAML ``key: value`` with the key first on its line (after indentation and an optional ``- ``);
- JSON/Python ``"key": value`` anywhere in a line;
- YAML flow mapping ``key: value`` after ``{`` or ``,`` (``- {name: alice, password: ...}``);
- INI/env ``key = value`` first on its line, and ``key=value`` anywhere (``-e ansible_password=...``,
  an INI inventory's host line, ``export TOKEN=...``, ``--password=...``);
- OpenWrt UCI (uci(1)): ``option NAME VALUE`` or ``list NAME VALUE`` first on its line (an /etc/config
  template) and ``uci set CONFIG.SECTION.NAME=VALUE``; a UCI option named ``key`` counts as secret-named
  (a wifi-iface's WPA passphrase).

YAML and JSON files (``.yml``, ``.yaml``, ``.json``) are also read as YAML (composed, nothing constructed), which
finds what a line does not show: a secret-named key whose literal value is a block scalar (``password: |``),
a plain scalar on the next line, an alias of an anchored literal (``ansible_password: *pw``), an explicit
``? key``, a JSON key written with escapes; and the literal ``default`` of a private ``vars_prompt`` entry
(``private: true``, or ``private`` left out, Ansible's default, and a secret-named ``name``). Reported on the
key's line unless a line of the value was reported already (a key block is reported as the key block).

In Python files only a quoted value counts (an unquoted one is code: ``password=password``). In
Markdown and reStructuredText only code counts: fenced blocks and inline ``code`` spans (prose says
"the token: ..." without leaking one). A fenced block ends at a fence of its own character (backtick or
tilde), at least as long and with nothing after it (CommonMark), so a fence shown inside a block stays code.

A value is literal unless, without its quotes, it is:

- empty, a YAML null or boolean (``~``, ``null``, ``true``, ``false``, ``yes``, ``no``...);
- the start of a block scalar (``|``, ``>``) or of a flow collection (``[``, ``{``);
- a reference: holds a Jinja expression (``{{``, ``{%``: ``"{{ vault_wg_key }}"``, ``"{{ omit }}"``; but not
  one that starts with a quoted literal, ``"{{ 'Pw' | password_hash('sha512') }}"``, or gives one as its
  ``default('...')``/``d('...')``: that literal is the value) or
  is an environment variable or a command's output (``$NAME``, ``${...}``, ``$(...)``; a crypt(3) password
  hash such as ``$6$salt$hash`` is literal) or starts with the ``!vault`` tag (the encrypted block below it is
  reported by the Vault rule);
- a documentation placeholder: enclosed in ``<...>`` (``<redacted>``, ``<your token>``), elided (holds
  ``...`` or ``\u2026``: ``KKKK...=``), made of 4 or fewer distinct characters (``xxxx``, ``****``), or
  one of ``CHANGE_ME``, ``CHANGEME``, ``REDACTED``, ``REPLACE_ME``, ``PLACEHOLDER`` (any case), or an
  upper-case metavariable as a command's usage writes one (``YOUR_PASSWORD``, ``BECOME_PASSWORD``: upper-case
  words joined by ``_``; or ``PASSWORD``, ``PASSWD``, ``PASSPHRASE``, ``SECRET``, ``TOKEN``, ``PSK``);
- a file's path (the file that holds the secret, not the secret): starting ``/``, ``~/`` or ``./``, with two
  parts or more of letters, digits, ``_.@-`` (``/etc/wireguard/wg0.key``, ``~/.ssh/id_ed25519``; base64's
  ``+`` and ``=`` are not path characters here).

Anything else is reported, numbers too (a PIN is a password). A line with a token shape is reported
once, by that shape.

Output: a FAIL line per problem (``FAIL ARTIFACT: PATH[:LINE]: KIND``), then ``N passed, N failed``
(members); exit 1 on any problem, 2 on a usage error.
"""

from __future__ import annotations

import base64
import codecs
import re
import sys
import tarfile
from pathlib import Path, PurePosixPath

import yaml

GENERATED = frozenset({"MANIFEST.json", "FILES.json"})
PLACEHOLDER_MAX_DISTINCT = 4

# --- paths ---------------------------------------------------------------------------------------
VARS_DIRS = frozenset({"host_vars", "group_vars"})
INVENTORY_DIRS = frozenset({"inventory", "inventories"})
INVENTORY_FILE = re.compile(r"inventory|inventory.*\.(?:yml|yaml|ini|json|cfg)|hosts|hosts\.(?:yml|yaml|ini)")
VAULT_FILE = re.compile(r".*\.vault|.*vault.*\.(?:yml|yaml)")

# --- token shapes: (kind, regex); a "random" group is checked for placeholders, "prefix" goes into the kind --
_B64 = "A-Za-z0-9+/"
TOKEN_SHAPES = (
    ("a WireGuard key (44 base64 characters, 32 bytes)",
     re.compile(r"(?<![%s])(?P<random>[%s]{42}[AEIMQUYcgkosw480]=)(?![%s=])" % (_B64, _B64, _B64))),
    ("a PEM/OpenSSH private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")),
    ("a PGP private key block", re.compile(r"-----BEGIN PGP PRIVATE KEY BLOCK-{5}")),
    ("a PuTTY private key file", re.compile(r"PuTTY-User-Key-File-[0-9]+:")),
    ("an Ansible Vault encrypted blob ($ANSIBLE_VAULT header)", re.compile(r"\$ANSIBLE_VAULT;[0-9]+\.[0-9]+;")),
    ("a GitHub token (%s)", re.compile(r"(?<![A-Za-z0-9_])(?P<prefix>gh[pousr]_|github_pat_)(?P<random>[A-Za-z0-9_]{22,})")),
    ("a GitLab personal access token (%s)", re.compile(r"(?<![A-Za-z0-9_-])(?P<prefix>glpat-)(?P<random>[A-Za-z0-9_-]{20,})")),
    ("a Slack token (%s)", re.compile(r"(?<![A-Za-z0-9_-])(?P<prefix>xox[abeprs]-)(?P<random>[A-Za-z0-9-]{10,})")),
    ("an AWS access key ID (%s)", re.compile(r"(?<![A-Za-z0-9])(?P<prefix>AKIA|ASIA)(?P<random>[A-Z0-9]{16})(?![A-Za-z0-9])")),
    ("an AWS secret access key (aws_secret_access_key)",
     re.compile(r"(?i:secret_access_key)[\"']?\s*[:=]\s*[\"']?(?P<random>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])")),
    ("a Google API key (%s)", re.compile(r"(?<![A-Za-z0-9_-])(?P<prefix>AIza)(?P<random>[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])")),
    ("a PyPI API token (%s)", re.compile(r"(?<![A-Za-z0-9_-])(?P<prefix>pypi-)AgE(?P<random>[A-Za-z0-9_-]{50,})")),
    ("an npm access token (%s)", re.compile(r"(?<![A-Za-z0-9_])(?P<prefix>npm_)(?P<random>[A-Za-z0-9]{36})(?![A-Za-z0-9])")),
    ("a Docker Hub access token (%s)", re.compile(r"(?<![A-Za-z0-9_])(?P<prefix>dckr_pat_)(?P<random>[A-Za-z0-9_-]{20,})")),
    ("a DigitalOcean token (%s)", re.compile(r"(?<![A-Za-z0-9_])(?P<prefix>do[por]_v1_)(?P<random>[a-f0-9]{64})(?![A-Za-z0-9])")),
    ("a Slack webhook URL",
     re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,}/[A-Z0-9]{6,}/(?P<random>[A-Za-z0-9]{16,})")),
    ("a Discord webhook URL", re.compile(r"discord(?:app)?\.com/api/webhooks/[0-9]{15,22}/(?P<random>[A-Za-z0-9_-]{40,})")),
    # "-----BEGIN" in base64 starts with LS0tLS1CRUdJTi (a Kubernetes Secret's tls.key, a b64encoded variable).
    ("a base64-encoded private key block", re.compile(r"(?<![A-Za-z0-9+/])(?P<b64>LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,})")),
)
# Secrets known by what surrounds them; a "secret" group is checked like a variable's value (is_literal), a
# "prefix" goes into the kind. Reported only when the line has none of the token shapes above (a GitHub token
# in a URL is reported once, as a GitHub token).
CONTEXT_SHAPES = (
    ("credentials in a URL (scheme://user:password@host)",
     re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@'\"`<>]*:(?P<secret>[^\s/?#@'\"`<>]+)@")),
    ("an HTTP Authorization header (%s)",
     re.compile(r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?P<prefix>Bearer|Basic|token)\s+(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)")),
    ("a secret on a command line (sshpass -p)", re.compile(r"\bsshpass\s+-p\s*(?P<secret>\"[^\"]*\"|'[^']*'|[^\s\"'`]+)")),
    ("a secret on a command line (curl -u)",
     re.compile(r"\bcurl\b.*?\s(?:-u|--user)(?:\s+|=)[\"']?[^\s:\"'`]*:(?P<secret>[^\s\"'`]+)")),
    ("a secret on a command line (%s)",
     re.compile(r"(?<![\w-])(?P<prefix>--(?:token|api-key|access-token))\s+(?P<secret>\"[^\"]*\"|'[^']*'|[^\s\"'`|;&)]+)")),
)
# The password of scheme://user:password@host written as a word (the form, not a secret).
URL_PLACEHOLDER_WORDS = frozenset({"password", "passwd", "pass", "pwd", "secret", "token"})
# ghp_ and the other classic GitHub prefixes take 36 or more characters, github_pat_ 22 or more.
GITHUB_CLASSIC_MIN = 36

# --- secrets in variables ------------------------------------------------------------------------
SECRET_KEY = re.compile(
    r"(?:.*(?:password|passwd|passphrase|secret|token|api_?key|private_?key|preshared_?key|secret_?key|secret_access_key"
    r"|account_?key)"
    r"|.+_pass|.+_pwd|(?:.+_)?psk)")
_KEY = r"[A-Za-z_][A-Za-z0-9_.-]*"
# YAML 'key:' first on the line; the ':' ends the line or is followed by a blank.
YAML_KEY = re.compile(r"^\s*(?:-\s+)?(?P<key>%s)\s*:(?=\s|$)(?P<rest>.*)$" % _KEY)
# "key": or 'key': anywhere (JSON, Python dicts, YAML flow).
QUOTED_KEY = re.compile(r"(?P<q>[\"'])(?P<key>%s)(?P=q)\s*:(?=(?P<rest>.*)$)" % _KEY)
# key = value first on the line (INI, env, Python), key=value anywhere.
INI_KEY = re.compile(r"^\s*(?:export\s+)?(?P<key>%s)\s*=(?![=~])(?P<rest>.*)$" % _KEY)
# (after a '-' too: --password=..., --api-key=...)
INLINE_KEY = re.compile(r"(?:(?<=[\s,;({\[\"'`-])|^)(?P<key>%s)=(?![=~])(?=(?P<rest>.*)$)" % _KEY)
# key: value after '{' or ',' (a YAML flow mapping: - {name: alice, password: ...}).
FLOW_KEY = re.compile(r"(?<=[{,])\s*(?P<key>%s)\s*:(?=\s)(?=(?P<rest>.*)$)" % _KEY)
# OpenWrt's UCI: 'option NAME VALUE' / 'list NAME VALUE' in /etc/config files, and 'uci set CONFIG.SECTION.NAME=VALUE'
# (uci(1); a wifi-iface's 'key' is its WPA passphrase, so a UCI option named key counts as secret-named).
UCI_OPTION = re.compile(r"^\s*(?:option|list)\s+(?P<key>[A-Za-z0-9_]+)\s+(?P<rest>.*)$")
UCI_SET = re.compile(r"\buci\s+(?:-\S+\s+)*?(?:set|add_list)\s+(?P<key>[A-Za-z0-9_][\w.@\[\]-]*)=(?P<rest>.*)$")
# A value starting with $ is an environment variable ($NAME, ${NAME}) or a command's output ($(...)); anything else
# starting with $ is literal (a crypt(3) password hash: $6$salt$hash, $y$...).
ENV_REFERENCE = re.compile(r"\$(?:\{|\(|[A-Za-z_][A-Za-z0-9_]*$)")
YAML_NON_LITERAL = frozenset({"", "~", "null", "none", "true", "false", "yes", "no", "on", "off"})
PLACEHOLDER_WORDS = frozenset({"change_me", "changeme", "redacted", "replace_me", "placeholder"})
# A metavariable as a command's usage writes one: YOUR_PASSWORD, BECOME_PASSWORD, or one upper-case secret word.
METAVARIABLE = re.compile(r"[A-Z]+(?:_[A-Z]+)+|PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|PSK")
# A file's path (the key's file, not the key): absolute, ~/ or ./, two parts or more, no base64's + or =.
FILE_PATH = re.compile(r"(?:~|\.{1,2})?/(?:[\w.@-]+/)+[\w.@-]+")
PROSE_SUFFIXES = (".md", ".rst")
YAML_SUFFIXES = (".yml", ".yaml", ".json")
# A fence: 3 or more backticks or tildes; it is closed by a fence of the same character, at least as long, with
# nothing after it (CommonMark), so a fence shown inside a longer one or of the other character stays code.
FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
INLINE_CODE = re.compile(r"``(.+?)``|`([^`]+)`")


class ScanError(ValueError):
    """galaxy.yml has no manifest directives to take the allow-list from."""


def allowed_top_level(galaxy_text: str) -> frozenset[str]:
    """galaxy.yml text -> the top-level names its manifest directives admit.

    ``include README.md meta/runtime.yml`` -> README.md, meta; ``recursive-include plugins *.py`` ->
    plugins; ``global-exclude``/``exclude``/``prune`` admit nothing. Raises ScanError without directives.
    """
    directives = ((yaml.safe_load(galaxy_text) or {}).get("manifest") or {}).get("directives") or []
    if not directives:
        raise ScanError("galaxy.yml has no manifest.directives: the artifact is not an allow-list")
    allowed = set(GENERATED)
    for directive in directives:
        words = str(directive).split()
        if words[0] == "include":
            allowed.update(word.split("/", 1)[0] for word in words[1:])
        elif words[0] in ("recursive-include", "graft"):
            allowed.add(words[1].split("/", 1)[0])
    return frozenset(allowed)


def inventory_shaped(name: str) -> str | None:
    """Why the member path ``name`` is inventory-shaped (a phrase), or None."""
    parts = PurePosixPath(name).parts
    folders, base = parts[:-1], parts[-1]
    for index, folder in enumerate(folders):
        if folder in VARS_DIRS:
            return "inventory variables (under %s/)" % folder
        if folder in INVENTORY_DIRS and folders[:index + 1] != ("plugins", "inventory"):
            return "an inventory (under %s/)" % folder
    if INVENTORY_FILE.fullmatch(base):
        return "an inventory file"
    if VAULT_FILE.fullmatch(base):
        return "a vault file (by its name)"
    return None


def is_placeholder_token(random_part: str) -> bool:
    return len(set(random_part)) <= PLACEHOLDER_MAX_DISTINCT or "EXAMPLE" in random_part


def is_private_key_b64(run: str) -> bool:
    """Whether a base64 run starting with "-----BEGIN" encodes a private key block's first line."""
    head = run[:80][:len(run[:80]) // 4 * 4]
    try:
        return b"PRIVATE KEY" in base64.b64decode(head)
    except ValueError:
        return False


def token_shapes(line: str) -> list[str]:
    """Kinds of the token shapes in ``line``, placeholders left out; a kind names the prefix, never the value."""
    kinds = []
    for kind, pattern in TOKEN_SHAPES:
        for match in pattern.finditer(line):
            groups = match.groupdict()
            prefix, random_part = groups.get("prefix"), groups.get("random")
            if random_part is not None and is_placeholder_token(random_part[:43]):
                continue
            if prefix and prefix.startswith("gh") and len(random_part) < GITHUB_CLASSIC_MIN:
                continue
            if groups.get("b64") is not None and not is_private_key_b64(groups["b64"]):
                continue
            kinds.append(kind % prefix if prefix else kind)
            break
    for kind, pattern in () if kinds else CONTEXT_SHAPES:
        for match in pattern.finditer(line):
            secret = match.group("secret").strip("\"'")
            if not secret or not is_literal(secret) or secret.lower() in URL_PLACEHOLDER_WORDS:
                continue
            prefix = match.groupdict().get("prefix")
            kinds.append(kind % prefix if prefix else kind)
            break
    return kinds


def is_secret_name(key: str, uci: bool = False) -> bool:
    """Whether ``key`` names a secret (SECRET_KEY, case-insensitive, '-' read as '_'); in UCI (``uci``) its last
    dotted part is the option's name, and ``key`` counts too."""
    name = key.lower().replace("-", "_")
    if uci:
        name = name.rsplit(".", 1)[-1]
        if name == "key":
            return True
    return bool(SECRET_KEY.fullmatch(name))


def first_value(rest: str, inline: bool | str) -> tuple[str, str | None]:
    """The value at the start of ``rest`` (the text after ``:`` or ``=``) and, when it was quoted, what follows it.

    ``inline`` (``key=value`` inside a line): an unquoted value ends at a blank or a quote; ``"flow"`` (a YAML
    flow mapping's ``key: value``): at a ``,``, ``}`` or ``]``.
    """
    rest = rest.strip()
    if rest[:1] in ("'", '"'):
        end = rest.find(rest[0], 1)
        return (rest[1:end], rest[end + 1:].strip()) if end > 0 else (rest[1:], "")
    if inline == "flow":
        rest = re.split(r"[,}\]]", rest, maxsplit=1)[0]
    elif inline:
        rest = re.split(r"[\s'\"`]", rest, maxsplit=1)[0]
    rest = re.split(r"\s+#", rest, maxsplit=1)[0]
    return rest.strip().rstrip(",;)]}`").strip(), None


def is_literal(value: str) -> bool:
    """Whether a variable's value (without quotes) is a literal secret by the rule in the module docstring."""
    plain = value.strip()
    lowered = plain.lower()
    if lowered in YAML_NON_LITERAL:
        return False
    if plain[0] in "|>[{" or ENV_REFERENCE.match(plain) or plain.startswith("!vault") or "{{" in plain or "{%" in plain:
        return False
    if (plain.startswith("<") and plain.endswith(">")) or "..." in plain or "\u2026" in plain:
        return False
    if METAVARIABLE.fullmatch(plain) or FILE_PATH.fullmatch(plain):
        return False
    return len(set(plain)) > PLACEHOLDER_MAX_DISTINCT and lowered not in PLACEHOLDER_WORDS


# Inside a Jinja expression: a quoted literal the expression starts with ({{ 'x' }}, {{ 'x' | password_hash(...) }})
# or gives as default() / d().
JINJA_LEADING_LITERAL = re.compile(r"\s*(['\"])(?P<literal>.*?)\1\s*(?:\||$)")
JINJA_DEFAULT_LITERAL = re.compile(r"(?<![\w.])(?:default|d)\(\s*(['\"])(?P<literal>.*?)\1")


def jinja_literal(text: str) -> bool:
    """Whether ``text`` (a value, quoted or not) starts with a Jinja expression holding a literal secret: the
    quoted string it starts with (``{{ 'Pw' | password_hash('sha512') }}``) or its ``default('...')``."""
    text = text.strip().lstrip("\"'")
    if not text.startswith("{{"):
        return False
    end = text.find("}}")
    expression = text[2:end if end >= 0 else None]
    literals = [match.group("literal") for match in JINJA_DEFAULT_LITERAL.finditer(expression)]
    leading = JINJA_LEADING_LITERAL.match(expression)
    if leading:
        literals.append(leading.group("literal"))
    return any(literal.strip() and is_literal(literal) for literal in literals)


def secret_assignments(line: str, python: bool) -> list[str]:
    """Secret-named keys given a literal value in ``line``.

    ``python``: only a quoted string that is the whole value counts (a bare value is code, and so is a
    string that an operator or a method call follows: ``"(%s)" % x``, ``"{}".format(x)``, ``"a" + b``).
    """
    found = []
    forms = [(YAML_KEY.match(line), False), (INI_KEY.match(line), False)]
    forms += [(match, False) for match in QUOTED_KEY.finditer(line)]
    forms += [(match, True) for match in INLINE_KEY.finditer(line)]
    forms += [(match, "flow") for match in FLOW_KEY.finditer(line)]
    forms += [(UCI_OPTION.match(line), "uci"), (UCI_SET.search(line), "uci")]
    for match, inline in forms:
        if not match:
            continue
        key = match.group("key")
        if key in found or not is_secret_name(key, uci=inline == "uci"):
            continue
        value, after = first_value(match.group("rest"), True if inline == "uci" else inline)
        if python and (after is None or after[:1] in ("%", ".", "+", "*", "[")):
            continue
        if is_literal(value) or jinja_literal(match.group("rest")):
            found.append(key)
    return found


def code_lines(text: str, name: str) -> list[tuple[int, str]]:
    """(1-based line, text) to check for secrets in variables: every line, or in prose files only code."""
    lines = list(enumerate(text.splitlines(), 1))
    if not name.endswith(PROSE_SUFFIXES):
        return lines
    code, opener = [], None
    for number, line in lines:
        fence = FENCE.match(line)
        if opener is None and fence:
            opener = fence.group(1)
        elif opener is None:
            code.extend((number, span[0] or span[1]) for span in INLINE_CODE.findall(line))
        elif fence and fence.group(1)[0] == opener[0] and len(fence.group(1)) >= len(opener) and not fence.group(2).strip():
            opener = None
        else:
            code.append((number, line))
    return code


def is_literal_scalar(node: yaml.Node) -> bool:
    """Whether a composed YAML node is a scalar with a literal value (not ``!vault``-tagged)."""
    return isinstance(node, yaml.ScalarNode) and not node.tag.startswith("!vault") and (is_literal(node.value) or jinja_literal(node.value))


def node_lines(node: yaml.Node) -> tuple[int, int]:
    """The 1-based first and last line of a composed node's text (a block scalar ends at the start of the next line)."""
    end = node.end_mark.line + (0 if node.end_mark.column == 0 and node.end_mark.line > node.start_mark.line else 1)
    return node.start_mark.line + 1, end


def private_prompt_defaults(prompts: yaml.SequenceNode) -> list[tuple[int, int, int, str]]:
    """(line, first, last, kind) of each literal ``default`` of a ``vars_prompt`` entry whose ``private`` is
    true, or whose ``private`` is left out (Ansible's default: true) and whose ``name`` is secret-named."""
    found = []
    for item in prompts.value:
        if not isinstance(item, yaml.MappingNode):
            continue
        keys = {key.value: key for key, value in item.value if isinstance(key, yaml.ScalarNode)}
        fields = {key.value: value for key, value in item.value if isinstance(key, yaml.ScalarNode)}
        name, private, default = fields.get("name"), fields.get("private"), fields.get("default")
        name = name.value if isinstance(name, yaml.ScalarNode) else ""
        if default is None or not is_literal_scalar(default):
            continue
        if isinstance(private, yaml.ScalarNode) and private.value.lower() in ("false", "no", "off"):
            continue
        if private is None and not is_secret_name(name):
            continue
        found.append((keys["default"].start_mark.line + 1, *node_lines(default),
                      "a literal default of a private vars_prompt (%s)" % name))
    return found


def yaml_secrets(text: str) -> list[tuple[int, int, int, str]]:
    """What a line-by-line reading misses in a YAML (or JSON) text, read as YAML: (key line, first line of the
    value, last line of the value, kind) of each secret-named key with a literal scalar value wherever the YAML
    puts it (a block scalar, a plain scalar on the next line, an alias of an anchored literal, an explicit
    ``? key``, a JSON key written with escapes), and of each literal default of a private ``vars_prompt``.
    A text that is not YAML (a Jinja template named .yml) gives []."""
    try:
        stack = [node for node in yaml.compose_all(text, Loader=yaml.SafeLoader) if node is not None]
    except yaml.YAMLError:
        return []
    found, seen = [], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
                if not isinstance(key, yaml.ScalarNode):
                    continue
                if key.value == "vars_prompt" and isinstance(value, yaml.SequenceNode):
                    found.extend(private_prompt_defaults(value))
                if is_secret_name(key.value) and is_literal_scalar(value):
                    found.append((key.start_mark.line + 1, *node_lines(value),
                                  "a literal value of a secret-named variable (%s)" % key.value))
    return found


def secret_shapes(text: str, name: str = "") -> list[tuple[int, str]]:
    """(1-based line, kind) of each secret in ``text`` (the member ``name`` picks the rules); never the value."""
    found = {}
    for number, line in enumerate(text.splitlines(), 1):
        kinds = token_shapes(line)
        if kinds:
            found[number] = kinds
    python = name.endswith(".py")
    for number, line in code_lines(text, name):
        if number in found:
            continue
        for key in secret_assignments(line, python):
            found.setdefault(number, []).append("a literal value of a secret-named variable (%s)" % key)
    if name.endswith(YAML_SUFFIXES):
        for number, first, last, kind in sorted(yaml_secrets(text)):
            if number not in found and not any(line in found for line in range(first, last + 1)):
                found[number] = [kind]
    return [(number, kind) for number in sorted(found) for kind in found[number]]


def member_text(data: bytes) -> str:
    """A member's bytes as text: UTF-16 when it starts with a UTF-16 byte order mark, else UTF-8 without a leading
    byte order mark (a Windows editor's, which would hide the first line's key); undecodable bytes replaced."""
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def scan(artifact: Path, allowed: frozenset[str]) -> tuple[list[str], int]:
    """Problems (one sentence each) and the number of members scanned."""
    problems = []
    count = 0
    with tarfile.open(artifact, "r:gz") as tar:
        for member in tar.getmembers():
            name = member.name[2:] if member.name.startswith("./") else member.name
            if member.isdir():
                continue
            count += 1
            if not member.isfile():
                problems.append("%s: not a regular file (%s)" % (name, "link" if member.issym() or member.islnk() else "special"))
                continue
            if name.split("/", 1)[0] not in allowed:
                problems.append("%s: outside the allow-list (galaxy.yml manifest: %s)" % (name, ", ".join(sorted(allowed))))
            why = inventory_shaped(name)
            if why:
                problems.append("%s: %s, which must not ship: it got past galaxy.yml's manifest excludes; move it out of the "
                                "collection's tree" % (name, why))
            text = member_text(tar.extractfile(member).read())
            for line, kind in secret_shapes(text, name):
                problems.append("%s:%d: %s" % (name, line, kind))
    return problems, count


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: scan_artifact.py ARTIFACT.tar.gz [GALAXY_YML]")
        return 2
    artifact = Path(argv[0])
    galaxy = Path(argv[1]) if len(argv) == 2 else Path(__file__).resolve().parents[1] / "galaxy.yml"
    try:
        allowed = allowed_top_level(galaxy.read_text(encoding="utf-8"))
        problems, count = scan(artifact, allowed)
    except (ScanError, OSError, tarfile.TarError) as exc:
        print("FAIL %s: %s" % (artifact.name, exc))
        return 1
    for problem in problems:
        print("FAIL %s: %s" % (artifact.name, problem))
    bad = len({problem.split(":", 1)[0] for problem in problems})
    print("%d passed, %d failed" % (count - bad, bad))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
