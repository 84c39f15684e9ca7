#!/usr/bin/env bash
# The CI pipeline of an inventory repository that uses tunnelfix.fleet, one stage per call:
#
#   ./pipeline.sh deps    install the collections named in requirements.yml into ./collections
#   ./pipeline.sh lint    yamllint, the inventory parses, the playbooks resolve (ansible-lint when installed)
#   ./pipeline.sh plan    remediate --check --diff: what a merge would change, host by host (changes nothing)
#   ./pipeline.sh apply   remediate, then verify (iperf3 and ping thresholds from the inventory)
#
# GitHub Actions (.github/workflows/tunnelfix.yml) and GitLab CI (.gitlab-ci.yml) call it the same way:
# lint and plan on a pull/merge request, apply on the default branch. Logs and reports go to reports/.
#
# The inventory is the desired state: plan and apply run every fixing role on every host of its
# group (tunnelfix_remediate_all_roles=true), so a change of a variable (a keepalive, banIP's ICMP
# limit) shows up in the plan even when diagnose has found nothing. TUNNELFIX_FINDINGS_ONLY=true runs
# diagnose first and applies only the roles its findings name (the collection's default).
#
# Environment (each passed to every ansible-playbook call of plan and apply):
#   TUNNELFIX_INVENTORY   the inventory (default: inventory)
#   TUNNELFIX_LIMIT       hosts or a pattern, e.g. "branch1" or "tunnelfix_wireguard_peers:!branch-gw"; passed as
#                         --limit with localhost added (the collection's controller plays run on localhost)
#   TUNNELFIX_SERIAL      -e tunnelfix_serial=...: hosts per batch, "N%" (docs/rollout.md of tunnelfix.fleet)
#   TUNNELFIX_CANARY      -e tunnelfix_canary=...: a first batch of this many hosts, or "N%"
#   TUNNELFIX_EXTRA_ARGS  more arguments, split on blanks (no quoting: a value with a blank or a list
#                         belongs in a vars file, TUNNELFIX_EXTRA_ARGS="-e @rollout.yml")
#   TUNNELFIX_VERIFY=false skips verify after apply.
set -euo pipefail
cd "$(dirname "$0")"
export ANSIBLE_CONFIG="$PWD/ansible.cfg"
# Keep the collections of this repository: no collections_path from the caller's environment.
unset ANSIBLE_COLLECTIONS_PATH ANSIBLE_COLLECTIONS_PATHS
inventory="${TUNNELFIX_INVENTORY:-inventory}"
extra=()
if [[ -n ${TUNNELFIX_LIMIT:-} ]]; then
  # Ansible splits a pattern with a comma on commas only, else on colons: add localhost the same way.
  sep=:
  [[ $TUNNELFIX_LIMIT == *,* ]] && sep=,
  extra+=(--limit "${TUNNELFIX_LIMIT}${sep}localhost")
fi
if [[ -n ${TUNNELFIX_SERIAL:-} ]]; then
  extra+=(-e "tunnelfix_serial=${TUNNELFIX_SERIAL}")
fi
if [[ -n ${TUNNELFIX_CANARY:-} ]]; then
  extra+=(-e "tunnelfix_canary=${TUNNELFIX_CANARY}")
fi
read -r -a more <<<"${TUNNELFIX_EXTRA_ARGS:-}"
extra+=("${more[@]}")
stage="${1:-}"
case "$stage" in
  deps | lint | plan | apply) ;;
  *)
    echo "usage: $0 deps|lint|plan|apply" >&2
    exit 2
    ;;
esac
mkdir -p reports

playbook() {  # playbook NAME LOGFILE ARGS...: run tunnelfix.fleet.NAME, keep its output in reports/LOGFILE
  local name=$1 log=$2
  shift 2
  echo "== ansible-playbook tunnelfix.fleet.$name $* ${extra[*]}"
  ansible-playbook -i "$inventory" "tunnelfix.fleet.$name" "$@" "${extra[@]}" 2>&1 | tee "reports/$log"
  return "${PIPESTATUS[0]}"
}

scope=(-e tunnelfix_remediate_all_roles=true)
if [[ "${TUNNELFIX_FINDINGS_ONLY:-false}" == true ]]; then
  scope=()
fi

# The hosts that would change or changed, from the PLAY RECAP of a log.
recap_changes() {
  sed -n 's/^\([^ ]*\) *: ok=[0-9]* *changed=\([1-9][0-9]*\) .*/\1 (\2 changed)/p' "$1"
}

case "$stage" in
  deps)
    ansible-galaxy collection install -r requirements.yml -p ./collections
    ansible-galaxy collection list tunnelfix.fleet -p ./collections
    ;;
  lint)
    echo "== yamllint"
    yamllint -s .
    echo "== the inventory parses"
    ansible-inventory -i "$inventory" --graph >/dev/null
    for name in diagnose remediate verify site; do
      echo "== tunnelfix.fleet.$name --syntax-check"
      ansible-playbook -i "$inventory" "tunnelfix.fleet.$name" --syntax-check >/dev/null
    done
    if command -v ansible-lint >/dev/null; then
      echo "== ansible-lint"
      ansible-lint --offline
    fi
    echo "lint: ok"
    ;;
  plan)
    if [[ "${TUNNELFIX_FINDINGS_ONLY:-false}" == true ]]; then
      playbook diagnose plan-diagnose.log
    fi
    playbook remediate plan.log --check --diff "${scope[@]}"
    changes=$(recap_changes reports/plan.log)
    echo "== plan: ${changes:+hosts that a merge would change:}"
    echo "${changes:-no change on any host}"
    ;;
  apply)
    if [[ "${TUNNELFIX_FINDINGS_ONLY:-false}" == true ]]; then
      playbook diagnose apply-diagnose.log
    fi
    playbook remediate apply.log --diff "${scope[@]}"
    if [[ "${TUNNELFIX_VERIFY:-true}" == true ]]; then
      playbook verify verify.log
    fi
    ;;
esac
