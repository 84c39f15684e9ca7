#!/usr/bin/env bash
# Check the OpenWrt-like test image (lab/images/openwrt/README.md) of one release profile: the uci
# emulator, the absence of Python, the init-script stand-ins, the profile's release files and
# package manager, and the python-free tunnelfix.fleet actions against it.
#
# Usage: tests/openwrt_image/run.sh        (root; builds the image if it is missing)
#   TUNNELFIX_OPENWRT_RELEASE   the profile to check: 23.05, 24.10 (default) or 25.12; the image is
#                               TUNNELFIX_OPENWRT_IMAGE's (lab/images/openwrt-release.sh); make
#                               openwrt-image-test runs this once per profile
#   TUNNELFIX_OPENWRT_TEST_CT   the container's name (default tf-owrt-test)
# Starts a throwaway container, runs a table of command -> expected rc/stdout/stderr, then the
# playbook uci_nohostroute.yml (--check --diff, run, run again), removes the container.
# Prints "N passed, M failed" last and exits 1 if anything failed. About 20 s with the image built.
# shellcheck disable=SC2016  # the single-quoted commands run in the container, unexpanded here
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "${HERE}/../.." && pwd)"
export CONTAINERS_CONF="${REPO}/lab/containers.conf"
# shellcheck source=lab/images/openwrt-release.sh
. "${REPO}/lab/images/openwrt-release.sh"
openwrt_release_check TUNNELFIX_OPENWRT_RELEASE || exit 2
IMAGE="$(openwrt_image)"
RELEASE="${TUNNELFIX_OPENWRT_RELEASE}"
CT="${TUNNELFIX_OPENWRT_TEST_CT:-tf-owrt-test}"
passed=0
failed=0

"${REPO}/lab/images/build-openwrt.sh" || { echo "FAIL image build"; echo "0 passed, 1 failed"; exit 1; }

cleanup() { podman rm -f -t 0 "${CT}" >/dev/null 2>&1 || true; rm -rf "${tmpdir:-}"; }
trap cleanup EXIT
podman rm -f -t 0 "${CT}" >/dev/null 2>&1 || true
podman run -d --rm --name "${CT}" --network none "${IMAGE}" >/dev/null \
  || { echo "FAIL cannot start ${CT}"; echo "0 passed, 1 failed"; exit 1; }
tmpdir="$(mktemp -d)"
# The inventory: host tf-owrt-test (the playbooks' and tests' name), reached in container CT.
INVENTORY="${tmpdir}/inventory.yml"
sed "s/^      ansible_connection: .*/&\n      ansible_host: ${CT}/" "${HERE}/inventory.yml" > "${INVENTORY}"

ok() { passed=$((passed + 1)); printf 'ok   %s\n' "$1"; }
ko() { failed=$((failed + 1)); printf 'FAIL %s\n%s\n' "$1" "$2" | sed '2,$s/^/     /'; }

