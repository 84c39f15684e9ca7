"""scripts/scan_artifact.py: the allow-list, inventory-shaped paths and the secret shapes, on text and tarballs made here.

Every secret is random and made at run time; a prefix is split in two ("gh" "p_") so that no literal in
this file has a secret's shape.
"""

import base64
import io
import os
import secrets
import string
import sys
import tarfile
from pathlib import Path

import pytest
import yaml
from distlib.manifest import Manifest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "scripts"))

import scan_artifact as sa  # noqa: E402

GALAXY = REPO / "galaxy.yml"
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
WG_KIND = "a WireGuard key (44 base64 characters, 32 bytes)"
PEM_KIND = "a PEM/OpenSSH private key block"
DASHES = "-" * 5


def rand(alphabet, n):
    return "".join(secrets.choice(alphabet) for position in range(n))


def random_key():
    return base64.b64encode(os.urandom(32)).decode()


def var(key):
    return "a literal value of a secret-named variable (%s)" % key


# --- the allow-list --------------------------------------------------------------------------------------------

def test_allowed_top_level_from_this_galaxy_yml():
    assert sa.allowed_top_level(GALAXY.read_text()) == {
        "MANIFEST.json", "FILES.json", "meta", "README.md", "CHANGELOG.rst", "LICENSE", "changelogs", "plugins", "roles",
        "playbooks", "docs"}


def test_allowed_top_level_needs_directives():
    with pytest.raises(sa.ScanError, match="no manifest.directives"):
        sa.allowed_top_level("namespace: x\nbuild_ignore: [tests]\n")


# --- inventory-shaped paths ------------------------------------------------------------------------------------

INVENTORY_SHAPED = {
    "playbooks/host_vars/peer.yml": "inventory variables (under host_vars/)",
    "playbooks/host_vars/peer/vars.yml": "inventory variables (under host_vars/)",
    "playbooks/host_vars/peer/a/b.yml": "inventory variables (under host_vars/)",
    "roles/x/group_vars/all.yml": "inventory variables (under group_vars/)",
    "docs/group_vars/all/notes.md": "inventory variables (under group_vars/)",
    "roles/x/inventory/hosts.yml": "an inventory (under inventory/)",
    "playbooks/inventories/prod/site.yml": "an inventory (under inventories/)",
    "playbooks/inventory.yml": "an inventory file",
    "playbooks/inventory_prod.yaml": "an inventory file",
    "playbooks/inventory.ini": "an inventory file",
    "playbooks/inventory": "an inventory file",
    "playbooks/hosts.yml": "an inventory file",
    "playbooks/hosts": "an inventory file",
    "roles/x/vars/vault.yml": "a vault file (by its name)",
    "roles/x/vars/secrets.vault.yml": "a vault file (by its name)",
    "roles/x/files/wg.vault": "a vault file (by its name)",
}
NOT_INVENTORY_SHAPED = ("docs/inventory.md", "docs/hosts.md", "plugins/inventory/fleet.py", "plugins/inventory/fleet.yml",
                        "roles/x/templates/hosts.j2", "roles/x/tasks/main.yml", "playbooks/site.yml",
                        "plugins/modules/inventory_facts.py", "roles/x/vars/main.yml")


@pytest.mark.parametrize("path", sorted(INVENTORY_SHAPED))
def test_inventory_shaped(path):
    assert sa.inventory_shaped(path) == INVENTORY_SHAPED[path]


@pytest.mark.parametrize("path", NOT_INVENTORY_SHAPED)
def test_not_inventory_shaped(path):
    assert sa.inventory_shaped(path) is None


def test_galaxy_yml_excludes_what_the_scan_calls_inventory_shaped(tmp_path):
    """distlib (what ansible-galaxy runs) on galaxy.yml's directives: every inventory-shaped path of an allowed
    type is left out, the others ship. Deeper than 3 levels below host_vars/ distlib's excludes stop (its * stops
    at /): the scan still names such a path."""
    deep = "playbooks/host_vars/a/b/c/d.yml"
    paths = sorted(INVENTORY_SHAPED) + list(NOT_INVENTORY_SHAPED) + [deep]
    for path in paths:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n")
    manifest = Manifest(str(tmp_path))
    for directive in yaml.safe_load(GALAXY.read_text())["manifest"]["directives"]:
        manifest.process_directive(directive)
    shipped = {str(Path(f).relative_to(tmp_path)) for f in manifest.files}
    assert not shipped & set(INVENTORY_SHAPED)
    assert shipped - {deep} == set(NOT_INVENTORY_SHAPED)
    assert deep in shipped and sa.inventory_shaped(deep) == "inventory variables (under host_vars/)"


# --- token shapes ----------------------------------------------------------------------------------------------

def github_token():
    return "gh" + "p_" + rand(ALNUM, 36)


