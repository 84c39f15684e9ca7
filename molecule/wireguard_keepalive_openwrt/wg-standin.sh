#!/bin/sh
# Stand-in for wg(8) where the kernel has no WireGuard: wg0 "exists", its peers' keepalive lives in
# /tmp/wg0.keepalive (<key>\t<seconds|off>); every call is recorded; anything else goes to the real wg.
# `wg show all dump` prints wg0 as wg(8) does: the interface line (private key, public key, listen port,
# fwmark), then one line per peer (public key, preshared key, endpoint, allowed IPs, latest handshake,
# rx, tx, keepalive), tab-separated; fake keys.
state=/tmp/wg0.keepalive
echo "wg $*" >> /tmp/tunnelfix-calls.log
if [ "$1" = show ] && [ "$3" = persistent-keepalive ]; then
  [ "$2" = wg0 ] || { echo "Unable to access interface: No such device" >&2; exit 1; }
  cat "$state"
  exit 0
fi
if [ "$1" = show ] && [ "$2" = all ] && [ "$3" = dump ]; then
  printf 'wg0\t%s\t%s\t51820\toff\n' KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK= WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW=
  awk 'BEGIN { FS = OFS = "\t" } { print "wg0", $1, "(none)", "(none)", "10.0.0.0/24", 0, 0, 0, $2 }' "$state"
  exit 0
fi
if [ "$1" = set ] && [ "$2" = wg0 ] && [ "$3" = peer ] && [ "$5" = persistent-keepalive ]; then
  value=$6
  [ "$value" = 0 ] && value=off
  awk -v k="$4" -v v="$value" 'BEGIN { FS = OFS = "\t" } $1 == k { $2 = v } { print }' "$state" > "$state.new"
  mv "$state.new" "$state"
  exit 0
fi
exec /usr/bin/wg.real "$@"
