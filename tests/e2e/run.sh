#!/usr/bin/env bash
# Lab end-to-end check: fresh lab with the faults planted -> site.yml -> assert before/after
# figures -> remediate.yml again must change nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg" CONTAINERS_CONF="$PWD/lab/containers.conf"
inventory=lab/state/inventory.yml
log_dir=.cache/e2e
mkdir -p "$log_dir"
rm -f reports/measurements-*.json

lab/down.sh
lab/up.sh

ansible-playbook -i "$inventory" playbooks/site.yml | tee "$log_dir/site.log"
bottleneck=$(ansible-inventory -i "$inventory" --host peer | python3 -c 'import json,sys; print(json.load(sys.stdin)["tunnelfix_lab_bottleneck_bits_per_second"])')
python3 tests/e2e/check_measurements.py reports "$bottleneck"

echo "== second run of remediate.yml must report changed=0"
ansible-playbook -i "$inventory" playbooks/remediate.yml | tee "$log_dir/remediate-again.log"
if grep -E '^[a-z0-9_.-]+ +: ok=' "$log_dir/remediate-again.log" | grep -vq 'changed=0 '; then
  echo "FAIL: second remediate run changed something"; exit 1
fi
echo "PASS: second remediate run changed nothing"
