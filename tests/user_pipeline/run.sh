#!/usr/bin/env bash
# The user CI pipeline example (examples/user-ci/) against the lab, the way a user runs it:
# a temporary "inventory repository" made from the example, its inventory pointing at the lab's
# hosts, the collection installed from the built artifact (never this tree), then the pipeline's
# stages in order:
#   deps, lint                          (no lab)
#   apply on the base inventory         (the "main branch" state; the lab may have faults planted or not)
#   change request: the peers' PersistentKeepalive 5 -> 6 s in group_vars
#   plan   must show the diff, change nothing on the peer (wg0.conf and the live value compared)
#   apply  must change it; verify (part of apply) must pass
#   plan   again must show no change on any host
#   restore: the keepalive back to the lab's value, applied (no verify)
# The lab part runs under the lab lock. Needs `make lab-up`. About 2 minutes plus any wait for the lock.
# The base apply runs every fixing role (the inventory is the desired state), so planted faults are
# fixed afterwards, as site.yml leaves them; tests/e2e/run.sh plants them again itself. The keepalive
# is back at the lab's value at the end, also after a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
export PATH="$root/.venv/bin:$PATH" CONTAINERS_CONF="$root/lab/containers.conf"
unset ANSIBLE_CONFIG ANSIBLE_COLLECTIONS_PATH ANSIBLE_COLLECTIONS_PATHS
lab_inventory=$root/lab/state/inventory.yml
lock=/tmp/tunnelfix-lab.lock
[[ -s $lab_inventory ]] || { echo "FAIL: no lab ($lab_inventory); run make lab-up"; exit 1; }

