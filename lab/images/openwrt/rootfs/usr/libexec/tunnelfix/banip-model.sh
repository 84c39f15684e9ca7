# shellcheck shell=sh disable=SC2034  # the variables are used by the scripts that source this file
# banIP's model in the tunnelfix test image, the part shared by /etc/init.d/banip and
# /usr/libexec/tunnelfix/banip-service (sourced by both). It picks, by DISTRIB_RELEASE in
# /etc/openwrt_release, what the release's banIP does that the product relies on (our own
# description of upstream openwrt/packages net/banip/files/, cited per value; see
# lab/images/openwrt/README.md and docs/openwrt-fidelity.md):
#   banip_version    the package version of the release (net/banip/Makefile)
#   banip_lock       the lock directory the init script refuses to run beside (banip.init)
#   banip_pidfile    where the running service's pid is kept (banip.init)
#   banip_stale_lock 1 when a lock whose pidfile names no live process is removed (25.12's banip.init)
#   banip_priority   the pre-routing chain's priority (f_nftinit in banip-functions.sh)
#   banip_counter    the ICMP flood counter's name: cnt-icmpflood before 1.5.0, cnt_icmpflood after
#   banip_default    the ICMP flood limit when ban_icmplimit is unset (packets/s)
#   banip_rule_style per_family: one rule per family (ip / ip6) as in 1.0.1; shared: one rule for both
#                    families (1.5.x); shared_logrule: shared, and logging is a rule of its own (1.8.x)
# Timing of the model (upstream: as long as the router needs, seconds to minutes with real feeds):
#   BANIP_MODEL_BUILD_S  after start/restart/reload, seconds before the table is (re)built (2)
#   BANIP_MODEL_FEEDS_S  then seconds before the feed sets are filled (1)
#   BANIP_MODEL_UNLOCK_S then seconds before the lock is released (1; upstream 5)
# Each can be set in /etc/tunnelfix/banip-model.conf (sourced when present) for a test.
# shellcheck disable=SC1091  # the image's own files
. /etc/openwrt_release
BANIP_MODEL_BUILD_S=2
BANIP_MODEL_FEEDS_S=1
BANIP_MODEL_UNLOCK_S=1
case "${DISTRIB_RELEASE}" in
	23.05*)
		banip_version=1.0.1-2 banip_lock=/var/run/banip.lock banip_pidfile=/var/run/banip.pid banip_stale_lock=0
		banip_priority=-150 banip_counter=cnt-icmpflood banip_default=10 banip_rule_style=per_family ;;
	24.10*)
		banip_version=1.5.6-7 banip_lock=/var/run/banip.lock banip_pidfile=/var/run/banip.pid banip_stale_lock=0
		banip_priority=-175 banip_counter=cnt_icmpflood banip_default=25 banip_rule_style=shared ;;
	*)
		banip_version=1.8.12-1 banip_lock=/var/run/banIP/banIP.lock banip_pidfile=/var/run/banIP/banIP.pid banip_stale_lock=1
		banip_priority=-175 banip_counter=cnt_icmpflood banip_default=25 banip_rule_style=shared_logrule ;;
esac
# shellcheck disable=SC1091
[ -r /etc/tunnelfix/banip-model.conf ] && . /etc/tunnelfix/banip-model.conf

banip_log() { logger -p "daemon.$1" -t "banIP-${banip_version%-*}[$$]" "$2"; }

# banip_pid_alive: the pidfile names a process that runs (a zombie does not).
banip_pid_alive() {
	pid="$(cat "${banip_pidfile}" 2>/dev/null)"
	[ -n "${pid}" ] && [ -d "/proc/${pid}" ] || return 1
	state="$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/${pid}/status" 2>/dev/null)"
	[ "${state}" != Z ]
}

# banip_stop_worker: end the running service (its pid in the pidfile) and empty the pidfile.
banip_stop_worker() {
	if banip_pid_alive; then kill "$(cat "${banip_pidfile}")" 2>/dev/null; fi
	mkdir -p "${banip_pidfile%/*}"
	: >"${banip_pidfile}"
}

# banip_fail MESSAGE: banIP's error path: log, delete the table, release the lock, exit 1.
banip_fail() {
	banip_log err "$1"
	nft delete table inet banIP 2>/dev/null
	rm -rf "${banip_lock}"
	exit 1
}
