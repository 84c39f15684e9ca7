#!/usr/bin/env bash
# The artifact after secrets were left in a checkout (issue 29): scripts/build_collection.sh run in a scratch git
# repository made of this tree's tracked files (their working-tree content), with secrets planted. Every secret is
# made here at run time (random; prefixes built by concatenation, so no literal in this repository has a secret's
# shape) and removed with the scratch directory.
#   1. Left out, and the build passes: tracked inventory-shaped files (playbooks/host_vars/peer.yml with a become
#      password and a WireGuard key, playbooks/group_vars/all/vault.yml, playbooks/inventory.yml,
#      roles/linux_bbr_fq/vars/vault.yml: galaxy.yml's excludes); an untracked docs/ file holding a GitHub token;
#      keys under bench/state as make bench leaves them (git ignores them); a tracked file deleted from the working
#      tree; a tracked docs/ file that .gitignore ignores (added with git add -f), holding a password. A tracked
#      file's working-tree edit is what ships. It prints one line naming the artifact, and on stderr one line
#      naming the tracked file it left out because git ignores it.
#   2. Named, and the build fails: one tracked file per shape in allowed paths (a become password in a role's
#      defaults, a password in an INI inventory line in docs/, a GitHub token, a GitLab token, a Slack token, an
#      AWS access key ID and secret access key, a Google API key, an Ansible Vault blob, an OpenSSH private key, a
#      PGP private key block, a WireGuard key; credentials in a URL, a password in a block scalar, a UCI wifi key in
#      a template, a private vars_prompt's default): each FAIL line names the file, the line and the kind, no value
#      appears in the output, and nothing is left in the output directory (the earlier build's artifact is removed).
#   3. Defence in depth: galaxy.yml without its inventory excludes lets playbooks/host_vars/peer.yml into the
#      tarball; the scan fails naming that path.
#   4. Run with a git hook's environment (GIT_DIR and GIT_INDEX_FILE of another repository), the build is still
#      of the checkout the script sits in.
#   5. Outside a git checkout the build fails, saying so.
set -euo pipefail
umask 077
cd "$(dirname "$0")/../.."
repo=$PWD
scratch=$(mktemp -d /tmp/tf-planted.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# rand CLASS N: N random characters of tr's CLASS, from /dev/urandom.
rand() {
  local s=""
  while ((${#s} < $2)); do s+=$(head -c 512 /dev/urandom | LC_ALL=C tr -dc "$1"); done
  printf '%s' "${s:0:$2}"
}

src=$scratch/src
mkdir "$src"
git ls-files -z | while IFS= read -r -d '' f; do if [[ -f $f || -L $f ]]; then printf '%s\0' "$f"; fi; done \
  | tar --null -T - -cf - | tar -xf - -C "$src"
git -C "$src" init -q
git -C "$src" config user.name planted
git -C "$src" config user.email planted@example.invalid
git -C "$src" config commit.gpgsign false
git -C "$src" add -A
git -C "$src" commit -q -m scratch

# --- 1. left out ---------------------------------------------------------------------------------------------
become=$(rand 'A-Za-z0-9' 20)
wgkey=$(wg genkey)
mkdir -p "$src/playbooks/host_vars" "$src/playbooks/group_vars/all"
printf -- '---\nansible_become_password: %s\nprivate_key: %s\n' "$become" "$wgkey" > "$src/playbooks/host_vars/peer.yml"
vault_header="\$ANSIBLE""_VAULT;1.1;AES256"
vault_blob() { printf '%s\n' "$vault_header"; for _ in 1 2 3; do rand 'a-f0-9' 80; echo; done; }
vault_blob > "$src/playbooks/group_vars/all/vault.yml"
vault_blob > "$src/roles/linux_bbr_fq/vars/vault.yml"
printf -- '---\nall:\n  hosts:\n    peer:\n      ansible_password: %s\n' "$(rand 'A-Za-z0-9' 16)" > "$src/playbooks/inventory.yml"
git -C "$src" add playbooks/host_vars/peer.yml playbooks/group_vars/all/vault.yml roles/linux_bbr_fq/vars/vault.yml playbooks/inventory.yml
git -C "$src" commit -q -m "inventory-shaped files, tracked"
gh_untracked="gh""p_$(rand 'A-Za-z0-9' 36)"
printf '# notes\n\n~~~sh\nexport GITHUB_TOKEN=%s\n~~~\n' "$gh_untracked" > "$src/docs/notes-untracked.md"
mkdir -p "$src/bench/state/wg"
ssh-keygen -q -t ed25519 -N '' -C planted -f "$src/bench/state/id_ed25519"
for i in 1 2 3; do wg genkey > "$src/bench/state/wg/host$i.key"; done
rm "$src/docs/sweep.md"
printf '/docs/private-hub.md\n' >> "$src/.gitignore"
printf '# the hub\n\n~~~ini\nhub ansible_password=%s\n~~~\n' "$(rand 'A-Za-z0-9' 16)" > "$src/docs/private-hub.md"
git -C "$src" add -f .gitignore docs/private-hub.md
git -C "$src" commit -q -m "a tracked file .gitignore ignores"
marker="working-tree edit $(rand 'a-z0-9' 12)"
echo "<!-- $marker -->" >> "$src/docs/faults.md"

out1=$scratch/out1
rc=0
log=$(cd "$scratch" && PATH="$repo/.venv/bin:$PATH" "$src/scripts/build_collection.sh" out1 2>&1) || rc=$?
((rc == 0)) || { echo "$log"; fail "the build with secrets only in left-out places failed (rc $rc)"; }
artifacts=("$out1"/tunnelfix-fleet-*.tar.gz)
[[ -f ${artifacts[0]} ]] || fail "no artifact in $out1"
artifact=${artifacts[0]} name=$(basename "${artifacts[0]}")
ignored_note="build_collection.sh: left out 1 tracked file(s) that git ignores (.gitignore): docs/private-hub.md"
[[ $(grep -c '^built ' <<<"$log") -eq 1 && $(grep '^built ' <<<"$log") == "built $out1/$name from the files git tracks "* ]] \
  || { echo "$log"; fail "the build did not print one line naming $out1/$name"; }
[[ $(grep -v '^built ' <<<"$log") == "$ignored_note" ]] \
  || { echo "$log"; fail "the build did not name (only) the tracked file git ignores, docs/private-hub.md"; }
listing=$(tar tzf "$artifact")
for gone in playbooks/host_vars/ playbooks/group_vars/ playbooks/inventory.yml roles/linux_bbr_fq/vars/vault.yml \
  docs/notes-untracked.md bench/ docs/sweep.md docs/private-hub.md; do
  if grep -q "^${gone}" <<<"$listing"; then fail "$name contains $gone"; fi
done
grep -qx roles/linux_bbr_fq/vars/main.yml <<<"$listing" || fail "$name lacks roles/linux_bbr_fq/vars/main.yml"
tar xzf "$artifact" -O docs/faults.md | grep -qF "$marker" || fail "$name does not hold docs/faults.md as edited in the working tree"
echo "ok   left out: tracked host_vars/, group_vars/, inventory.yml, vault.yml; untracked docs/ file; bench/state keys;" \
  "deleted docs/sweep.md; tracked docs/private-hub.md that .gitignore ignores, named (the build passes; the working-tree edit ships)"

# --- 2. named --------------------------------------------------------------------------------------------
rm -rf "$src/bench/state" "$src/docs/notes-untracked.md"
defaults=roles/linux_bbr_fq/defaults/main.yml
become2=$(rand 'A-Za-z0-9' 18)
echo "ansible_become_password: $become2" >> "$src/$defaults"
defaults_line=$(wc -l < "$src/$defaults")
ini_pw=$(rand 'A-Za-z0-9' 14)
gh="gh""p_$(rand 'A-Za-z0-9' 36)"
gl="gl""pat-$(rand 'A-Za-z0-9_-' 20)"
slack="xo""xb-$(rand '0-9' 12)-$(rand '0-9' 13)-$(rand 'A-Za-z0-9' 24)"
akid="AK""IA$(rand 'A-Z0-9' 16)"
aws_secret=$(rand 'A-Za-z0-9/+' 40)
gkey="AI""za$(rand 'A-Za-z0-9_-' 35)"
wgkey2=$(wg genkey)
url_pw=$(rand 'A-Za-z0-9' 16) block_pw=$(rand 'A-Za-z0-9' 16) wifi_key=$(rand 'A-Za-z0-9' 20) prompt_pw=$(rand 'A-Za-z0-9' 12)
ssh-keygen -q -t ed25519 -N '' -C planted -f "$scratch/id_planted"
declare -A planted=(
  [docs/inventory-example.md]=$'```ini\nhub ansible_host=192.0.2.1 ansible_password='"$ini_pw"$'\n```'
  [docs/ci-github.md]=$'# CI\n\n```yaml\nenv:\n  GH: '"$gh"$'\n```'
  [docs/ci-gitlab.md]=$'Token: `'"$gl"'`'
  [playbooks/notify.yml]=$'---\n# slack\n- name: Notify\n  vars:\n    hook: '"$slack"$'\n  hosts: localhost\n  tasks: []'
  [playbooks/aws.yml]=$'---\n# credentials\naws_access_key_id: '"$akid"$'\naws_secret_access_key: '"$aws_secret"
  [docs/maps.md]=$'```json\n{"key": "'"$gkey"$'"}\n```'
  [roles/linux_bbr_fq/vars/encrypted.yml]="$(vault_blob)"
  [docs/ssh.md]=$'```\n'"$(cat "$scratch/id_planted")"$'\n```'
  [docs/pgp.md]=$'```\n-----BEGIN PGP '$'PRIVATE KEY BLOCK-----\n\n'"$(rand 'A-Za-z0-9+/' 64)"$'\n```'
  [docs/leak.md]=$'# notes\nPrivateKey = '"$wgkey2"
  [playbooks/fetch.yml]=$'---\n- name: Fetch\n  hosts: localhost\n  tasks:\n    - ansible.builtin.get_url:\n        url: https://deploy:'"$url_pw"$'@nexus.example.org/x\n        dest: /tmp/x'
  [roles/linux_bbr_fq/vars/block.yml]=$'---\nrouter_password: |\n  '"$block_pw"
  [roles/linux_bbr_fq/templates/wireless.j2]=$'config wifi-iface \'default_radio0\'\n\toption encryption \'psk2\'\n\toption key \''"$wifi_key"$'\''
  [playbooks/prompt.yml]=$'---\n- name: Prompt\n  hosts: all\n  vars_prompt:\n    - name: become_pw\n      prompt: Become password\n      private: true\n      default: '"$prompt_pw"$'\n  tasks: []'
)
for f in "${!planted[@]}"; do printf '%s\n' "${planted[$f]}" > "$src/$f"; done
git -C "$src" add -A
git -C "$src" commit -q -m "secrets in allowed paths"
expect=(
  "$defaults:$defaults_line: a literal value of a secret-named variable (ansible_become_password)"
  "docs/inventory-example.md:2: a literal value of a secret-named variable (ansible_password)"
  "docs/ci-github.md:5: a GitHub token (ghp_)"
  "docs/ci-gitlab.md:1: a GitLab personal access token (glpat-)"
  "playbooks/notify.yml:5: a Slack token (xoxb-)"
  "playbooks/aws.yml:3: an AWS access key ID (AKIA)"
  "playbooks/aws.yml:4: an AWS secret access key (aws_secret_access_key)"
  "docs/maps.md:2: a Google API key (AIza)"
  "roles/linux_bbr_fq/vars/encrypted.yml:1: an Ansible Vault encrypted blob"
  "docs/ssh.md:2: a PEM/OpenSSH private key block"
  "docs/pgp.md:2: a PGP private key block"
  "docs/leak.md:2: a WireGuard key (44 base64 characters, 32 bytes)"
  "playbooks/fetch.yml:6: credentials in a URL (scheme://user:password@host)"
  "roles/linux_bbr_fq/vars/block.yml:2: a literal value of a secret-named variable (router_password)"
  "roles/linux_bbr_fq/templates/wireless.j2:3: a literal value of a secret-named variable (key)"
  "playbooks/prompt.yml:8: a literal default of a private vars_prompt (become_pw)"
)
rc=0
log=$(cd "$scratch" && PATH="$repo/.venv/bin:$PATH" "$src/scripts/build_collection.sh" out1 2>&1) || rc=$?
((rc == 1)) || { echo "$log"; fail "the build with secrets in allowed paths exited $rc, not 1"; }
for line in "${expect[@]}"; do
  grep -qF "FAIL $name: $line" <<<"$log" || { echo "$log"; fail "the build did not name: $line"; }
done
for secret in "$become2" "$ini_pw" "$gh" "$gl" "$slack" "$akid" "$aws_secret" "$gkey" "$wgkey2" "$become" "$wgkey" \
  "$url_pw" "$block_pw" "$wifi_key" "$prompt_pw"; do
  if grep -qF -- "$secret" <<<"$log"; then fail "the build's output holds a planted secret's value"; fi
done
[[ -z $(ls -A "$out1") ]] || fail "the failed build left $(ls "$out1") in the output directory"
grep -q "removed the earlier $out1/$name" <<<"$log" || { echo "$log"; fail "the failed build did not say it removed the earlier artifact"; }
echo "ok   named: ${#expect[@]} secrets in allowed paths, each by file, line and kind, no value printed; nothing left in the output directory"

# --- 3. defence in depth -----------------------------------------------------------------------------------
git -C "$src" reset -q --hard HEAD~1
sed -i '/^    - global-exclude \/host_vars/d' "$src/galaxy.yml"
rc=0
log=$(cd "$scratch" && PATH="$repo/.venv/bin:$PATH" "$src/scripts/build_collection.sh" out3 2>&1) || rc=$?
line="FAIL $name: playbooks/host_vars/peer.yml: inventory variables (under host_vars/)"
if ((rc != 1)) || ! grep -qF "$line" <<<"$log"; then
  echo "$log"; fail "without galaxy.yml's excludes the scan did not name playbooks/host_vars/peer.yml (rc $rc)"
fi
echo "ok   defence in depth: without galaxy.yml's host_vars exclude the scan names playbooks/host_vars/peer.yml"

# --- 4. a git hook's environment -----------------------------------------------------------------------------
git -C "$src" checkout -q galaxy.yml
other=$scratch/other
git init -q "$other"
git -C "$other" -c user.name=o -c user.email=o@example.invalid commit -q --allow-empty -m other
rc=0
log=$(cd "$other" && GIT_DIR=$other/.git GIT_INDEX_FILE=$other/.git/index PATH="$repo/.venv/bin:$PATH" \
  "$src/scripts/build_collection.sh" "$scratch/out5" 2>&1) || rc=$?
if ((rc != 0)) || [[ ! -f $scratch/out5/$name ]]; then
  echo "$log"; fail "with GIT_DIR and GIT_INDEX_FILE of another repository the build of $src failed (rc $rc)"
fi
echo "ok   a git hook's environment (GIT_DIR, GIT_INDEX_FILE of another repository): the checkout of the script is built"

# --- 5. no git ---------------------------------------------------------------------------------------------
rm -rf "$src/.git"
rc=0
log=$(PATH="$repo/.venv/bin:$PATH" "$src/scripts/build_collection.sh" "$scratch/out4" 2>&1) || rc=$?
if ((rc != 1)) || ! grep -q "is not a git checkout" <<<"$log"; then
  echo "$log"; fail "outside a git checkout the build did not fail saying so (rc $rc)"
fi
[[ -z $(ls -A "$scratch/out4") ]] || fail "the build outside git left a file in the output directory"
echo "ok   outside a git checkout: fails, saying so"
echo "PASS: secrets in inventory-shaped, untracked and ignored places stay out; each secret shape in an allowed path fails the build, named"