# check NAME EXPECTED_RC EXPECTED_STDOUT EXPECTED_STDERR COMMAND
# Runs COMMAND with sh -c in the container. EXPECTED_RC "!0" means any failure. An expected text starting with "~" is an extended
# regex the whole text must match (bash =~, newlines literal); "*" means "anything".
matches() {
  local want="$1" got="$2"
  [[ "${want}" == "*" ]] && return 0
  if [[ "${want}" == "~"* ]]; then [[ "${got}" =~ ^${want#\~}$ ]]; return; fi
  [[ "${got}" == "${want}" ]]
}
check() {
  local name="$1" rc_want="$2" out_want="$3" err_want="$4" cmd="$5" out err rc
  out="$(podman exec "${CT}" sh -c "${cmd}" 2>"${tmpdir}/err")"; rc=$?
  err="$(cat "${tmpdir}/err")"
  if { [[ "${rc}" == "${rc_want}" ]] || [[ "${rc_want}" == "!0" && "${rc}" != 0 ]]; } && matches "${out_want}" "${out}" && matches "${err_want}" "${err}"; then
    ok "${name}"
  else
    ko "${name}" "$(printf 'command: %s\nrc: %s (want %s)\nstdout: %s\nwant:   %s\nstderr: %s\nwant:   %s' \
      "${cmd}" "${rc}" "${rc_want}" "${out}" "${out_want}" "${err}" "${err_want}")"
  fi
}
NL=$'\n'
# Back to the image's /etc/config and no staged changes.
reset='rm -rf /tmp/.uci/* /tmp/alt /tmp/altsave /tmp/p; cp /tmp/pristine/* /etc/config/'
podman exec "${CT}" sh -c 'mkdir -p /tmp/pristine && cp /etc/config/* /tmp/pristine/'

echo "== the image"
check "no python (command -v python3 python fails)" '!0' "" "" 'command -v python3 python'
check "/bin/sh is busybox ash" 0 "busybox" "" 'readlink /bin/sh'
check "ip is iproute2, not the busybox applet" 0 "~ip utility, iproute2.*" "" 'ip -V'
check "nft, wg, ethtool, iperf3 run" 0 "*" "" 'nft --version && wg --version && ethtool --version && iperf3 --version'
check "/etc/rc.local ends with exit 0" 0 "exit 0" "" 'tail -n1 /etc/rc.local'
check "/etc/openwrt_release says OpenWrt" 0 "DISTRIB_ID='OpenWrt'" "" 'grep ^DISTRIB_ID /etc/openwrt_release'
check "/etc/hotplug.d/iface exists" 0 "" "" 'test -d /etc/hotplug.d/iface'

# What each profile must show: the point release and revision of a real build (x86/64), the
# package manager (opkg before 25.12, apk-tools 3 from 25.12 on) and the banIP and mwan3 packages
# at that release's versions (openwrt/packages branch: PKG_VERSION-PKG_RELEASE; apk writes -rN).
case "${RELEASE}" in
  23.05) point=23.05.5 revision=r24106-10cc5fcd00 build_date="" firmware_url="" pm=opkg
         banip="banip - 1.0.1-2" mwan3="mwan3 - 2.11.8-2" banip_version=1.0.1-2 icmp_default=10 ;;
  24.10) point=24.10.6 revision=r29141-81be8a8869 build_date=1773709139 firmware_url="" pm=opkg
         banip="banip - 1.5.6-7" mwan3="mwan3 - 2.11.16-5" banip_version=1.5.6-7 icmp_default=25 ;;
  25.12) point=25.12.5 revision=r33051-f5dae5ece4 build_date=1782737960 firmware_url=https://downloads.openwrt.org/ pm=apk
         banip="banip-1.8.12-r1 noarch {feeds/packages/net/banip} (GPL-3.0-or-later) [installed]"
         mwan3="mwan3-2.12.0-r3 noarch {feeds/packages/net/mwan3} (GPL-2.0) [installed]"
         banip_version=1.8.12-r1 icmp_default=25 ;;
esac
emulation="(tunnelfix test image: an emulation, not OpenWrt)"
os_release_fields="NAME VERSION ID ID_LIKE PRETTY_NAME VERSION_ID HOME_URL BUG_URL SUPPORT_URL${firmware_url:+ FIRMWARE_URL} BUILD_ID"
os_release_fields+=" OPENWRT_BOARD OPENWRT_ARCH OPENWRT_TAINTS OPENWRT_DEVICE_MANUFACTURER OPENWRT_DEVICE_MANUFACTURER_URL"
os_release_fields+=" OPENWRT_DEVICE_PRODUCT OPENWRT_DEVICE_REVISION OPENWRT_RELEASE${build_date:+ OPENWRT_BUILD_DATE}"

echo "== the release profile ${RELEASE}"
label="$(podman image inspect -f '{{index .Labels "tunnelfix.openwrt.release"}}' "${IMAGE}")"
if [[ "${label}" == "${RELEASE}" ]]; then ok "the image ${IMAGE} is the ${RELEASE} profile (label)"; else
  ko "the image ${IMAGE} is the ${RELEASE} profile (label)" "label tunnelfix.openwrt.release: '${label}'"; fi
check "/etc/openwrt_release: release, revision, target and arch of OpenWrt ${point}" 0 "${point} ${revision} x86/64 x86_64" "" \
  '. /etc/openwrt_release && echo "$DISTRIB_RELEASE $DISTRIB_REVISION $DISTRIB_TARGET $DISTRIB_ARCH"'
check "/etc/openwrt_release: a real one's fields, in its order" 0 \
  "DISTRIB_ID DISTRIB_RELEASE DISTRIB_REVISION DISTRIB_TARGET DISTRIB_ARCH DISTRIB_DESCRIPTION DISTRIB_TAINTS" "" \
  'cut -d= -f1 /etc/openwrt_release | tr "\n" " " | sed "s/ \$//"'
check "DISTRIB_DESCRIPTION: distribution, release, revision, then that this is an emulation" 0 "OpenWrt ${point} ${revision} ${emulation}" "" \
  '. /etc/openwrt_release && echo "$DISTRIB_DESCRIPTION"'
check "/etc/openwrt_version is the revision" 0 "${revision}" "" 'cat /etc/openwrt_version'
check "/etc/os-release links to ../usr/lib/os-release (base-files)" 0 "../usr/lib/os-release" "" 'readlink /etc/os-release'
check "os-release: ${RELEASE}'s fields, in order" 0 "${os_release_fields}" "" \
  'cut -d= -f1 /etc/os-release | tr "\n" " " | sed "s/ \$//"'
