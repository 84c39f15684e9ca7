# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The commands the python-free fact actions run, shared by tunnel_facts (Linux) and openwrt_facts.

Data only (argv lists and the sh snippets ``_remote_batch.ForEachLine`` runs on the target), so
both actions read the same things the same way; what the outputs mean is in the parsers
(_wireguard, _route, _ethtool, _bridges, _tunnel_links, _tcp_tuning, _host_probe).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.host_probe import CONTAINER_MARKERS, module_paths
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import wg_dump_redacted_argv

# The target's clock (``date +%s``) and the live WireGuard state in one command: handshake ages
# need the target's clock. Keys are replaced on the target (_remote_redact): the connection
# prints raw output at -vvv.
WG_DUMP = wg_dump_redacted_argv()
WG_DUMP_NAME = "wg show all dump"
ROUTES_JSON = ["ip", "-j", "route", "show", "table", "all"]
ROUTES_TEXT = ["ip", "route", "show", "table", "all"]
ROUTE_GET_JSON = ["ip", "-j", "route", "get"]
ROUTE_GET_TEXT = ["ip", "route", "get"]
ETHTOOL_K = ["ethtool", "-k"]
NOT_FOUND = 127  # POSIX shells: command not found

# Address filter for endpoint lines on stdin: brackets and a port are cut off; what is not made
# of hex digits, dots and colons (a hostname, "(none)") is dropped, so no DNS lookup happens and
# nothing odd reaches a command line. One address per line, sorted, unique.
ADDRESS_FILTER = r"""while IFS= read -r a; do
  case $a in \[*) a=${a#\[}; a=${a%%]*} ;; *:*:*) ;; *:*) a=${a%:*} ;; esac
  case $a in ''|*[!0-9A-Fa-f.:]*) ;; *) printf '%s\n' "$a" ;; esac
done | sort -u"""

# Live endpoint addresses: field 4 of the 9-field peer lines of "$1", the redacted dump.
LIVE_ENDPOINT_LINES = "awk 'BEGIN { FS = \"\\t\" } NF == 9 { print $4 }' \"$1\" | " + ADDRESS_FILTER
# OpenWrt's endpoint lines (uci and live) are fault 1's: faults/endpoint_route/reads.py, UCI_AND_LIVE_ENDPOINT_LINES.

# Every bridge and bridge port, one name per line, for ethtool -k: /sys/class/net/BR/bridge and
# /sys/class/net/BR/brif/PORT (the kernel's bridge sysfs). No match prints nothing.
BRIDGE_DEVICE_LINES = ("ls -1d /sys/class/net/*/brif/* /sys/class/net/*/bridge 2>/dev/null"
                       " | sed -e 's,/bridge$,,' -e 's,.*/,,'")

# The udp_gro subset: the kernel release, and every device a default route of any table names, one per line, for
# ethtool -k (the main table's NIC is among them). "$@": the route listings' files: ip -j route show (one line of
# objects, cut at each "}": a unicast default starts with {"dst":"default", a multipath one names its first hop)
# and, on routers, its text form ("default via ... dev DEV ..."). Run in the same ethtool loop as BRIDGE_DEVICE_LINES
# (the readings' shared loop, faults/readings.py: after a shift past its input): one step per device. sed only (GNU
# and BusyBox take \n in a replacement), in double quotes: a single quote costs about 20 bytes of the command line
# once the script is quoted twice (test_remote_batch).
UNAME_R = ["uname", "-r"]
KERNEL_RELEASE_NAME = "kernel_release"  # the step's name: one word costs no quotes on the command line
DEFAULT_ROUTE_DEVICE_LINES = (r'sed -e "s/}/\n/g" "$@" | sed -n -e "s/^[[,]*{\"dst\":\"default\".*\"dev\":\"\([^\"]*\)\".*/\1/p"'
                              r' -e "s/^default.* dev \([^ ]*\).*/\1/p"')


# Kernel modules tunnel_facts and tcp_tuning report, and the paths whose existence answers what
# they ask: the modules' sysfs entries, network sysctls at all, a host-level one, the container
# markers (_host_probe). One ``ls -1d`` prints the existing ones (and complains about the rest).
PROBED_MODULES = ("tcp_bbr", "sch_fq")
PRESENCE_PATHS = tuple(path for name in PROBED_MODULES for path in module_paths(name)) + (
    "/proc/sys/net/ipv4", "/proc/sys/net/core/default_qdisc") + tuple(marker for marker, _name in CONTAINER_MARKERS)
PRESENCE = ["ls", "-1d", *PRESENCE_PATHS]
DETECT_VIRT = ["systemd-detect-virt", "--container"]


