# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel graph's faults: what their findings' ``evidence`` holds (``Fault.evidence``), one (keys, meaning) per row.

docs/findings.md's evidence tables are generated from it (scripts/findings_doc.py).
"""

ONE_SIDED_EVIDENCE = (
    (("interface", "own_public_key"), "this host's WireGuard interface and its own public key (from the running interface)"),
    ("peer_public_key", "the public key of the entry that has no entry back"),
    (("other_host", "other_interface"), "the inventory host and interface whose own key that is"),
    (("owner", "owner_path"), "who keeps the entry here: wg-quick, networkd, uci or live only (wg set, a portal), and the file"),
    ("other_unknown_keys", "the keys the other interface lists that no host of the run has (one may be this host's old key)"),
    ("other_entry", "null: the other end has no entry for this key; `not running`: only in its file (no wg syncconf or "
     "restart since); `disabled`: its uci peer has disabled '1'"),
)

DUPLICATE_KEY_EVIDENCE = (
    (("interface", "public_key"), "this host's WireGuard interface and its own public key"),
    ("also_on", "the other interfaces with the key (`host/interface`)"),
    ("listed_by", "the interfaces of the run whose peer entries list the key (`host/interface`)"),
    ("identical", "true when the other interface shows the same listen port, addresses and peers too: one machine listed "
     "twice in the inventory, or an untouched clone (the facts cannot tell which)"),
)

NO_ENDPOINT_EVIDENCE = (
    (("interface", "peer_public_key"), "this host's WireGuard interface and the entry's public key"),
    (("other_host", "other_interface"), "the other end (its entry lists this interface's key)"),
    ("handshake_age_s", "the entry's newest handshake, s (null: never)"),
    (("owner", "other_owner"), "who keeps each end's entry: wg-quick, networkd, uci or live only"),
)

PORT_MISMATCH_EVIDENCE = (
    (("interface", "peer_public_key"), "this host's WireGuard interface and the entry's public key"),
    (("endpoint_host", "endpoint_port"), "the endpoint the entry keeps (its file's Endpoint, uci endpoint_host/port)"),
    (("other_host", "other_interface", "other_listen_port"), "the other end and the UDP port it listens on"),
    ("handshake_age_s", "the entry's newest handshake, s (null: never; a fresh one means the port works, no finding)"),
    (("tx_bytes", "rx_bytes"), "what the entry sent and received, bytes (received is 0: nothing ever answered)"),
    (("owner", "owner_path"), "who keeps the entry here, and the file"),
)

ENDPOINT_ADDRESS_EVIDENCE = (
    (("interface", "peer_public_key"), "this host's WireGuard interface and the entry's public key"),
    ("judged_address", "the address the entry sends to: the kept one, or for a hostname the kernel's (resolved when set)"),
    (("endpoint_host", "endpoint_port"), "the endpoint the kernel holds (null: the entry does not run)"),
    (("configured_endpoint_host", "configured_endpoint_port"), "the endpoint its owner keeps (an address or a hostname)"),
    ("resolved_now", "for a hostname: `addresses` it resolves to now, `error` (null, or why not), `resolved_from`: "
     "`controller` (the Ansible controller's DNS, not the host's); null for an address"),
    (("other_host", "other_interface"), "the other end: the interface whose own key the entry lists"),
    ("other_addresses", "the addresses on the other end's devices (link_addresses; loopback, link-local and this "
     "tunnel's own interface left out)"),
    ("reached_at", "how other entries reach the other end with a fresh handshake: `address`, `port`, `entries`, "
     "`hosts` (the first three)"),
    ("address_of_hosts", "the other hosts of the run the address is on (a device, or how others reach them); [] when none"),
    ("signs", "why the address is wrong, not merely unknown: `inside the tunnel`, `another host's address`, `the name "
     "resolves to the other end now`, `others reach it elsewhere`, `sent into nothing`"),
    ("confidence", "`high` (inside the tunnel, another host's, or the name now resolves to the other end) or `medium`"),
    (("handshake_age_s", "other_handshake_age_s"), "each end's newest handshake for the other, s (null: never or no entry)"),
    (("tx_bytes", "rx_bytes"), "what the entry sent and received, bytes"),
    (("owner", "owner_path", "change"), "who keeps the entry here, the file, and the line to change: the file's "
     "`Endpoint =` (wg-quick) or `Endpoint=` (networkd) of its peer section, uci's `network.SECTION.endpoint_host`, or "
     "a `wg set` command for a live-only entry"),
)

KEEPALIVE_SIDE_EVIDENCE = (
    (("interface", "peer_public_key"), "this host's WireGuard interface and the entry's public key"),
    ("endpoint_host", "the endpoint this entry keeps (this end starts the tunnel)"),
    ("persistent_keepalive_s", "null: this entry sends no PersistentKeepalive (the finding's cause)"),
    (("other_host", "other_interface"), "the other end, which keeps no endpoint for this one"),
    ("other_persistent_keepalive_s", "the keepalive the other end's entry sends, s"),
    ("handshake_age_s", "this entry's newest handshake, s (null: never)"),
    (("owner", "owner_path"), "who keeps the entry here (the line to add goes there), and the file"),
)

ALLOWED_IPS_OVERLAP_EVIDENCE = (
    (("interface", "peer_public_key"), "this host's WireGuard interface and the entry that loses addresses"),
    ("holder_public_key", "the entry of the same interface that gets them"),
    ("identical", "the prefixes both entries list: `prefix`, and `decided_by`: `live` (the kernel holds it for the holder "
     "now) or `order` (the owner sets the holder last)"),
    ("contained", "the prefixes of the holder inside a wider one of the losing entry: `prefix`, `within`"),
    (("other_host", "lost_addresses"), "the losing entry's other end and its own tunnel addresses among what it loses "
     "(null and [] when none, or that host is not in the run)"),
    (("owner", "owner_path", "change"), "who keeps the losing entry, the file, and the line(s) to change: the file's "
     "AllowedIPs of that peer section, or uci's `network.SECTION.allowed_ips`"),
    (("holder_owner", "holder_owner_path", "holder_change"), "the same for the entry that gets them"),
)

SHADOW_LAN_EVIDENCE = (
    (("interface", "peer_public_key"), "this host's WireGuard interface and the entry whose AllowedIPs shadow a LAN"),
    ("shadowed", "per prefix: `prefix` (as the kernel keeps it), the `device` and `connected` prefix it meets, this "
     "host's `address` there, and `same` (true: the very prefix; false: inside it)"),
    (("owner", "owner_path", "change"), "who keeps the entry, the file, and the line(s) to change"),
)

RETURN_PATH_EVIDENCE = (
    (("interface", "peer_public_key", "allowed_ips"), "this host's WireGuard interface, the entry's public key and the "
     "AllowedIPs the kernel holds for it"),
    (("other_host", "other_interface", "other_addresses"), "the other end and its tunnel addresses (wg-quick Address, uci addresses)"),
    ("judged", "the other end's addresses it sends from toward this host (the families its entry back routes)"),
    ("missing", "those of them no prefix of those AllowedIPs holds: what this host drops"),
    (("owner", "owner_path"), "who keeps the entry here, and the file"),
)

HANDSHAKE_EVIDENCE = (
    (("interface", "peer_public_key"), "this host's WireGuard interface and the entry's public key"),
    (("other_host", "other_interface"), "the other end (its running entry lists this interface's key)"),
    ("classification", "`looks like a key or PSK mismatch`, `looks like a path problem` or `cannot tell`"),
    ("confidence", "`certain` (a preshared key on one end only, or two that differ), `high` (two readings of both ends show the attempt now "
     "and where it stops), `medium` (one sample of counters fits that cause), null (cannot tell)"),
    ("candidates", "the causes the facts leave open, in words (two when the counters cannot tell them apart)"),
    ("samples", "how many readings of both ends' counters the finding rests on (2: diagnose read them again, "
     "tunnelfix_second_sample_wait_s after the facts)"),
    (("sampled_after_s", "tx_bytes_2", "rx_bytes_2"), "this end's second reading: seconds after the facts' (its own clock), "
     "bytes sent and received by then (null: not read again)"),
    (("other_sampled_after_s", "other_tx_bytes_2", "other_rx_bytes_2"), "the same for the other end"),
    (("handshake_age_s", "other_handshake_age_s"), "each end's newest handshake, s (null: never)"),
    (("tx_bytes", "rx_bytes", "other_tx_bytes", "other_rx_bytes"), "what each end's entry sent and received, bytes "
     "(a handshake initiation is 148, a response 92)"),
    (("has_preshared_key", "other_has_preshared_key"), "whether each end's entry has a preshared key (never the key; "
     "null: not known)"),
    ("preshared_keys", "`equal` or `differ`: whether both ends' preshared keys are the same, from fingerprints made on "
     "each host with one run's random salt (never the key, nor the fingerprints); null: not both have one, or not known"),
    (("owner", "owner_path"), "who keeps the entry here, and the file"),
)

PUBLIC_KEY_MISMATCH_EVIDENCE = (
    ("case", "`peer_lists_another_key`: this host's entry lists another key for an interface of the run; "
     "`running_key_not_configured`: this host's interface runs another key than its private key gives"),
    ("interface", "this host's WireGuard interface"),
    (("peer_public_key", "change"), "peer_lists_another_key: the key the entry lists, and the line to change (the file's "
     "PublicKey line of that peer section, uci's `network.SECTION.public_key`, or the live entry)"),
    (("other_host", "other_interface", "other_public_key", "other_key_source"), "peer_lists_another_key: the interface "
     "the entry is meant for and its key: `running` (the key it runs with) or `private key` (not up: the public key of "
     "the private key it keeps, derived on that host by wg pubkey)"),
    ("matched_by", "peer_lists_another_key: `endpoint` (the entry's endpoint is that host's address or name) or "
     "`allowed_ips` (its tunnel address is in the entry's AllowedIPs, and no other interface's is)"),
    (("public_key", "configured_public_key"), "running_key_not_configured: the key the interface runs with, and the one "
     "the private key its owner keeps gives (derived on the host by wg pubkey; the private key never leaves it)"),
    (("owner", "owner_path"), "who keeps the entry (peer_lists_another_key) or the private key (running_key_not_configured): "
     "wg-quick, networkd, uci or live only, and the file (uci: `network.IFACE.private_key`)"),
    (("listed_by", "configured_listed_by"), "running_key_not_configured: the interfaces of the run whose entries list the "
     "running key (they lose the tunnel at the next restart), and those that list the other one already (`host/interface`)"),
)