TOKENS = [
    (lambda: "PrivateKey = " + random_key(), WG_KIND),
    (lambda: "x='%s'" % random_key(), WG_KIND),
    (lambda: DASHES + "BEGIN OPENSSH PRIVATE KEY" + DASHES, PEM_KIND),
    (lambda: DASHES + "BEGIN RSA PRIVATE KEY" + DASHES, PEM_KIND),
    (lambda: DASHES + "BEGIN ENCRYPTED PRIVATE KEY" + DASHES, PEM_KIND),
    (lambda: DASHES + "BEGIN PGP PRIVATE KEY BLOCK" + DASHES, "a PGP private key block"),
    (lambda: "PuTTY-User-" + "Key-File-3: ssh-ed25519", "a PuTTY private key file"),
    (lambda: "$ANSIBLE" + "_VAULT;1.1;AES256", "an Ansible Vault encrypted blob ($ANSIBLE_VAULT header)"),
    (lambda: "  password: !vault |\n    $ANSIBLE" + "_VAULT;1.2;AES256;prod",
     "an Ansible Vault encrypted blob ($ANSIBLE_VAULT header)"),
    (lambda: "token: " + github_token(), "a GitHub token (ghp_)"),
    (lambda: "url: https://x:" + "gh" + "s_" + rand(ALNUM, 36) + "@github.com/o/r", "a GitHub token (ghs_)"),
    (lambda: "GH=" + "github" + "_pat_" + rand(ALNUM, 22) + "_" + rand(ALNUM, 59), "a GitHub token (github_pat_)"),
    (lambda: "`" + "gl" + "pat-" + rand(ALNUM + "_-", 20) + "`", "a GitLab personal access token (glpat-)"),
    (lambda: "hook: " + "xo" + "xb-" + rand(string.digits, 12) + "-" + rand(ALNUM, 24), "a Slack token (xoxb-)"),
    (lambda: "aws_access_key_id = " + "AK" + "IA" + rand(UPPER_DIGITS, 16), "an AWS access key ID (AKIA)"),
    (lambda: '"AccessKeyId": "' + "AS" + "IA" + rand(UPPER_DIGITS, 16) + '"', "an AWS access key ID (ASIA)"),
    (lambda: "aws_secret_access_key = " + rand(ALNUM + "/+", 40), "an AWS secret access key (aws_secret_access_key)"),
    (lambda: "export AWS_SECRET_ACCESS_KEY=" + rand(ALNUM + "/+", 40), "an AWS secret access key (aws_secret_access_key)"),
    (lambda: '{"key": "' + "AI" + "za" + rand(ALNUM + "_-", 35) + '"}', "a Google API key (AIza)"),
]


@pytest.mark.parametrize("make, kind", TOKENS, ids=[shape[1] for shape in TOKENS])
def test_token_shapes(make, kind):
    text = make()
    assert sa.secret_shapes("# first line\n" + text + "\n", "docs/a.md") == [(2 + text.count("\n"), kind)]


NOT_TOKENS = {
    "WireGuard placeholder": "A" * 43 + "=",
    "4 distinct characters": "AbCd" * 11 + "=",
    "inside a longer base64 run": "x" + random_key()[:43] + "==",
    "44 characters but not 32 bytes": random_key()[:42] + "B=",
    "PEM public key": DASHES + "BEGIN PUBLIC KEY" + DASHES,
    "PGP public key": DASHES + "BEGIN PGP PUBLIC KEY BLOCK" + DASHES,
    "vault password file variable": "ANSIBLE_VAULT_PASSWORD_FILE is read from the environment",
    "GitHub placeholder": "gh" + "p_" + "x" * 36,
    "GitHub too short": "gh" + "p_" + rand(ALNUM, 20),
    "GitHub inside a word": "my" + "gh" + "p_" + rand(ALNUM, 36),
    "GitLab placeholder": "gl" + "pat-" + "x" * 20,
    "Slack placeholder": "xo" + "xb-" + "1" * 12,
    "AWS documentation key ID": "AK" + "IAIOSFODNN7" + "EXAMPLE",
    "AWS key ID of 21 characters": "AK" + "IA" + rand(UPPER_DIGITS, 17),
    "AWS documentation secret": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLE" + "KEY",
    "AWS secret of 39 characters": "aws_secret_access_key = " + rand(ALNUM, 39),
    "Google key of 38 characters": "AI" + "za" + rand(ALNUM, 34),
}


@pytest.mark.parametrize("what", sorted(NOT_TOKENS))
def test_not_token_shapes(what):
    assert sa.token_shapes(NOT_TOKENS[what]) == []


def test_a_line_with_a_token_is_reported_once_by_the_token():
    assert sa.secret_shapes("github_token: %s\n" % github_token(), "roles/x/defaults/main.yml") == [(1, "a GitHub token (ghp_)")]


# --- secrets in variables --------------------------------------------------------------------------------------

def pw():
    return rand(ALNUM, 16)