def modinfo_argv(name: str) -> list:
    """``modinfo -F filename NAME``: the module's file, ``(builtin)``, or rc 1 for an unknown module."""
    return ["modinfo", "-F", "filename", name]


def sysctl_path(key: str) -> str:
    """``net.ipv4.tcp_rmem`` -> ``/proc/sys/net/ipv4/tcp_rmem``."""
    return "/proc/sys/" + "/".join(key.split("."))


# What the WireGuard configuration files hold for the keepalive (tunnel_facts' wireguard subset):
# one line per setting, "PATH<TAB>KIND<TAB>NAME<TAB>VALUE", for every wg-quick file of
# WG_QUICK_DIR (KIND wg-quick) and every .netdev of NETWORKD_DIR (KIND netdev); NAME is "section"
# (the value: Interface, Peer, NetDev, WireGuardPeer, ...) or a lower-cased key among publickey,
# endpoint, persistentkeepalive, name, kind, address (wg-quick's Address =: whether IPv6 runs inside,
# the PMTU fault's floor), allowedips (a peer's AllowedIPs as kept: the tunnel graph's overlap rule; the
# kernel shows a prefix two peers list on one of them only). Only those keys are printed: a private or preshared key
# never leaves the target. In a wg-quick file a "#" starts a comment anywhere on a line, as wg(8) and
# wg-quick(8) read it (a key pasted into "Endpoint = ... # psk KEY" must not leave the target either, and
# "PersistentKeepalive = 5 # NAT" means 5); a .netdev has whole-line comments only (systemd.syntax(7)).
# Last, per file, NAME "pubkey": the public key of the file's own private key (the tunnel graph's public_key_mismatch),
# as ``wg pubkey`` derives it (wg(8): the private key on stdin, its public key on stdout): the file's last PrivateKey
# (only [Interface] of wg-quick, [WireGuard] of a .netdev have one: the section is not checked, to keep the batch
# within dropbear's command line), where a .netdev's PrivateKeyFile= (the first line of that file) takes precedence
# (systemd.netdev(5)). awk writes the private key into wg pubkey's stdin through a pipe only (never
# a command line, a variable of the shell, a file or the output; wg's error, which names no key, goes to
# /dev/null), after printing the line's start, and ends the line after wg: its VALUE is empty when wg is missing or
# rejects the key (then one empty line follows a derived key: the parser skips it). No private key: no such line.
# Without wg, cat takes the key (to /dev/null): a pipe nobody reads would kill awk (SIGPIPE; BusyBox awk did) before
# it ends the line.
# Parsed by parse/wg_config_peers.py.
WG_QUICK_DIR = "/etc/wireguard"
NETWORKD_DIR = "/etc/systemd/network"
DERIVED_PUBLIC_KEY = "pubkey"
_CONFIG_AWK = (
    "k == \"wg-quick\" { sub(/#.*/, \"\") } "
    "/^[[:space:]]*\\[/ { s = $0; sub(/^[[:space:]]*\\[/, \"\", s); sub(/\\].*/, \"\", s); print f \"\\t\" k \"\\tsection\\t\" s; next } "
    "{ i = index($0, \"=\"); if (i == 0) next; n = tolower(substr($0, 1, i - 1)); gsub(/[[:space:]]/, \"\", n); "
    "v = substr($0, i + 1); sub(/^[[:space:]]+/, \"\", v); sub(/[[:space:]]+$/, \"\", v) } "
    "n ~ /^(publickey|endpoint|persistentkeepalive|name|kind|address|allowedips)$/ { print f \"\\t\" k \"\\t\" n \"\\t\" v } "
    "n == \"privatekey\" { p = v } n == \"privatekeyfile\" { q = v } "
    "END { if (q != \"\") { p = \"\"; getline p < q } if (p != \"\") { printf \"%%s\\t%%s\\t%s\\t\", f, k; fflush(); "
    "c = \"wg pubkey 2>/dev/null || cat >/dev/null\"; print p | c; close(c); print \"\" } }" % DERIVED_PUBLIC_KEY)
WG_CONFIG_PEERS_NAME = "WireGuard configuration files (peers' keys, endpoints, keepalives and AllowedIPs)"


def wg_config_peers_argv(wg_quick_dir: str, networkd_dir: str) -> list:
    """The WG_CONFIG_PEERS command for these directories: the wg-quick files first, then the .netdev ones (one awk)."""
    return ["sh", "-c", "for f in %s/*.conf %s/*.netdev; do case $f in *.conf) k=wg-quick ;; *) k=netdev ;; esac; "
            "[ -f \"$f\" ] && awk -v f=\"$f\" -v k=$k '%s' \"$f\"; done; true" % (wg_quick_dir, networkd_dir, _CONFIG_AWK)]