check "os-release: version, build id, board, OPENWRT_RELEASE, build date, firmware URL" 0 \
  "${point}|${revision}|x86/64|OpenWrt ${point} ${revision} ${emulation}|${build_date}|${firmware_url}" "" \
  '. /etc/os-release && echo "$VERSION_ID|$BUILD_ID|$OPENWRT_BOARD|$OPENWRT_RELEASE|${OPENWRT_BUILD_DATE:-}|${FIRMWARE_URL:-}"'

echo "== the package manager of ${RELEASE}: ${pm}"
if [[ "${pm}" == opkg ]]; then
  check "opkg is /bin/opkg; there is no apk" 0 "/bin/opkg" "" 'command -v opkg; ! command -v apk'
  check "opkg list-installed banip: 'NAME - VERSION'" 0 "${banip}" "" 'opkg list-installed banip'
  check "opkg list-installed mwan3" 0 "${mwan3}" "" 'opkg list-installed mwan3'
  check "opkg list-installed: every installed package, by name" 0 "${banip}${NL}${mwan3}" "" 'opkg list-installed'
  check "opkg list-installed 'mw*': a glob" 0 "${mwan3}" "" "opkg list-installed 'mw*'"
  check "opkg list-installed of a package not installed: nothing, rc 0" 0 "" "" 'opkg list-installed kmod-tcp-bbr'
  check "another opkg command: not emulated, rc 1" 1 "" "~opkg: 'install' is not emulated .*" 'opkg install banip'
  check "opkg is in the call log" 0 "/bin/opkg list-installed banip${NL}/bin/opkg install banip" "" \
    ': > /tmp/tunnelfix-calls.log; opkg list-installed banip >/dev/null; opkg install banip 2>/dev/null; cut -d" " -f2- /tmp/tunnelfix-calls.log'
else
  check "apk is /usr/bin/apk; there is no opkg" 0 "/usr/bin/apk" "" 'command -v apk; ! command -v opkg'
  check "apk list --installed banip: 'NAME-VERSION ARCH {ORIGIN} (LICENSE) [installed]'" 0 "${banip}" "" 'apk list --installed banip'
  check "apk list -I mwan3" 0 "${mwan3}" "" 'apk list -I mwan3'
  check "apk list --installed mwan3 banip: by name" 0 "${banip}${NL}${mwan3}" "" 'apk list --installed mwan3 banip'
  check "apk list --installed 'mw*': a glob" 0 "${mwan3}" "" "apk list --installed 'mw*'"
  check "apk list --installed of a package not installed: nothing, rc 0" 0 "" "" 'apk list --installed kmod-tcp-bbr'
  check "apk list without --installed: not emulated, rc 1" 1 "" "~apk: 'list without --installed' is not emulated .*" 'apk list banip'
  check "another apk command: not emulated, rc 1" 1 "" "~apk: 'add' is not emulated .*" 'apk add banip'
  check "apk is in the call log" 0 "/usr/bin/apk list --installed banip${NL}/usr/bin/apk add banip" "" \
    ': > /tmp/tunnelfix-calls.log; apk list --installed banip >/dev/null; apk add banip 2>/dev/null; cut -d" " -f2- /tmp/tunnelfix-calls.log'
fi

echo "== uci: reading"
check "show a named section" 0 "network.wg0=interface${NL}network.wg0.proto='wireguard'${NL}network.wg0.private_key='KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK='${NL}network.wg0.listen_port='51820'${NL}network.wg0.addresses='10.77.0.2/24'" "" 'uci show network.wg0'
check "show one option" 0 "network.wg0.proto='wireguard'" "" 'uci show network.wg0.proto'
check "get an option, unquoted" 0 "wireguard" "" 'uci get network.wg0.proto'
check "get a section gives its type" 0 "interface" "" 'uci get network.wg0'
check "show anonymous sections as @type[N], named ones by name" 0 "network.@wireguard_wg0[0]=wireguard_wg0${NL}network.dc=wireguard_wg0" "" 'uci show network | grep "=wireguard_wg0$"'
check "show a list, items quoted (one option: the section's cfgXXXXXX name, as uci)" 0 "~network\.cfg[0-9a-f]{6}\.allowed_ips='10\.77\.0\.0/24' '192\.168\.20\.0/24'" "" 'uci show network.@wireguard_wg0[0].allowed_ips'
check "get a list, items space-separated" 0 "10.77.0.0/24 192.168.20.0/24" "" 'uci get network.@wireguard_wg0[0].allowed_ips'
check "@type[-1] is the last section of the type (named counts)" 0 "dc.example.net" "" 'uci get network.@wireguard_wg0[-1].endpoint_host'
check "-X shows cfgXXXXXX names" 0 "~network\.cfg[0-9a-f]{6}=wireguard_wg0" "" 'uci -X show network | grep "=wireguard_wg0$" | head -n1'
check "-X name is usable as a section name" 0 "site-b" "" 'uci get network.$(uci -X show network | sed -n "s/^network\.\(cfg[0-9a-f]*\)=wireguard_wg0$/\1/p").description'
check "show a whole config (mwan3 line count)" 0 "36" "" 'uci show mwan3 | wc -l'
check "export: package header, config/option/list lines" 0 "package banip${NL}${NL}config banip 'global'${NL}	option ban_enabled '1'${NL}	option ban_autodetect '1'${NL}	list ban_feed 'cinsscore'${NL}	list ban_feed 'firehol1'" "" 'uci export banip'