VARS = [
    ("roles/x/defaults/main.yml", lambda: "ansible_become_password: " + pw(), "ansible_become_password"),
    ("roles/x/defaults/main.yml", lambda: "  ansible_password: '%s'" % pw(), "ansible_password"),
    ("playbooks/site.yml", lambda: "    - ansible_ssh_pass: \"%s\"  # note" % pw(), "ansible_ssh_pass"),
    ("playbooks/site.yml", lambda: "ansible_become_pass: " + pw(), "ansible_become_pass"),
    ("roles/x/vars/main.yml", lambda: "tunnelfix_api_token: " + pw(), "tunnelfix_api_token"),
    ("roles/x/vars/main.yml", lambda: "db_passwd: " + pw(), "db_passwd"),
    ("roles/x/vars/main.yml", lambda: "client_secret: " + pw(), "client_secret"),
    ("roles/x/vars/main.yml", lambda: "api_key: " + pw(), "api_key"),
    ("roles/x/vars/main.yml", lambda: "wg_preshared_key: " + pw(), "wg_preshared_key"),
    ("roles/x/vars/main.yml", lambda: "wifi_psk: " + pw(), "wifi_psk"),
    ("roles/x/vars/main.yml", lambda: "secret: 73914682", "secret"),  # a number is a literal too
    ("roles/x/templates/wg.conf.j2", lambda: "PrivateKey = " + pw(), "PrivateKey"),
    ("docs/a.json", lambda: '{"user": "x", "password": "%s"}' % pw(), "password"),
    ("plugins/module_utils/x.py", lambda: 'PASSWORD = "%s"' % pw(), "PASSWORD"),
    ("plugins/module_utils/x.py", lambda: "connect(host, password='%s')" % pw(), "password"),
    ("plugins/module_utils/x.py", lambda: 'auth = {"token": "%s"}' % pw(), "token"),
    ("docs/a.md", lambda: "```ini\nhub ansible_host=192.0.2.1 ansible_password=%s\n```" % pw(), "ansible_password"),
    ("docs/a.md", lambda: "~~~yaml\nvpn:\n  private_key: %s\n~~~" % pw(), "private_key"),
    ("docs/a.md", lambda: "run `ansible-playbook -e ansible_become_password=%s site.yml`" % pw(), "ansible_become_password"),
    ("docs/a.md", lambda: "uci: `network.henet.password='%s'`" % pw(), "network.henet.password"),
    ("CHANGELOG.rst", lambda: "the option ``vpn_passphrase: %s`` was" % pw(), "vpn_passphrase"),
]


@pytest.mark.parametrize("name, make, key", VARS, ids=["%s: %s" % (case[0], case[2]) for case in VARS])
def test_secret_variables(name, make, key):
    text = make()
    line = next(number for number, t in enumerate(text.splitlines(), 1) if key in t)
    assert sa.secret_shapes(text + "\n", name) == [(line, var(key))]


NOT_VARS = [
    ("roles/x/defaults/main.yml", 'ansible_become_password: "{{ vault_become_password }}"'),
    ("roles/x/defaults/main.yml", "wg_private_key: \"{{ lookup('file', key_path) }}\""),
    ("roles/x/tasks/main.yml", "    password: \"{{ item.password | default(omit) }}\""),
    ("roles/x/tasks/main.yml", "    token: '{{ omit }}'"),
    ("roles/x/defaults/main.yml", 'wg_psk: "tf-{{ inventory_hostname }}-{{ vault_psk_suffix }}"'),
    ("roles/x/defaults/main.yml", "ansible_password:"),
    ("roles/x/defaults/main.yml", 'ansible_password: ""'),
    ("roles/x/defaults/main.yml", "api_token: ~"),
    ("roles/x/defaults/main.yml", "api_token: null"),
    ("roles/x/defaults/main.yml", "has_preshared_key: false"),
    ("roles/x/defaults/main.yml", "secret: true"),
    ("roles/x/defaults/main.yml", "password: <redacted>"),
    ("roles/x/defaults/main.yml", "password: '<your become password>'"),
    ("roles/x/defaults/main.yml", "password: CHANGE_ME"),
    ("roles/x/defaults/main.yml", "password: changeme"),
    ("roles/x/defaults/main.yml", "password: REDACTED"),
    ("roles/x/defaults/main.yml", "password: xxxxxxxx"),
    ("roles/x/defaults/main.yml", "password: '********'"),
    ("roles/x/defaults/main.yml", "private_key: KKKK...K="),
    ("roles/x/defaults/main.yml", "private_key: 'KKKK\u2026='"),
    ("roles/x/defaults/main.yml", "token: $GITHUB_TOKEN"),
    ("roles/x/defaults/main.yml", "token: ${CI_JOB_TOKEN}"),
    ("roles/x/defaults/main.yml", "password: !vault |"),
    ("roles/x/defaults/main.yml", "password: |"),
    ("roles/x/defaults/main.yml", "secret: {name: x}"),
    ("roles/x/defaults/main.yml", "password_file: /etc/tunnelfix/pw"),
    ("roles/x/defaults/main.yml", "token_count: 12"),
    ("roles/x/defaults/main.yml", "ansible_ssh_private_key_file: ~/.ssh/id_ed25519"),
    ("roles/x/defaults/main.yml", "  description: the peer's token: a value from the hub"),
    ("roles/x/tasks/main.yml", "    when: password == 'x1y2z3w4'"),
    ("roles/x/templates/wg.conf.j2", "PrivateKey = {{ wireguard_private_key }}"),
    ("plugins/module_utils/x.py", "password = module.params['password']"),
    ("plugins/module_utils/x.py", "connect(host, password=password)"),
    ("plugins/module_utils/x.py", 'token = "(^|[^A-Za-z0-9])%s($|%s)" % (a, b)'),
    ("plugins/module_utils/x.py", 'secret = "{}-{}".format(a, b)'),
    ("plugins/module_utils/x.py", "has_private_key = private_key != _NONE"),
    ("docs/a.md", "The token: a string the hub hands out, never stored."),
    ("docs/a.md", "Set ansible_become_password: prompted by --ask-become-pass."),
    ("docs/a.md", "```yaml\nansible_become_password: \"{{ vault_become }}\"\n```"),
    ("docs/a.md", "`-e wg_psk=...`"),
]