work=$(mktemp -d /tmp/tunnelfix-user-pipeline.XXXXXX)
repo=$work/inventory-repo
keep=${TUNNELFIX_KEEP_USER_REPO:-false}
cleanup() { [[ $keep == true ]] || rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
start=$SECONDS
start_epoch=$(date +%s)

echo "== build the collection artifact and make the user repository ($repo)"
scripts/build_collection.sh "$work/dist" >/dev/null
artifact=$(ls "$work"/dist/tunnelfix-fleet-*.tar.gz)
cp -a examples/user-ci "$repo"
rm -rf "$repo/collections" "$repo/reports" "$repo/inventory/host_vars"
# The example's inventory, pointed at the lab: hosts and host vars from the lab's inventory, group
# vars = the example's, updated with the lab's (lab/state/inventory.yml says why each differs).
python3 tests/user_pipeline/lab_inventory.py "$lab_inventory" "$repo/inventory"
# The collection from the built artifact, through the example's own requirements.yml (its active
# entry is ./dist/<artifact>, type: file; offline, no Galaxy): the artifact goes where it points.
wanted=$(sed -n 's/^  - name: \(\.\/dist\/.*\.tar\.gz\)$/\1/p' "$repo/requirements.yml")
[[ $wanted == "./dist/$(basename "$artifact")" ]] \
  || fail "examples/user-ci/requirements.yml names '$wanted', the build made $(basename "$artifact")"
mkdir -p "$repo/dist"
cp "$artifact" "$repo/$wanted"
pipeline=$repo/pipeline.sh
peers_vars=$repo/inventory/group_vars/tunnelfix_wireguard_peers.yml
lab_keepalive=$(sed -n 's/^wireguard_keepalive_persistent_keepalive_s: *\([0-9]*\)$/\1/p' "$peers_vars")
[[ -n $lab_keepalive ]] || fail "no wireguard_keepalive_persistent_keepalive_s in $peers_vars"
# One second longer: still below the lab NAT's UDP timeout (lab/up.sh sets the keepalive 3 s under it).
new_keepalive=$((lab_keepalive + 1))

echo "== pipeline.sh deps"
"$pipeline" deps > "$work/deps.log"
resolved=$(cd "$repo" && ANSIBLE_CONFIG=$repo/ansible.cfg ansible-galaxy collection list tunnelfix.fleet 2>/dev/null | sed -n 's/^# //p')
[[ $resolved == "$repo/collections/ansible_collections" ]] \
  || fail "tunnelfix.fleet should resolve only from $repo/collections, found in: $resolved"
[[ ! -L $repo/collections/ansible_collections/tunnelfix/fleet ]] || fail "the installed collection is a symlink"

echo "== pipeline.sh lint"
"$pipeline" lint > "$work/lint.log" 2>&1 || { tail -40 "$work/lint.log"; fail "lint"; }
grep -q '^== ansible-lint' "$work/lint.log" || fail "lint did not run ansible-lint (log $work/lint.log)"
tail -1 "$work/lint.log"
# lint must be able to fail: an inventory file that is valid YAML but no inventory is refused.
cp "$repo/inventory/hosts.yml" "$work/hosts.yml.ok"
printf 'tunnelfix_broken_group:\n  hosts: [not, a, mapping]\n' >> "$repo/inventory/hosts.yml"
if "$pipeline" lint > "$work/lint-broken.log" 2>&1; then fail "lint passed on a broken inventory"; fi
[[ $(grep '^== ' "$work/lint-broken.log" | tail -1) == "== the inventory parses" ]] \
  || fail "lint should stop at the inventory check (log $work/lint-broken.log)"
cp "$work/hosts.yml.ok" "$repo/inventory/hosts.yml"
echo "lint refuses an inventory that does not parse: ok"

# The peer's wg-quick file and live keepalive: a checksum (the file holds a private key, never printed).
peer_state() {
  podman exec tf-peer sh -c 'sha256sum /etc/wireguard/wg0.conf | cut -d" " -f1; grep -c "^PersistentKeepalive = '"$1"'$" /etc/wireguard/wg0.conf || true; wg show wg0 persistent-keepalive | cut -f2'
}
set_keepalive() { sed -i "s/^wireguard_keepalive_persistent_keepalive_s: .*/wireguard_keepalive_persistent_keepalive_s: $1/" "$peers_vars"; }

lab_part() {
  echo "== lab lock held after $(($(date +%s) - start_epoch)) s (lock wait included)"
  echo "== apply on the base inventory (keepalive ${lab_keepalive} s)"
  TUNNELFIX_VERIFY=false "$pipeline" apply > "$work/apply-base.log" 2>&1 || { tail -40 "$work/apply-base.log"; fail "base apply"; }

  echo "== change request: peers' keepalive ${lab_keepalive} -> ${new_keepalive} s; pipeline.sh plan"
  set_keepalive "$new_keepalive"
  before=$(peer_state "$new_keepalive")
  "$pipeline" plan > "$work/plan.log" 2>&1 || { tail -40 "$work/plan.log"; fail "plan"; }
  after=$(peer_state "$new_keepalive")
  grep -q "^+PersistentKeepalive = ${new_keepalive}\$" "$work/plan.log" \
    || fail "the plan does not show +PersistentKeepalive = ${new_keepalive} (log $work/plan.log)"
  grep -qE '^peer +: ok=[0-9]+ +changed=[1-9]' "$work/plan.log" || fail "the plan does not count a change on peer"
  [[ $before == "$after" ]] || fail "plan changed the peer: before '$before', after '$after'"
  grep -A2 '^== plan:' "$work/plan.log"
  echo "plan shows the diff and left the peer as it was: ok"

  echo "== merge: pipeline.sh apply (remediate, then verify)"
  "$pipeline" apply > "$work/apply.log" 2>&1 || { tail -60 "$work/apply.log"; fail "apply (remediate or verify)"; }
  read -r _ count live <<<"$(peer_state "$new_keepalive" | tr '\n' ' ')"
  [[ $count == 1 && $live == "$new_keepalive" ]] \
    || fail "after apply the peer should have PersistentKeepalive = ${new_keepalive} (file lines: $count, live: $live)"
  grep -q 'tunnelfix.fleet.verify' "$work/apply.log" || fail "apply did not run verify"
  grep -E '^\| peer \| (hub -> peer ping loss|TCP single flow)' "$repo/reports/before-after.txt" || true
  echo "apply changed the keepalive to ${new_keepalive} s and verify passed: ok"

  echo "== pipeline.sh plan again: no change"
  "$pipeline" plan > "$work/plan2.log" 2>&1 || { tail -40 "$work/plan2.log"; fail "second plan"; }
  changed=$(sed -n 's/^\([^ ]*\) *: ok=[0-9]* *changed=\([1-9][0-9]*\) .*/\1=\2/p' "$work/plan2.log")
  [[ -z $changed ]] || fail "the second plan still changes: $changed (log $work/plan2.log)"
  grep -q 'no change on any host' "$work/plan2.log" || fail "the second plan does not say 'no change on any host'"
  echo "second plan: no change on any host: ok"

  echo "== restore the lab's keepalive (${lab_keepalive} s)"
  set_keepalive "$lab_keepalive"
  TUNNELFIX_VERIFY=false "$pipeline" apply > "$work/restore.log" 2>&1 || { tail -40 "$work/restore.log"; fail "restore"; }
  read -r _ count live <<<"$(peer_state "$lab_keepalive" | tr '\n' ' ')"
  [[ $count == 1 && $live == "$lab_keepalive" ]] || fail "the peer's keepalive was not restored to ${lab_keepalive} s"
}

# On a failure half-way, the lab's keepalive goes back all the same (the lab is shared).
restore() {
  echo "== after the failure: the lab's keepalive (${lab_keepalive} s) back"
  set_keepalive "$lab_keepalive"
  TUNNELFIX_VERIFY=false "$pipeline" apply > "$work/restore.log" 2>&1 || echo "WARN: restore failed, see $work/restore.log"
}
export -f lab_part peer_state set_keepalive fail restore
export work pipeline peers_vars lab_keepalive new_keepalive repo start_epoch
# TUNNELFIX_LAB_LOCKED=1: the caller holds the lab lock already.
locked=(flock "$lock")
[[ ${TUNNELFIX_LAB_LOCKED:-} == 1 ]] && locked=()
"${locked[@]}" bash -c 'set -euo pipefail; bash -euo pipefail -c lab_part || { restore; exit 1; }' \
  || { keep=true; fail "see the logs in $work"; }
echo "== no private or preshared key in any log or report of the pipeline"
python3 tests/e2e/check_no_secrets.py lab/state/wg "$work"/*.log "$repo"/reports/* | tail -1
echo "PASS: user pipeline example (deps, lint, plan, apply + verify, plan) against the lab in $((SECONDS - start)) s"