echo "== uci: errors and exit codes"
check "get a missing option: Entry not found, rc 1" 1 "" "uci: Entry not found" 'uci get network.wg0.nohostroute'
check "-q suppresses the message, rc unchanged" 1 "" "" 'uci -q get network.wg0.nohostroute'
check "missing config: Entry not found" 1 "" "uci: Entry not found" 'uci show nosuchconfig'
check "@type[N] out of range: Entry not found" 1 "" "uci: Entry not found" 'uci get network.@wireguard_wg0[5]'
check "invalid section name: Invalid argument" 1 "" "uci: Invalid argument" 'uci get network.wg-0.proto'
check "invalid option name: Parse error" 1 "" "uci: Parse error" 'uci get network.wg0.pro-to'
check "set without a value: Invalid argument" 1 "" "uci: Invalid argument" 'uci set network.wg0.mtu'
check "set in a missing section: Invalid argument" 1 "" "uci: Invalid argument" 'uci set network.nosuch.mtu=1420'
check "delete a missing option: Entry not found" 1 "" "uci: Entry not found" 'uci delete network.wg0.nosuch'
check "broken config file: Parse error naming the line" 1 "" "uci: Parse error (invalid command) at line 3, byte 1" \
  'printf "\nconfig foo\n\tbogus x\n" > /etc/config/broken; uci show broken; rc=$?; rm -f /etc/config/broken; exit $rc'
check "no command: usage, rc 0 (as uci)" 0 "" "~Usage: uci .*" 'uci'
check "unknown command: usage, rc 255" 255 "" "~Usage: uci .*" 'uci bogus'

echo "== uci: staging, changes, commit, revert"
check "set stages, prints nothing" 0 "" "" "${reset}; uci set network.wg0.nohostroute=1"
check "changes lists the staged set" 0 "network.wg0.nohostroute='1'" "" 'uci changes network'
check "get reflects the staged value" 0 "1" "" 'uci get network.wg0.nohostroute'
check "the file is not written before commit" 1 "0" "" 'grep -c nohostroute /etc/config/network'
check "the delta is in /tmp/.uci/network" 0 "network.wg0.nohostroute='1'" "" 'cat /tmp/.uci/network'
check "revert drops the staged change" 1 "" "" 'uci revert network && uci changes network && uci -q get network.wg0.nohostroute'
check "commit writes the file and leaves an empty delta file (as uci)" 0 "	option nohostroute '1'${NL}0" "" \
  'uci set network.wg0.nohostroute=1 && uci commit network && grep nohostroute /etc/config/network && uci changes | wc -l && test -e /tmp/.uci/network && test ! -s /tmp/.uci/network'
check "committed file starts like OpenWrt's (blank line, config ...)" 0 "${NL}config interface 'loopback'" "" 'head -n2 /etc/config/network'
check "commit keeps anonymous sections anonymous" 0 "config wireguard_wg0${NL}config wireguard_wg0 'dc'" "" 'grep "^config wireguard_wg0" /etc/config/network'
check "delete an option is staged as -config.section.option" 0 "-network.wg0.nohostroute" "" 'uci delete network.wg0.nohostroute && uci changes network'
check "values with a quote are escaped as uci does" 0 "network.lan.description='it'\\''s'" "" \
  "${reset}; uci set network.lan.description=\"it's\" && uci show network.lan.description"
check "set to an empty value deletes the option" 0 "-network.lan.description" "" "${reset}; uci set network.lan.description=x && uci commit network && uci set network.lan.description= && uci changes network"