@pytest.mark.parametrize("name, text", NOT_VARS)
def test_not_secret_variables(name, text):
    assert sa.secret_shapes(text + "\n", name) == []


def test_fenced_block_ends():
    text = "```yaml\nx: 1\n```\npassword: %s in prose after the block\n" % pw()
    assert sa.secret_shapes(text, "docs/a.md") == []
    assert sa.secret_shapes(text, "docs/a.yml") == [(4, var("password"))]


# --- the scan of a tarball -------------------------------------------------------------------------------------

def test_scan_names_paths_and_secrets_never_values(tarball):
    allowed = sa.allowed_top_level(GALAXY.read_text())
    key, token, become = random_key(), github_token(), pw()
    artifact = tarball({"plugins/modules/x.py": "ok\n", "bench/state/id_ed25519": "x\n",
                        "docs/a.md": "k = %s\n" % key, "MANIFEST.json": "{}",
                        "playbooks/host_vars/peer.yml": "---\nansible_become_password: %s\n" % become,
                        "roles/x/defaults/main.yml": "---\nci_token: %s\n" % token})
    problems, count = sa.scan(artifact, allowed)
    assert count == 6
    assert problems[0].startswith("bench/state/id_ed25519: outside the allow-list (galaxy.yml manifest: CHANGELOG.rst")
    assert problems[1:] == [
        "docs/a.md:1: " + WG_KIND,
        "playbooks/host_vars/peer.yml: inventory variables (under host_vars/), which must not ship: it got past galaxy.yml's "
        "manifest excludes; move it out of the collection's tree",
        "playbooks/host_vars/peer.yml:2: " + var("ansible_become_password"),
        "roles/x/defaults/main.yml:2: a GitHub token (ghp_)",
    ]
    assert not any(secret in problem for secret in (key, token, become) for problem in problems)


def test_scan_refuses_links(tmp_path):
    path = tmp_path / "a.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("docs/x.md")
        info.type, info.linkname = tarfile.SYMTYPE, "/root/.ssh/id_ed25519"
        tar.addfile(info)
    assert sa.scan(path, frozenset({"docs"})) == (["docs/x.md: not a regular file (link)"], 1)


def test_main_exit_status(tarball, capsys):
    clean = tarball({"README.md": "hello\n"})
    assert sa.main([str(clean), str(GALAXY)]) == 0
    assert capsys.readouterr().out == "1 passed, 0 failed\n"
    leaky = tarball({"README.md": "```\nexport GITHUB_TOKEN=%s\n```\n" % github_token(), "docs/a.md": "ok\n"})
    assert sa.main([str(leaky), str(GALAXY)]) == 1
    assert capsys.readouterr().out == "FAIL a.tar.gz: README.md:2: a GitHub token (ghp_)\n1 passed, 1 failed\n"
    assert sa.main([]) == 2


# --- how a member is read (breaker, issue 29) ------------------------------------------------------------------

def test_utf8_bom_does_not_hide_the_first_line(tmp_path):
    """A file saved with a UTF-8 byte order mark (Windows editors): its first line is read as written."""
    path = tmp_path / "a.tar.gz"
    data = b"\xef\xbb\xbf" + ("ansible_password: %s\r\nx: 1\r\n" % pw()).encode()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("roles/x/defaults/main.yml")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    assert sa.scan(path, frozenset({"roles"}))[0] == ["roles/x/defaults/main.yml:1: " + var("ansible_password")]


def test_utf16_file_is_read_as_text():
    data = ("# notes\n```\nexport GITHUB_TOKEN=%s\n```\n" % github_token()).encode("utf-16")
    assert sa.secret_shapes(sa.member_text(data), "docs/a.md") == [(3, "a GitHub token (ghp_)")]


