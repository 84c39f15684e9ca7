# shellcheck shell=bash
# Sourced by tests/e2e/run.sh: a real node_exporter per lab host and a real Prometheus loading the rules the
# collection ships, all run by the test itself and stopped by prom_stop (run.sh's EXIT trap).
#
# node_exporter: Debian's prometheus-node-exporter binary from the host, started inside each container's network
# namespace (nsenter -n) on the host's mgmt address, port 9100, reading that container's textfile directory
# through /proc/PID/root. One binary for the Debian hosts and the OpenWrt-like router alike, the lab image stays
# as it is (no rebuild for a package the role does not need), and nothing runs after the test: on a real host
# the package's service reads the same directory. Only the textfile collector is on: the test is about that file.
# Prometheus: the host's prometheus (Debian 12: 2.42) on 127.0.0.1, its own config and data under .cache/e2e,
# scrape and rule evaluation every 2 s, scraping the three exporters as instance hub, peer and owrt.
# Run from the repository's root, the lab up.

PROM_PORT=${TUNNELFIX_PROMETHEUS_PORT:-19090}
PROM_URL="http://127.0.0.1:${PROM_PORT}"
PROM_PIDS=()

# prom_start DIR: the exporters, then Prometheus (config, data and logs in DIR); waits until every target is
# scraped (up) or fails showing the logs.
prom_start() {
  local dir="$PWD/$1" role pid textdir targets=""
  # shellcheck source-path=SCRIPTDIR source=../../lab/common.sh
  source lab/common.sh   # MGMT_IP, container_name
  mkdir -p "$dir"
  for role in hub peer owrt; do
    pid=$(podman inspect -f '{{.State.Pid}}' "$(container_name "$role")")
    textdir=/var/lib/prometheus/node-exporter
    [[ "$role" == owrt ]] && textdir=/var/prometheus   # the role's OpenWrt directory (prometheus-node-exporter-lua-textfile)
    nsenter -t "$pid" -n -- prometheus-node-exporter --web.listen-address="${MGMT_IP[$role]}:9100" \
      --collector.disable-defaults --collector.textfile --collector.textfile.directory="/proc/$pid/root$textdir" \
      > "$dir/node-exporter-$role.log" 2>&1 &
    PROM_PIDS+=("$!")
    targets+="      - targets: ['${MGMT_IP[$role]}:9100']"$'\n'"        labels: {instance: $role}"$'\n'
  done
  cat > "$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
  evaluation_interval: 2s
rule_files: ['$PWD/roles/prometheus_textfile/files/tunnelfix.rules.yml']
scrape_configs:
  - job_name: node
    static_configs:
${targets}
EOF
  rm -rf "$dir/data"
  prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
    --web.listen-address="127.0.0.1:${PROM_PORT}" > "$dir/prometheus.log" 2>&1 &
  PROM_PIDS+=("$!")
  python3 tests/e2e/prometheus_alerts.py --url "$PROM_URL" --until targets-up --targets 3 --timeout 60 \
    || { tail -n 20 "$dir"/*.log; return 1; }
}

# prom_stop: end what prom_start started, by PID.
prom_stop() {
  local pid
  for pid in "${PROM_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PROM_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PROM_PIDS=()
}