echo "== uci: sections and lists"
check "add prints the new cfgXXXXXX name" 0 "~cfg[0-9a-f]{6}" "" "${reset}; uci add network wireguard_wg0"
check "the added section is @type[-1] and shows as @type[2] in the whole config" 0 "network.@wireguard_wg0[2]=wireguard_wg0" "" 'uci show network | grep "=wireguard_wg0$" | tail -n1'
check "show of the added section alone names it cfgXXXXXX" 0 "~network\.cfg[0-9a-f]{6}=wireguard_wg0" "" 'uci show network.@wireguard_wg0[-1]'
check "changes shows the add as config.cfgXXXXXX='type'" 0 "~network\.cfg[0-9a-f]{6}='wireguard_wg0'" "" 'uci changes network'
check "set an option on @type[-1]" 0 "new-peer" "" 'uci set network.@wireguard_wg0[-1].description=new-peer && uci get network.@wireguard_wg0[2].description'
check "add_list appends and is staged with +=" 0 "10.77.0.2/24 10.77.1.2/24${NL}network.wg0.addresses+='10.77.1.2/24'" "" \
  "${reset}; uci add_list network.wg0.addresses=10.77.1.2/24 && uci get network.wg0.addresses && uci changes network"
check "del_list removes one item, staged with -=" 0 "~10\.77\.0\.0/24${NL}network\.cfg[0-9a-f]{6}\.allowed_ips-='192\.168\.20\.0/24'" "" \
  "${reset}; uci del_list network.@wireguard_wg0[0].allowed_ips=192.168.20.0/24 && uci get network.@wireguard_wg0[0].allowed_ips && uci changes network"
check "del_list then commit: the item is gone from the file" 1 "0" "" 'uci commit network && grep -c "192.168.20.0/24" /etc/config/network' 
check "delete a section" 1 "" "uci: Entry not found" "${reset}; uci delete network.dc && uci get network.dc"
check "delete a section by @type[0]; the named one becomes @type[0]" 0 "dc" "" "${reset}; uci delete network.@wireguard_wg0[0] && uci get network.@wireguard_wg0[0].description"
check "rename a section (changes: config.old='new')" 0 "dc${NL}network.dc='dc2'" "" "${reset}; uci rename network.dc=dc2 && uci get network.dc2.description && uci changes network"
check "rename an option" 0 "51820" "" "${reset}; uci rename network.wg0.listen_port=port && uci get network.wg0.port"
check "set a new named section" 0 "network.wg1=interface${NL}network.wg1.proto='wireguard'" "" "${reset}; uci set network.wg1=interface && uci set network.wg1.proto=wireguard && uci show network.wg1"

echo "== uci: batch, -c, -t, -P"
check "batch reads commands from stdin (quoted secret on stdin)" 0 "1420${NL}K'Q=" "" \
  "${reset}; printf '%s\n' \"set network.wg0.mtu='1420'\" \"set 'network.wg0.private_key=K'\\\\''Q='\" | uci batch && uci get network.wg0.mtu && uci get network.wg0.private_key"
check "batch with commit inside commits" 0 "	option mtu '1400'" "" "${reset}; printf 'set network.wg0.mtu=1400\ncommit network\n' | uci batch && grep mtu /etc/config/network"
check "batch: a bad line is reported, the other lines still run, rc 0 (as uci)" 0 "2" "Unknown command${NL}uci: Invalid argument" \
  "${reset}; printf 'set network.wg0.mtu=1\nbogus\nset network.nosuch.x=1\nset network.wg0.mtu=2\n' | uci batch; rc=\$?; uci get network.wg0.mtu; exit \$rc"
check "-c uses another config dir" 1 "1${NL}0" "" \
  "${reset}; mkdir -p /tmp/alt && cp /etc/config/network /tmp/alt/ && uci -c /tmp/alt -t /tmp/altsave set network.wg0.nohostroute=1 && uci -c /tmp/alt -t /tmp/altsave commit network && uci -c /tmp/alt get network.wg0.nohostroute && grep -c nohostroute /etc/config/network"
check "-P keeps the delta in another save dir" 0 "network.wg0.mtu='1280'${NL}0${NL}network" "" \
  "${reset}; uci -P /tmp/p set network.wg0.mtu=1280 && uci -P /tmp/p changes && uci changes | wc -l && ls /tmp/p"
check "-P: commit does nothing (as uci)" 1 "network.wg0.mtu='1280'${NL}0" "" \
  'uci -P /tmp/p commit network && uci -P /tmp/p changes && grep -c mtu /etc/config/network'