@pytest.mark.parametrize("text", [
    "````md\n```\nansible_password: %s\n````\n",      # a fence inside a longer fence does not end it
    "```\nx\n~~~\nansible_password: %s\n```\n",        # nor does a fence of the other character
    "```\n``` not a closing fence\nansible_password: %s\n```\n",  # nor one with an info string
], ids=["longer", "other character", "info string"])
def test_nested_fences_stay_code(text):
    text = text % pw()
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.startswith("ansible_password"))
    assert sa.secret_shapes(text, "docs/a.md") == [(line, var("ansible_password"))]


# --- more shapes people leak (breaker, issue 29) ---------------------------------------------------------------

URL_KIND = "credentials in a URL (scheme://user:password@host)"
AUTH_KIND = "an HTTP Authorization header (%s)"
CLI_KIND = "a secret on a command line (%s)"


def pem_b64():
    """A Kubernetes-style base64 of a private key block's first lines (the key itself random)."""
    block = DASHES + "BEGIN OPENSSH PRIVATE KEY" + DASHES + "\n" + rand(ALNUM, 64) + "\n"
    return base64.b64encode(block.encode()).decode()


MORE_SHAPES = [
    ("playbooks/p.yml", lambda: "    url: https://admin:%s@nexus.example.org/repo" % pw(), URL_KIND),
    ("roles/x/templates/a.j2", lambda: "proxy=http://bob:%s@192.0.2.8:3128" % pw(), URL_KIND),
    ("docs/a.md", lambda: "Clone it: git clone https://deploy:%s@git.example.org/x.git" % pw(), URL_KIND),
    ("playbooks/p.yml", lambda: "      Authorization: Bearer " + rand(ALNUM + "._-", 40), AUTH_KIND % "Bearer"),
    ("playbooks/p.yml", lambda: "      Authorization: \"Basic %s\"" % base64.b64encode(("admin:" + pw()).encode()).decode(),
     AUTH_KIND % "Basic"),
    ("docs/a.md", lambda: "```sh\ncurl -H 'Authorization: token %s' https://api.example.org\n```" % rand(ALNUM, 30),
     AUTH_KIND % "token"),
    ("playbooks/p.yml", lambda: "- ansible.builtin.command: sshpass -p %s ssh root@hub" % pw(), CLI_KIND % "sshpass -p"),
    ("playbooks/p.yml", lambda: "- ansible.builtin.shell: curl -fsS -u admin:%s https://x/api" % pw(), CLI_KIND % "curl -u"),
    ("docs/a.md", lambda: "```sh\nansible-galaxy collection publish x.tar.gz --token %s\n```" % rand(ALNUM, 40),
     CLI_KIND % "--token"),
    ("playbooks/p.yml", lambda: "    url: https://hooks.slack.com/services/T%s/B%s/%s" % (
        rand(UPPER_DIGITS, 9), rand(UPPER_DIGITS, 9), rand(ALNUM, 24)), "a Slack webhook URL"),
    ("playbooks/p.yml", lambda: "    url: https://discord.com/api/webhooks/%s/%s" % (rand(string.digits, 18), rand(ALNUM + "_-", 68)),
     "a Discord webhook URL"),
    ("playbooks/p.yml", lambda: "  tls.key: " + pem_b64(), "a base64-encoded private key block"),
]


@pytest.mark.parametrize("name, make, kind", MORE_SHAPES, ids=[case[2] + " in " + case[0] for case in MORE_SHAPES])
def test_more_shapes(name, make, kind):
    text = make()
    line = len(text.splitlines()) if not text.startswith("```") else 2
    assert sa.secret_shapes(text + "\n", name) == [(line, kind)]