WG_CONFIG_PEERS = wg_config_peers_argv(WG_QUICK_DIR, NETWORKD_DIR)

# OpenWrt: the public key of each uci WireGuard interface's private_key (the tunnel graph's public_key_mismatch): every
# interface section with proto 'wireguard' of "$1" (the redacted ``uci -q show network``, which prints values in single
# quotes), one name per line, and for each ``UCI_OWN_PUBLIC_KEY NAME``: what ``wg pubkey`` (wg(8)) prints for
# ``uci -q get network.NAME.private_key`` (nothing when wg is missing, the option unset or wg rejects it). uci get
# writes the private key into wg's stdin through a pipe only: never a command line, the output or a log (wg's error,
# which names no key, goes to /dev/null). Parsed by parse/openwrt_wireguard.py ``parse_derived_public_key``.
UCI_WIREGUARD_INTERFACE_LINES = "sed -n \"s/^network\\.\\([^.=]*\\)\\.proto='wireguard'\\$/\\1/p\" \"$1\""
UCI_OWN_PUBLIC_KEY = ["sh", "-c", "uci -q get \"network.$1.private_key\" | wg pubkey 2>/dev/null", "sh"]

# Every layer-3 tunnel device, one name per line, for ethtool -k: the links of "$1" (the stdout of
# FORWARD_AND_LINKS_ARGV: ip_forward, then ip -d -j link show on one line) that carry no Ethernet
# header, by iproute2's link_type: "none" (TUN in tun mode, WireGuard, xfrm), "gre", "sit", "ipip",
# "tunnel6", "gre6", ... (and "ppp": read, never used). Each link object starts with "ifindex", so
# splitting there keeps a link's keys in one field. The parser (_tunnel_links) decides what a tunnel
# is; this only names the devices to read in the same execution. No awk prints nothing.
TUNNEL_DEVICE_LINES = (
    "awk 'BEGIN { FS = \"\\\"ifindex\\\":\" } { for (i = 2; i <= NF; i++) "
    "if ($i !~ /\"link_type\":\"(ether|loopback)\"/ && match($i, /\"ifname\":\"[^\"]*\"/)) "
    "print substr($i, RSTART + 10, RLENGTH - 11) }' \"$1\"")
OFFLOAD_DEVICE_LINES = BRIDGE_DEVICE_LINES + "\n" + TUNNEL_DEVICE_LINES


# The MSS clamping rules (_mss_clamp): the whole nftables ruleset (firewall4 on OpenWrt, iptables-nft
# rules translated) and every iptables table (iptables-legacy, wg-quick's PostUp rules).
NFT_RULESET = ["nft", "list", "ruleset"]
IPTABLES_SAVE = ["iptables-save"]


# The preshared key (PSK) fingerprints (Linux and OpenWrt; the tunnel graph's handshake_never_completes): for every
# peer that has a PSK, one line "INTERFACE<TAB>PEER_PUBLIC_KEY<TAB>FINGERPRINT", the first 16 hex digits of
# sha256(SALT + PSK), SALT being the run's salt (FINGERPRINT_SALT_VARIABLE, exported by the batch: 32 hex digits the
# controller makes once per run, remote/psk_fingerprint.py) and PSK the key's base64 text as ``wg show all
# preshared-keys`` prints it (wg(8): "INTERFACE<TAB>PUBLIC_KEY<TAB>PSK" per peer, "(none)" without one; recorded:
# tests/unit/fixtures/psk_fingerprints/). The PSK never leaves the target and is never on a command line, in a shell
# variable or a file: wg writes it into awk's stdin, awk writes SALT and PSK (printf, awk's own) into the stdin of
# ``sha256sum | cut -c1-16`` through a pipe (awk's ``| cmd`` runs ``sh -c CMD``: the command's words only), and only
# the digest's first 16 hex digits come out; awk prints the line's start and flushes first, the digest ends the line.
# Nothing runs without a salt or without sha256sum (GNU coreutils; OpenWrt: BusyBox's, docs/openwrt-fidelity.md).
FINGERPRINT_SALT_VARIABLE = "TF_SALT"
PRESHARED_KEY_FINGERPRINTS_NAME = "preshared_key_fingerprints"   # one word: no quotes on the command line
PRESHARED_KEY_FINGERPRINTS = [
    "sh", "-c", "[ -n \"$TF_SALT\" ] && command -v sha256sum >/dev/null || exit 3\n"
    "wg show all preshared-keys | awk -v s=\"$TF_SALT\" '$3 != \"(none)\" { printf \"%s\\t%s\\t\", $1, $2; fflush(); "
    "c = \"sha256sum | cut -c1-16\"; printf \"%s%s\", s, $3 | c; close(c) }'"]