echo "== init-script stand-ins"
# mwan3track's status files, no tracker (tracking is down), no 15-mwan3 event (hotplug state offline), no
# eth1/wwan0 (23.05: offline; 24.10+: mwan3's rules missing, (31))
check "mwan3 interfaces prints mwan3track's status files" 0 \
  "~Interface status:${NL} interface wan is (online and tracking is down \(offline 00h:00m:0[0-9]s, uptime 00h:00m:00s\)|offline and tracking is down)${NL} interface wanb is (unknown and tracking is down \(31\)|offline and tracking is down)(${NL})?" "" \
  'mkdir -p /var/run/mwan3track/wan && echo online > /var/run/mwan3track/wan/STATUS && cut -d. -f1 /proc/uptime > /var/run/mwan3track/wan/ONLINE && mwan3 interfaces'
check "init scripts, ifup/ifdown and mwan3 are logged in order" 0 \
  "/etc/init.d/banip reload${NL}/etc/init.d/network restart${NL}/etc/init.d/mwan3 restart${NL}/sbin/ifup wg0${NL}/sbin/ifdown wg0${NL}/usr/sbin/mwan3 interfaces" "" \
  ': > /tmp/tunnelfix-calls.log; /etc/init.d/banip reload && /etc/init.d/network restart && /etc/init.d/mwan3 restart && ifup wg0 && ifdown wg0 && mwan3 interfaces >/dev/null && cut -d" " -f2- /tmp/tunnelfix-calls.log'
check "each log line starts with an epoch timestamp (grep -v finds none)" 1 "" "" 'grep -vE "^[0-9]{10} " /tmp/tunnelfix-calls.log'
check "unknown init command: usage, rc 1" 1 "" "*" '/etc/init.d/banip frobnicate'

echo "== the system log (logger, logread: ubox's shape)"
check "nothing logged yet: logread prints nothing" 0 "" "" 'rm -f /tmp/tunnelfix-syslog; logread'
check "logread -t -e: the time in brackets, only matching messages, in order" 0 \
  "~[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4} \[[0-9]{10}\.000\] user\.info mwan3track\[42\]: Check \(ping\) failed for target \"100\.64\.10\.1\" on interface wan \(eth1\)\. Current score: 5${NL}[^${NL}]* user\.notice mwan3track\[42\]: Interface wan \(eth1\) is disconnecting" "" \
  'rm -f /tmp/tunnelfix-syslog; logger -t "mwan3track[42]" -p info "Check (ping) failed for target \"100.64.10.1\" on interface wan (eth1). Current score: 5" && echo other | logger -t banIP && logger -t "mwan3track[42]" -p user.notice "Interface wan (eth1) is disconnecting" && logread -t -e mwan3track'
check "logread without -t: no bracketed time; -l 1: the last message" 0 "~[A-Z][a-z]{2} [^[]* user\.notice banIP: other" "" \
  'rm -f /tmp/tunnelfix-syslog; echo other | logger -t banIP && logread -l 1'
check "logread: an unknown option is refused, rc 1" 1 "" "*" 'logread -f'
check "logger keeps the last messages only" 0 "1000" "" \
  'awk "BEGIN { for (i = 0; i <= 2000; i++) print 1796000000 \"\tuser.info\tt: \" i }" > /tmp/tunnelfix-syslog; logger -t t last && wc -l < /tmp/tunnelfix-syslog'

echo "== tunnelfix.fleet.uci action over podman exec"
podman exec "${CT}" sh -c "${reset}"
export ANSIBLE_CONFIG="${REPO}/ansible.cfg" PATH="${REPO}/.venv/bin:${PATH}" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
# The repository as the collection tunnelfix.fleet, without relying on .cache/ (bootstrap.sh).
mkdir -p "${tmpdir}/coll/ansible_collections/tunnelfix"
ln -s "${REPO}" "${tmpdir}/coll/ansible_collections/tunnelfix/fleet"
export ANSIBLE_COLLECTIONS_PATH="${tmpdir}/coll"
# The product's readers on this profile: host_platform (/etc/openwrt_release) and the banIP version
# parser on what the package manager prints (openwrt_facts' banip subset needs nft with
# CAP_NET_ADMIN, which this unprivileged container lacks).
ansible -i "${INVENTORY}" tf-owrt-test -m tunnelfix.fleet.host_platform >"${tmpdir}/platform.out" 2>&1
if grep -q "SUCCESS" "${tmpdir}/platform.out" && grep -Eq '"?platform"?: "?openwrt"?' "${tmpdir}/platform.out"; then ok "tunnelfix.fleet.host_platform: openwrt"; else
  ko "tunnelfix.fleet.host_platform: openwrt" "$(tail -n 10 "${tmpdir}/platform.out")"; fi