NOT_MORE_SHAPES = [
    ("docs/a.md", "```sh\ngit clone https://user:password@git.example.org/x.git\n```"),
    ("docs/a.md", "proxy: http://user:pass@proxy:3128 (the form)"),
    ("playbooks/p.yml", "    url: \"https://{{ nexus_user }}:{{ nexus_password }}@nexus.example.org/\""),
    ("playbooks/p.yml", "    url: https://{{ user }}:{{ pw | urlencode }}@nexus.example.org/"),
    ("playbooks/p.yml", "    url: \"https://$USER:$PASSWORD@host/\""),
    ("playbooks/p.yml", "    url: ssh://git@github.com:22/o/r.git"),
    ("playbooks/p.yml", "    url: http://[2001:db8::1]:8080/x@y"),
    ("playbooks/p.yml", "      Authorization: \"Bearer {{ api_token }}\""),
    ("playbooks/p.yml", "      Authorization: Bearer <token>"),
    ("docs/a.md", "```sh\ncurl -H \"Authorization: Bearer $TOKEN\" https://x\n```"),
    ("playbooks/p.yml", "- ansible.builtin.command: sshpass -p \"{{ ssh_pw }}\" ssh root@hub"),
    ("playbooks/p.yml", "- ansible.builtin.command: sshpass -f /root/pw ssh root@hub"),
    ("playbooks/p.yml", "- ansible.builtin.shell: curl -u \"$CI_USER:$CI_TOKEN\" https://x"),
    ("playbooks/p.yml", "- ansible.builtin.shell: podman run --user nobody:nogroup x"),
    ("docs/a.md", "```sh\nansible-galaxy collection publish x.tar.gz --token \"$GALAXY_TOKEN\"\n```"),
    ("docs/a.md", "```sh\nansible-playbook --ask-become-pass site.yml\n```"),
    ("playbooks/p.yml", "    url: https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("playbooks/p.yml", "  tls.crt: " + base64.b64encode((DASHES + "BEGIN CERTIFICATE" + DASHES + "\nMIIB" + rand(ALNUM, 40)).encode()).decode()),
]


@pytest.mark.parametrize("name, text", NOT_MORE_SHAPES)
def test_not_more_shapes(name, text):
    assert sa.secret_shapes(text + "\n", name) == []


def test_a_token_in_a_url_is_reported_once_by_the_token():
    line = "url: https://x:%s@github.com/o/r" % github_token()
    assert sa.secret_shapes(line + "\n", "playbooks/p.yml") == [(1, "a GitHub token (ghp_)")]


# --- more places a variable's secret is written (breaker, issue 29) --------------------------------------------

def crypt_hash():
    return "$6$" + rand(ALNUM, 16) + "$" + rand(ALNUM + "./", 86)


MORE_VARS = [
    ("roles/x/templates/wireless.j2", lambda: "\toption key '%s'" % pw(), "key"),
    ("roles/x/templates/network.j2", lambda: "    option password \"%s\"" % pw(), "password"),
    ("roles/x/templates/network.j2", lambda: "\tlist auth_secret '%s'" % pw(), "auth_secret"),
    ("docs/a.md", lambda: "```sh\nuci set wireless.@wifi-iface[0].key='%s'\n```" % pw(), "wireless.@wifi-iface[0].key"),
    ("docs/a.md", lambda: "```sh\nuci set wireless.default_radio0.key=%s\n```" % pw(), "wireless.default_radio0.key"),
    ("docs/a.md", lambda: "```sh\nmysqldump --password=%s db\n```" % pw(), "password"),
    ("docs/a.md", lambda: "```sh\nansible-galaxy collection publish x.tar.gz --api-key=%s\n```" % pw(), "api-key"),
    ("roles/x/vars/main.yml", lambda: "psk: " + pw(), "psk"),
    ("roles/x/vars/main.yml", lambda: "- {name: alice, password: %s, groups: wheel}" % pw(), "password"),
    ("playbooks/p.yml", lambda: "        password: '%s'" % crypt_hash(), "password"),
    ("playbooks/p.yml", lambda: "root_password: \"$y$j9T$%s$%s\"" % (rand(ALNUM, 22), rand(ALNUM, 43)), "root_password"),
]


@pytest.mark.parametrize("name, make, key", MORE_VARS, ids=["%s: %s" % (case[0], case[2]) for case in MORE_VARS])
def test_more_secret_variables(name, make, key):
    text = make()
    line = len(text.splitlines()) if not text.startswith("```") else 2
    assert sa.secret_shapes(text + "\n", name) == [(line, var(key))]


NOT_MORE_VARS = [
    ("roles/x/templates/wireless.j2", "\toption key '{{ wifi_key }}'"),
    ("roles/x/templates/wireless.j2", "\toption encryption 'psk2'"),
    ("roles/x/templates/network.j2", "\toption private_key '{{ wg_private_key }}'"),
    ("roles/x/templates/network.j2", "\toption keepalive '25'"),
    ("docs/a.md", "```sh\nuci set network.wg0.private_key=\"$(wg genkey)\"\n```"),
    ("docs/a.md", "```sh\nuci set dropbear.@dropbear[0].PasswordAuth=off\n```"),
    ("docs/a.md", "```sh\nuci set network.wg0.listen_port=51820\n```"),
    ("docs/a.md", "```sh\nmysqldump --password=\"$DB_PW\" db\n```"),
    ("docs/a.md", "```sh\nansible-playbook --vault-password-file=~/.vault_pass site.yml\n```"),
    ("roles/x/vars/main.yml", "psk: \"{{ vault_psk }}\""),
    ("roles/x/vars/main.yml", "- {name: alice, password: \"{{ alice_pw }}\"}"),
    ("roles/x/vars/main.yml", "- {name: alice, shell: /bin/sh}"),
    ("roles/x/defaults/main.yml", "token: ${CI_JOB_TOKEN}"),
    ("roles/x/defaults/main.yml", "token: $(cat /run/secrets/token)"),
]


@pytest.mark.parametrize("name, text", NOT_MORE_VARS)
def test_not_more_secret_variables(name, text):
    assert sa.secret_shapes(text + "\n", name) == []


# --- YAML read as YAML: values a line does not show (breaker, issue 29) ----------------------------------------

YAML_CASES = [
    ("block scalar", "vpn:\n  ansible_password: |\n    {pw}\n", 2, "ansible_password"),
    ("folded block scalar", "ansible_become_password: >-\n  {pw}\n", 1, "ansible_become_password"),
    ("plain scalar on the next line", "all:\n  vars:\n    ansible_password:\n      {pw}\n", 3, "ansible_password"),
    ("alias of an anchored literal", "common: &pw {pw}\nhub:\n  ansible_password: *pw\n", 3, "ansible_password"),
    ("multi-line flow mapping", "users:\n  - {{name: alice,\n     password: {pw}}}\n", 3, "password"),
    ("explicit key", "? api_token\n: {pw}\n", 1, "api_token"),
    ("JSON on one line, key in an escape", '{{"pass\\u0077ord": "{pw}"}}\n', 1, "password"),
]


@pytest.mark.parametrize("what, text, line, key", YAML_CASES, ids=[case[0] for case in YAML_CASES])
def test_yaml_values_a_line_does_not_show(what, text, line, key):
    name = "docs/a.json" if what.startswith("JSON") else "roles/x/defaults/main.yml"
    assert sa.secret_shapes(text.format(pw=pw()), name) == [(line, var(key))]


def test_vars_prompt_default_of_a_private_prompt():
    text = ("- hosts: all\n  vars_prompt:\n    - name: become_pw\n      prompt: Become password\n      private: true\n"
            "      default: %s\n    - name: iface\n      prompt: Interface\n      default: wg0\n"
            "    - name: api_token\n      prompt: Token\n      default: %s\n" % (pw(), pw()))
    assert sa.secret_shapes(text, "playbooks/p.yml") == [
        (6, "a literal default of a private vars_prompt (become_pw)"),
        (12, "a literal default of a private vars_prompt (api_token)")]


NOT_YAML_CASES = [
    ("block scalar with Jinja", "ansible_password: |\n  {{ vault_pw }}\n"),
    ("alias of a reference", "common: &pw \"{{ vault_pw }}\"\nhub:\n  ansible_password: *pw\n"),
    ("mapping value", "password:\n  type: str\n  no_log: true\n"),
    ("non-private prompt", "- hosts: all\n  vars_prompt:\n    - name: api_token\n      private: false\n      default: abcdefgh\n"),
    ("prompt default from a variable", "- hosts: all\n  vars_prompt:\n    - name: pw\n      private: true\n      default: \"{{ x }}\"\n"),
    ("not YAML (a Jinja template named .yml)", "{% if x %}\nansible_password: \"{{ y }}\"\n{% endif %}\n"),
]


@pytest.mark.parametrize("what, text", NOT_YAML_CASES, ids=[case[0] for case in NOT_YAML_CASES])
def test_not_yaml_secrets(what, text):
    assert sa.secret_shapes(text, "roles/x/defaults/main.yml") == []


def test_a_block_scalar_with_a_token_shape_is_reported_by_the_shape_only():
    text = "wg_private_key: |\n  %sBEGIN OPENSSH PRIVATE KEY%s\n  %s\n" % (DASHES, DASHES, rand(ALNUM, 60))
    assert sa.secret_shapes(text, "roles/x/defaults/main.yml") == [(2, PEM_KIND)]
    vault = "ansible_password: !vault |\n  $ANSIBLE" "_VAULT;1.1;AES256\n  6134%s\n" % rand(string.digits, 40)
    assert sa.secret_shapes(vault, "roles/x/defaults/main.yml") == [(2, "an Ansible Vault encrypted blob ($ANSIBLE_VAULT header)")]


def test_each_block_scalar_secret_is_reported_next_to_a_token():
    text = "a_password: |\n  %s\nb_token: %s\n" % (pw(), github_token())
    assert sa.secret_shapes(text, "roles/x/defaults/main.yml") == [(1, var("a_password")), (3, "a GitHub token (ghp_)")]


# --- what docs and roles reasonably write, which is not a secret (breaker, issue 29) ----------------------------

REASONABLE = [
    ("docs/a.md", "```sh\nansible-playbook site.yml -e ansible_become_password=YOUR_PASSWORD\n```"),
    ("docs/a.md", "```ini\nhub ansible_host=192.0.2.1 ansible_password=BECOME_PASSWORD\n```"),
    ("docs/a.md", "```sh\nsshpass -p SECRET ssh root@hub\n```"),
    ("docs/a.md", "```sh\ncurl -u USER:TOKEN https://x\n```"),
    ("docs/a.md", "```yaml\nwg_private_key: /etc/wireguard/wg0.key\n```"),
    ("roles/x/defaults/main.yml", "ssh_private_key: ~/.ssh/id_ed25519"),
    ("roles/x/defaults/main.yml", "wg_preshared_key: ./files/peer.psk"),
    ("roles/x/templates/wg.conf.j2", "PrivateKey = /etc/wireguard/private.key"),
]


@pytest.mark.parametrize("name, text", REASONABLE)
def test_reasonable_content_passes(name, text):
    assert sa.secret_shapes(text + "\n", name) == []


STILL_SECRET = [
    ("roles/x/defaults/main.yml", lambda: "ansible_password: Summer_Holiday_" + rand(string.digits, 4), "ansible_password"),
    ("roles/x/defaults/main.yml", lambda: "ansible_password: /%s" % pw(), "ansible_password"),
    ("roles/x/defaults/main.yml", lambda: "aws_secret_key: /%s+%s" % (rand(ALNUM, 20), rand(ALNUM, 18)), "aws_secret_key"),
]


@pytest.mark.parametrize("name, make, key", STILL_SECRET, ids=[case[2] for case in STILL_SECRET])
def test_still_secret(name, make, key):
    assert sa.secret_shapes(make() + "\n", name) == [(1, var(key))]


# --- registry, cloud and CI tokens (breaker, issue 29) ---------------------------------------------------------

HEX = "0123456789abcdef"
REGISTRY_TOKENS = [
    (lambda: "password: " + "py" + "pi-AgEIcHlwaS5vcmc" + rand(ALNUM + "_-", 80), "a PyPI API token (pypi-)"),
    (lambda: "//registry.npmjs.org/:_authToken=" + "np" + "m_" + rand(ALNUM, 36), "an npm access token (npm_)"),
    (lambda: "echo " + "dc" + "kr_pat_" + rand(ALNUM + "_-", 27) + " | docker login -u x --password-stdin",
     "a Docker Hub access token (dckr_pat_)"),
    (lambda: "do_token: " + "do" + "p_v1_" + rand(HEX, 64), "a DigitalOcean token (dop_v1_)"),
]


@pytest.mark.parametrize("make, kind", REGISTRY_TOKENS, ids=[case[1] for case in REGISTRY_TOKENS])
def test_registry_tokens(make, kind):
    assert sa.secret_shapes(make() + "\n", "roles/x/defaults/main.yml") == [(1, kind)]


def test_azure_storage_connection_string():
    line = ("conn: DefaultEndpointsProtocol=https;AccountName=tf;AccountKey=%s==;EndpointSuffix=core.windows.net"
            % rand(ALNUM + "+/", 86))
    assert sa.secret_shapes(line + "\n", "roles/x/defaults/main.yml") == [(1, var("AccountKey"))]


# --- a literal inside Jinja (breaker, issue 29) ----------------------------------------------------------------

JINJA_LITERALS = [
    ("playbooks/p.yml", lambda: "        password: \"{{ '%s' | password_hash('sha512') }}\"" % pw(), "password"),
    ("playbooks/p.yml", lambda: "ansible_become_password: \"{{ become_pw | default('%s') }}\"" % pw(), "ansible_become_password"),
    ("playbooks/p.yml", lambda: "api_token: \"{{ '%s' }}\"" % pw(), "api_token"),
    ("roles/x/templates/a.j2", lambda: "password={{ db_pw | d(\"%s\") }}" % pw(), "password"),
    ("playbooks/p.yml", lambda: "      MYSQL_PWD: " + pw(), "MYSQL_PWD"),
]


@pytest.mark.parametrize("name, make, key", JINJA_LITERALS, ids=["%s: %s" % (case[0], case[2]) for case in JINJA_LITERALS])
def test_jinja_literals(name, make, key):
    assert sa.secret_shapes(make() + "\n", name) == [(1, var(key))]


NOT_JINJA_LITERALS = [
    ("playbooks/p.yml", "        password: \"{{ user_pw | password_hash('sha512', 'mysecretsalt') }}\""),
    ("playbooks/p.yml", "ansible_become_password: \"{{ become_pw | default(omit) }}\""),
    ("playbooks/p.yml", "ansible_become_password: \"{{ become_pw | default('') }}\""),
    ("playbooks/p.yml", "api_token: \"{{ lookup('env', 'API_TOKEN') }}\""),
    ("playbooks/p.yml", "api_token: \"{{ lookup('file', '/run/secrets/api_token') }}\""),
    ("playbooks/p.yml", "wg_psk: \"{{ 'tf-' ~ inventory_hostname }}\""),
]


@pytest.mark.parametrize("name, text", NOT_JINJA_LITERALS)
def test_not_jinja_literals(name, text):
    assert sa.secret_shapes(text + "\n", name) == []


@pytest.mark.parametrize("text", [
    "- scan - ``curl -u USER:PASSWORD`` and ``sshpass -p SECRET`` and ``--token TOKEN`` are metavariables.",
    "- the form ``https://user:YOUR_PASSWORD@host`` in a changelog entry.",
])
def test_a_metavariable_in_a_code_span_ends_at_the_backticks(text):
    assert sa.secret_shapes(text + "\n", "CHANGELOG.rst") == []