if [[ "${pm}" == opkg ]]; then listing=(opkg list-installed banip); else listing=(apk list --installed banip); fi
got="$(podman exec "${CT}" "${listing[@]}" | PYTHONPATH="${tmpdir}/coll" python -c '
import sys
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.mwan3 import banip_default_icmplimit, parse_banip_version
text = sys.stdin.read()
print(parse_banip_version(text)["version"], banip_default_icmplimit(text))' 2>&1)"
if [[ "${got}" == "${banip_version} ${icmp_default}" ]]; then ok "parse_banip_version on ${listing[*]}: ${got}"; else
  ko "parse_banip_version on ${listing[*]}" "got: ${got}${NL}want: ${banip_version} ${icmp_default}"; fi

play() { ansible-playbook -i "${INVENTORY}" "${HERE}/uci_nohostroute.yml" "$@" >"${tmpdir}/play.out" 2>&1; }
recap() { grep -E '^tf-owrt-test +:' "${tmpdir}/play.out" | sed -E 's/ +/ /g'; }
assert_play() {  # NAME RC_WANT CHANGED_WANT [grep -E pattern that must be in the output]
  local name="$1" rc_want="$2" changed_want="$3" pattern="${4:-}" rc="$5"
  if [[ "${rc}" == "${rc_want}" ]] && recap | grep -q "changed=${changed_want} .*failed=0" \
     && { [[ -z "${pattern}" ]] || grep -Eq -- "${pattern}" "${tmpdir}/play.out"; }; then
    ok "${name}"
  else
    ko "${name}" "rc ${rc} (want ${rc_want}), want changed=${changed_want}${pattern:+ and /${pattern}/}; output:$(tail -n 25 "${tmpdir}/play.out")"
  fi
}
play --check --diff; assert_play "playbook --check --diff: changed=1, diff shows the option" 0 1 "^\+network\.wg0\.nohostroute='1'" $?
if grep -q KKKKKKKK "${tmpdir}/play.out"; then ko "--diff output redacts private_key" "the private key is in the output"; else ok "--diff output redacts private_key"; fi
check "--check changed nothing on the target" 1 "0${NL}0" "" 'uci changes | wc -l; grep -c nohostroute /etc/config/network'
play; assert_play "playbook run: changed=1" 0 1 "" $?
check "the option is committed, nothing left staged" 0 "1${NL}	option nohostroute '1'" "" 'uci get network.wg0.nohostroute && uci changes && grep nohostroute /etc/config/network'
play; assert_play "playbook second run: changed=0 (idempotent)" 0 0 "" $?
play --check --diff; assert_play "playbook --check --diff after the fix: changed=0" 0 0 "" $?

# An administrator's change staged in the same config (uci set without uci commit): `uci commit
# network` would write it too. The action must fail naming it (never its value), in check mode too,
# change nothing, and leave the staged change as it was; with tunnelfix_uci_commit_staged it commits
# both and warns.
podman exec "${CT}" sh -c "${reset}"
podman exec "${CT}" uci set network.lan.ipaddr=192.168.9.1
for mode in --check --diff; do
  rc=0; play "${mode}" || rc=$?
  if [[ "${rc}" == 2 ]] && grep -q "staged change(s) this task did not make: network.lan.ipaddr (set)" "${tmpdir}/play.out" \
     && grep -q "tunnelfix_uci_commit_staged: true" "${tmpdir}/play.out" && ! grep -q "192.168.9.1" "${tmpdir}/play.out"; then
    ok "playbook ${mode} with an admin's staged change: fails naming network.lan.ipaddr, not its value"
  else
    ko "playbook ${mode} with an admin's staged change" "rc ${rc} (want 2); output:$(tail -n 15 "${tmpdir}/play.out")"
  fi
done
check "the admin's change is still staged, uncommitted; nohostroute not written" 0 \
  "network.lan.ipaddr='192.168.9.1'${NL}0" "" 'uci changes network; grep -c nohostroute /etc/config/network || true'
play -e tunnelfix_uci_commit_staged=true
assert_play "with tunnelfix_uci_commit_staged=true: changed=1 and a warning naming the staged change" 0 1 \
  "commit_staged is set, so 'uci commit network' commits them too" $?
check "both changes committed, nothing left staged" 0 "192.168.9.1${NL}1" "" \
  'uci changes network; uci get network.lan.ipaddr; uci get network.wg0.nohostroute'
podman exec "${CT}" sh -c "${reset}"

# The action passes secret values on the stdin of `uci batch`; the containers.podman connection runs
# `podman exec` without -i, so stdin never reaches the container. The action reads the value back
# before committing: the task must fail, commit nothing, and leave the old key in place.
NEWKEY="ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ="
OLDKEY="$(podman exec "${CT}" uci get network.wg0.private_key)"
ansible -i "${INVENTORY}" tf-owrt-test -m tunnelfix.fleet.uci \
  -a "config=network section=wg0 option=private_key value=${NEWKEY}" >"${tmpdir}/play.out" 2>&1
got="$(podman exec "${CT}" uci get network.wg0.private_key)"
if grep -q "FAILED" "${tmpdir}/play.out" && grep -q "does not hold the new value" "${tmpdir}/play.out" \
   && [[ "${got}" == "${OLDKEY}" ]] && ! grep -q "${NEWKEY}" "${tmpdir}/play.out"; then
  ok "a secret that cannot reach the target (no stdin over podman exec) fails the task, commits nothing, is not shown"
else
  ko "secret over a connection without stdin" "want FAILED, 'does not hold the new value', old key kept; output:$(tail -n 15 "${tmpdir}/play.out")"
fi
podman exec "${CT}" uci -q revert network || true
# The same line on the stdin of `podman exec -i` (what the connection omits) does reach uci batch.
printf "set network.wg0.private_key='%s'\n" "${NEWKEY}" | podman exec -i "${CT}" uci batch
check "uci batch gets the secret when stdin is forwarded (podman exec -i)" 0 "${NEWKEY}" "" 'uci get network.wg0.private_key'

# A secret is compared by SHA-256 on the router: setting the value it already has changes nothing.
ansible -i "${INVENTORY}" tf-owrt-test -m tunnelfix.fleet.uci \
  -a "config=network section=wg0 option=private_key value=${NEWKEY}" >"${tmpdir}/play.out" 2>&1
if grep -q "SUCCESS" "${tmpdir}/play.out" && grep -q '"changed": false\|changed: false' "${tmpdir}/play.out"; then
  ok "a secret already set to the wanted value is unchanged (digest compared on the router)"
else
  ko "secret already set" "want SUCCESS, changed false; output:$(tail -n 15 "${tmpdir}/play.out")"
fi
# Keys are redacted on the router, so not even -vvv (which prints raw command output) holds one.
# (not banip: nft needs CAP_NET_ADMIN, which this unprivileged container lacks)
ansible -vvv -i "${INVENTORY}" tf-owrt-test -m tunnelfix.fleet.openwrt_facts \
  -a "gather_subset=wireguard,endpoint_routes,mwan3" >"${tmpdir}/facts.out" 2>&1
secrets_seen="$(grep -c -e "${NEWKEY}" -e "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP=" "${tmpdir}/facts.out")"
if grep -q "SUCCESS" "${tmpdir}/facts.out" && grep -q "private_key_set: true" "${tmpdir}/facts.out" \
   && [[ "${secrets_seen}" == 0 ]]; then
  ok "openwrt_facts at -vvv: a private key is set, yet no private or preshared key is in the log"
else
  ko "openwrt_facts -vvv holds a key or failed" "secret lines: ${secrets_seen}; $(grep -m3 -e FAILED -e fatal "${tmpdir}/facts.out")"
fi

echo "== stand-in hooks"
check "without a hook ifup only records" 0 "" "" 'ifup wg0'
check "a lab hook gets the arguments and its exit status is returned" 3 "hook ifup wg0" "" \
  'mkdir -p /etc/tunnelfix/hooks && printf "#!/bin/sh\necho hook ifup \$*\nexit 3\n" > /etc/tunnelfix/hooks/ifup && chmod 755 /etc/tunnelfix/hooks/ifup && ifup wg0'

echo "== banIP's model (its nft side needs NET_ADMIN: molecule/banip_icmp)"
check "banIP: disable/enable manage /etc/rc.d/S95banip, enabled says so" 0 "1${NL}0" "" \
  '/etc/init.d/banip disable; /etc/init.d/banip enabled; echo $?; /etc/init.d/banip enable; /etc/init.d/banip enabled; echo $?'
# shellcheck disable=SC2016  # expanded by the container's shell
check "banIP: start refused (rc 1) while the release's lock is held by a live banIP" 1 "" "" \
  '. /usr/libexec/tunnelfix/banip-model.sh; mkdir -p "$banip_lock" "${banip_pidfile%/*}"; echo 1 > "$banip_pidfile"; /etc/init.d/banip start'
# shellcheck disable=SC2016  # expanded by the container's shell
# shellcheck disable=SC2088  # a regular expression (matches), not a path
check "banIP: the lock is where the release keeps it" 0 "~/var/run/(banip\.lock|banIP/banIP\.lock)" "" \
  '. /usr/libexec/tunnelfix/banip-model.sh; ls -d "$banip_lock"; rm -rf "$banip_lock"; : > "$banip_pidfile"'

echo "${passed} passed, ${failed} failed"
[[ "${failed}" -eq 0 ]]
