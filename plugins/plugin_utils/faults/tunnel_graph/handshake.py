# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rule of handshake_never_completes: both ends list each other and run, one sends, no handshake ever completed.

Read from the tunnel graph (``graph.graph_of``) on pairs of entries that list each other's running public key
(``graph["back"]``), both running and enabled, on two machines. The keys are therefore right: each end lists the key
the other's running interface reports (``wg`` derives it from the private key there), so "a wrong public key" is not a
cause here (one_sided_peer and duplicate_public_key judge keys). What is left is a preshared key (PSK) that differs, or
the path. The classification comes from the counters of both ends' entries (``rx_bytes``, ``tx_bytes``, bytes since
the entry was created), whether each end has a PSK (``has_preshared_key``) and, with a PSK on both ends, whether the
two are the same (``preshared_keys``: their fingerprints, made on each host with the run's salt, remote/psk_fingerprint.py;
compared only when both carry the same salt id: one run).

Measured on wireguard-go v0.0.20220316 (wireguard-tools v1.0.20210914, Linux 6.18, 2026-12-05; the recorded
``wg show all dump`` of both ends, redacted as the facts read it: tests/unit/fixtures/wg_dump_redacted/, README there).
I initiates (Endpoint, ping through the tunnel), R answers (no Endpoint); each dump ~8 s and ~14 s after the start.
Handshake initiation 148 bytes, response 92 bytes, an initiation every 5 s (REKEY_TIMEOUT)::

    case                                        I rx/tx (8 s, 14 s)      R rx/tx (8 s, 14 s)      handshake  R endpoint
    matching PSK (control)                      2140/2196, 3548/3604     2196/2140, 3604/3548     both       learned
    PSK on I only / on R only / two PSKs        0/296, 0/444             296/184, 444/276         never      learned
    I lists a wrong key for R                   0/296, 0/444             0/0, 0/0                 never      none
    R lists a wrong key for I                   0/296, 0/444             0/0, 0/0 (its entry)     never      none
    I->R dropped (nft on R) / both dropped      0/296, 0/444             0/0, 0/0                 never      none
    R->I dropped (nft on I), PSKs or none       0/296, 0/444             296/184, 444/276         never      learned
    both keep an endpoint and ping: two PSKs,
      or R->I dropped                           0/296, 0/444             296/184, 444/276         never      kept
    both keep an endpoint and ping, both
      ways dropped                              0/296, 0/444             0/296, 0/444             never      kept

So the counters tell apart only two things: whether the initiations reach the other end's WireGuard (its ``rx_bytes``
grow: R accepted them, so path I->R and both keys are right; R's ``rx_bytes`` 0: they were lost, or a key is wrong,
which the joined pair excludes), and whether the answers count at the initiator. A differing PSK and a path that drops
only the answers give the same counters byte for byte (I's ``rx_bytes`` stay 0 although R's answers arrive: a
response is counted only once it is accepted), so
with a PSK on both ends the counters cannot tell, and the fingerprints settle it: different PSKs are certain (as a PSK
on one end only), equal ones are not the cause and the rows read them as no PSK (the path back); without both
fingerprints of one run the rule says ``cannot tell`` and names both. With a PSK on neither end it is the path back;
with a PSK on exactly one end it is certain (WireGuard mixes the PSK into the handshake on both ends, or zeros when
there is none: the two ends can never agree), whatever the counters say.

Classification (``classification``, ``confidence``; evaluated in this order)::

    a PSK on exactly one end (no fresh handshake)          "looks like a key or PSK mismatch"  "certain"
    PSKs on both ends, fingerprints of one run differ      "looks like a key or PSK mismatch"  "certain"
    -- below: equal fingerprints read as "no PSK either end" --
    -- below: never a handshake on either end, at least one end sent (tx_bytes > 0); else no finding --
    both ends sent, neither received a byte                "looks like a path problem"         "medium"  (both ways)
    one end sent and received nothing, the other received
    nothing                                                "looks like a path problem"         "medium"  (there)
    ... the other received and answered, no PSK either end "looks like a path problem"         "medium"  (way back)
    ... the other received and answered, PSK on both ends  "cannot tell"                       None
    both ends received bytes (each accepted the other's
    initiations; not reproduced: wireguard-go answering
    one initiation sends none of its own)                  "looks like a key or PSK mismatch"  "medium"
    anything else (one end received and never answered,
    a PSK not known)                                       "cannot tell"                       None

"medium", not "high", from one sample: the counters add up since each entry was created, and one sample cannot tell
"R sees nothing now" from "R's entry was recreated (a restart) after I's last attempt" (wireguard-go gives up after
90 s without traffic, REKEY_ATTEMPT_TIME). So diagnose reads both ends' counters a second time where the rule would
judge a pair from one sample and the cause is not certain (``second_sample_hosts``; samples.py), after
``tunnelfix_second_sample_wait_s`` (default 8 s: an initiation goes out every REKEY_TIMEOUT, 5 s plus up to 1/3 s of
jitter, so an end that tries sends at least one between the readings, and its answer is back well within the rest);
the growth between the two readings of each end (its own clock: ``sampled_after_s``, at least 6 s to count) is what
happens now. The recorded pairs (8 s and 14 s, above; 6 s apart) give, evaluated before the one-sample table::

    growth between the readings (each end)                                    classification             confidence
    a second reading shows a fresh handshake on either end                    (no finding: it came up)
    a PSK on exactly one end                                                   as above                   "certain"
    both ends: sent only whole 148-byte initiations, received nothing          "looks like a path problem" "high" (both ways)
    one end so (at least one initiation per 5 1/3 s of its interval, 1 s
    of clock resolution off: it tried throughout), the other nothing either way "looks like a path problem" "high" (there)
    ... the other received whole initiations and sent whole 92-byte answers,
        no PSK either end                                                      "looks like a path problem" "high" (way back)
    ... the same, a PSK on both ends, fingerprints not of one run (3, 6b, 8,
        8b: byte for byte alike; equal fingerprints: the row above)           "cannot tell"              None
    anything else (no end tries now, a counter went back: the entry was
    recreated, other sizes, an interval under 6 s)                             the one-sample table's classification

"high", not "certain": it rests on the two readings of both ends falling in the same few seconds (one task reads both
ends after one wait) and on the keys being right (the joined pair). A second reading is never taken where no pair needs
one: a converged host costs one facts execution. A tunnel that worked once (a handshake, now stale) is not judged: its
counters hold the old session; an idle tunnel is normal.

Not measured: kernel WireGuard (its module was not loadable on the lab's kernel); the table is wireguard-go's. A pair
where an endpoint's port is not the other end's listen port is left to endpoint_port_mismatch (a more exact finding
for the same counters).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.handshakes import fresh_handshake
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.endpoints import pairs
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.samples import second_sample

INITIATION_BYTES = 148   # WireGuard handshake initiation, UDP payload (whitepaper 5.4.2; measured above)
RESPONSE_BYTES = 92      # handshake response (5.4.3)
# the most between two initiations of an end that keeps trying: REKEY_TIMEOUT 5 s plus the most jitter (wireguard-go
# RekeyTimeoutJitterMaxMs 334 ms; the kernel's REKEY_TIMEOUT_JITTER_MAX_JIFFIES, HZ / 3)
RETRY_S = 5 + 334 / 1000
# the shortest interval between two readings of one end (its clock's whole seconds) whose growth the rule reads
MIN_SAMPLED_AFTER_S = 6

MISMATCH = "looks like a key or PSK mismatch"
PATH = "looks like a path problem"
CANNOT_TELL = "cannot tell"


def _port_left_to_other_rule(edge, listen) -> bool:
    """Whether endpoint_port_mismatch judges this direction: a kept endpoint port that is not the listen port there."""
    port = edge["configured_endpoint_port"]
    return port is not None and listen is not None and port != listen


def preshared_keys(mine, theirs):
    """"equal" or "differ": whether both ends' preshared keys are the same, from their fingerprints (graph edges'
    ``preshared_key_fingerprint``, remote/psk_fingerprint.py), when both have one and both were made with one salt
    (the same ``preshared_key_salt_id``: one run); None otherwise (no PSK on an end, a fingerprint not known, or two
    salts: fingerprints of two runs are never compared)."""
    if not (mine.get("has_preshared_key") is True and theirs.get("has_preshared_key") is True):
        return None
    prints = (mine.get("preshared_key_fingerprint"), theirs.get("preshared_key_fingerprint"))
    salts = (mine.get("preshared_key_salt_id"), theirs.get("preshared_key_salt_id"))
    if None in prints or None in salts or salts[0] != salts[1]:
        return None
    return "equal" if prints[0] == prints[1] else "differ"


def _psk_state(mine, theirs):
    """Both ends' PSK flags as the path rows read them: (False, False) when both have the same PSK (it is not the
    cause, as with none), else (``has_preshared_key`` of each)."""
    if preshared_keys(mine, theirs) == "equal":
        return False, False
    return mine["has_preshared_key"], theirs["has_preshared_key"]


def classify(mine, theirs):
    """(classification, confidence, cause) of a pair of running entries that list each other, ``mine`` and ``theirs``
    (graph edges), or None when the rule does not judge it (module doc). ``cause`` is a key of ``_CAUSES``."""
    psk = (mine["has_preshared_key"], theirs["has_preshared_key"])
    if fresh_handshake(mine["handshake_age_s"]) or fresh_handshake(theirs["handshake_age_s"]):
        return None
    if None not in psk and psk[0] != psk[1]:
        return MISMATCH, "certain", "psk_one_side"
    if preshared_keys(mine, theirs) == "differ":
        return MISMATCH, "certain", "psk_differ"
    psk = _psk_state(mine, theirs)
    if mine["handshake_age_s"] is not None or theirs["handshake_age_s"] is not None:
        return None
    counters = (mine["tx_bytes"], mine["rx_bytes"], theirs["tx_bytes"], theirs["rx_bytes"])
    if not all(isinstance(value, int) for value in counters) or not (counters[0] or counters[2]):
        return None
    my_tx, my_rx, their_tx, their_rx = counters
    mine_unanswered, theirs_unanswered = my_tx > 0 and my_rx == 0, their_tx > 0 and their_rx == 0
    if mine_unanswered and theirs_unanswered:
        return PATH, "medium", "path_both_ways"
    if mine_unanswered or theirs_unanswered:
        other_rx, other_tx = (their_rx, their_tx) if mine_unanswered else (my_rx, my_tx)
        direction = "out" if mine_unanswered else "in"
        if other_rx == 0:
            return PATH, "medium", "path_" + direction
        if other_tx == 0:
            return CANNOT_TELL, None, "not_answered_" + direction
        if psk == (False, False):
            return PATH, "medium", "path_back_" + direction
        return CANNOT_TELL, None, "psk_or_path_back_" + direction
    if my_rx > 0 and their_rx > 0:
        return (MISMATCH, "medium", "psk_both_ways") if psk != (False, False) else (CANNOT_TELL, None, "unexplained")
    return CANNOT_TELL, None, "unexplained"


def growth(edge, later):
    """``{"tx", "rx", "s"}``: what ``edge`` (the facts' first sample) sent and received more by ``later`` (its second
    sample, samples.py), over ``s`` seconds; None when there is none, it came less than ``MIN_SAMPLED_AFTER_S`` after,
    a counter is unknown, or one went back (the entry was recreated between the readings)."""
    if later is None:
        return None
    values = (edge["tx_bytes"], edge["rx_bytes"], later["tx_bytes"], later["rx_bytes"], later["sampled_after_s"])
    if not all(isinstance(value, int) and not isinstance(value, bool) for value in values):
        return None
    tx, rx = values[2] - values[0], values[3] - values[1]
    if values[4] < MIN_SAMPLED_AFTER_S or tx < 0 or rx < 0:
        return None
    return {"tx": tx, "rx": rx, "s": values[4]}


def _knocks(grew):
    """Whether an end sent only whole initiations, at least one per ``RETRY_S`` of its interval (less its clock's 1 s
    resolution), and received nothing: it tried throughout, and nothing came back."""
    least = max(1, int((grew["s"] - 1) // RETRY_S))
    return grew["rx"] == 0 and grew["tx"] % INITIATION_BYTES == 0 and grew["tx"] // INITIATION_BYTES >= least


def _answers(grew):
    """Whether an end received whole initiations and sent whole answers (and nothing else)."""
    return (grew["rx"] > 0 and grew["rx"] % INITIATION_BYTES == 0 and grew["tx"] > 0
            and grew["tx"] % RESPONSE_BYTES == 0)


def classify_growth(mine, theirs, my_growth, their_growth):
    """(classification, confidence, cause) from both ends' ``growth`` between two readings (module doc's second table),
    or None when it shows no current attempt the table names (the one-sample classification then stands)."""
    psk = _psk_state(mine, theirs)
    mine_knocks, theirs_knocks = _knocks(my_growth), _knocks(their_growth)
    if mine_knocks and theirs_knocks:
        return PATH, "high", "path_both_ways"
    if not (mine_knocks or theirs_knocks):
        return None
    other, direction = (their_growth, "out") if mine_knocks else (my_growth, "in")
    if other["tx"] == 0 and other["rx"] == 0:
        return PATH, "high", "path_" + direction
    if _answers(other):
        if psk == (False, False):
            return PATH, "high", "path_back_" + direction
        return CANNOT_TELL, None, "psk_or_path_back_" + direction
    return None


def _candidates(cause):
    """The causes the counters leave open, in words (evidence ``candidates``)."""
    if cause == "psk_one_side":
        return ["a preshared key on one end only"]
    if cause == "psk_differ":
        return ["the preshared keys differ"]
    if cause.startswith("path_both"):
        return ["UDP lost both ways between the ends"]
    if cause.startswith("path_back"):
        return ["the answers lost on the way back"]
    if cause.startswith("path_"):
        return ["the initiations lost before the other end's WireGuard"]
    if cause.startswith("psk_or_path_back"):
        return ["the preshared keys differ", "the answers lost on the way back"]
    if cause == "psk_both_ways":
        return ["the preshared keys differ"]
    return []


def _psk_line(edge, other):
    """Where ``edge``'s PSK is kept, for a person to compare (never the key): its owner's line or option."""
    if edge["owner"] == "wg-quick":
        return "the PresharedKey line of the [Peer] with PublicKey %s in %s" % (edge["public_key"], edge["owner_path"])
    if edge["owner"] == "networkd":
        return "PresharedKey= (or PresharedKeyFile=) of the [WireGuardPeer] with PublicKey=%s in %s" % (
            edge["public_key"], edge["owner_path"])
    if edge["owner"] == "uci":
        return "uci network.%s.preshared_key" % (edge["uci_section"] or "(the peer section for %s)" % other)
    return "the running entry's preshared key (set with wg set, kept by no file: wg showconf shows it)"


def _psk_words(flag):
    return {True: "a preshared key", False: "no preshared key", None: "an unknown preshared key state"}[flag]


def _growth_words(name, grew):
    """``"i's wg0 sent 148 bytes more (1 initiation) and received 0 more in 6 s"``."""
    whole = grew["tx"] // INITIATION_BYTES if grew["tx"] and grew["tx"] % INITIATION_BYTES == 0 and not grew["rx"] else None
    return "%s sent %d bytes more%s and received %d more in %d s" % (
        name, grew["tx"], "" if whole is None else " (%d initiation%s)" % (whole, "" if whole == 1 else "s"), grew["rx"], grew["s"])


def _second_text(here, there, grown, used):
    """The sentence on the second reading: what both ends' counters did between the readings, and whether the
    classification rests on it (``used``) or on the first reading's totals."""
    seen = "A second reading of both ends' counters: %s; %s" % (_growth_words(here, grown[0]), _growth_words(there, grown[1]))
    if used:
        return " %s: the attempt happens now, and that is where it stops (measured on wireguard-go)." % seen
    return (" %s, which shows no end trying now in the pattern measured (one %d-byte initiation every 5 s), so this rests "
            "on the first reading's totals. WireGuard stops initiating 90 s after its last packet to send: keep traffic "
            "on the tunnel (a ping) while diagnose runs." % (seen, INITIATION_BYTES))


def _text(cause, here, there, mine, theirs, second_text=None):
    """The finding's explanation: what the counters say and what to check. ``here``/``there``: "host's iface";
    ``second_text``: the sentence on a second reading (``_second_text``), None when there was none."""
    sent, got, their_sent, their_got = mine["tx_bytes"], mine["rx_bytes"], theirs["tx_bytes"], theirs["rx_bytes"]
    # the end that sends into nothing, and the other, whatever side of the pair this finding is on
    if cause.endswith("_in"):
        knocker, other, k_sent, o_got, o_sent = there, here, their_sent, got, sent
    else:
        knocker, other, k_sent, o_got, o_sent = here, there, sent, their_got, their_sent
    second = second_text if second_text is not None else (
        " One sample of the counters cannot rule out that one end's entry was recreated after the other's last "
        "attempt; a second sample a few seconds later would show whether %s still sends (its sent bytes grow by "
        "%d every 5 s) and whether %s's received bytes grow with it." % (knocker, INITIATION_BYTES, other))
    if cause == "psk_one_side":
        holder, lacking = (here, there) if mine["has_preshared_key"] else (there, here)
        return ("%s has a preshared key for %s, but %s has none for %s: WireGuard mixes the preshared key (or zeros "
                "without one) into every handshake on both ends, so the two can never agree and the handshake never "
                "completes, however the path behaves. Give %s the same PresharedKey (uci preshared_key) as %s, or "
                "remove it from %s. The facts carry only whether a key is set, never the key."
                % (holder, lacking, lacking, holder, lacking, holder, holder))
    if cause == "psk_differ":
        return ("%s and %s both have a preshared key for each other, and the keys differ: their fingerprints (the "
                "first 16 hex digits of sha256 of this run's random salt and the key, made on each host; the key never "
                "leaves it) are not equal. WireGuard mixes the preshared key into every handshake on both ends, so the "
                "two can never agree and the handshake never completes, however the path behaves. Give both the same "
                "key: compare %s of %s with %s of %s (without printing them: wg show INTERFACE preshared-keys | "
                "sha256sum on each end)." % (here, there, _psk_line(mine, there), here, _psk_line(theirs, here), there))
    if cause == "path_both_ways":
        return ("Both ends send handshake initiations (%s: %d bytes, %s: %d bytes) and neither counts a byte from the "
                "other: UDP between them is lost both ways. The keys are right (each lists the other's running key), "
                "and a preshared key that differs shows as received bytes on the answering end (measured), so check "
                "the path: each endpoint's address and port against the other's address and listen port, the "
                "firewalls on both (UDP to the listen ports), and any NAT between them.%s"
                % (here, sent, there, their_sent, second))
    if cause.startswith("path_back"):
        keys = ("Both ends have the same preshared key (their fingerprints, made on each host with this run's salt, "
                "are equal)" if preshared_keys(mine, theirs) == "equal" else "Neither end has a preshared key")
        return ("%s sent %d bytes of handshake initiations; %s received %d bytes from it and answered with %d, and %s "
                "counts none of the answers. %s and the keys are right (each lists the "
                "other's running key), so the answers are lost on the way back to %s: check its firewall for UDP "
                "from %s's listen port, a NAT mapping that changed, and a reverse path filter (rp_filter) or an "
                "asymmetric route on the way.%s" % (knocker, k_sent, other, o_got, o_sent, knocker, keys, knocker, other, second))
    if cause.startswith("path_"):
        return ("%s sent %d bytes of handshake initiations (%d bytes each, one every 5 s while it has traffic) and "
                "%s counts none from it: they never reach %s's WireGuard. The keys are right (each lists the other's "
                "running key), and a preshared key that differs shows as received bytes there (measured), so check "
                "the path: %s's endpoint for %s (address and port) against %s's address and listen port, a firewall "
                "in front of %s (UDP to that port), and a NAT forward if %s is behind one.%s"
                % (knocker, k_sent, INITIATION_BYTES, other, other, knocker, other, other, other, other, second))
    if cause.startswith("psk_or_path_back"):
        return ("%s sent %d bytes of handshake initiations; %s accepted them (%d bytes received: the keys and the path "
                "there are right) and answered with %d bytes, and %s counts none of the answers (%s has %s, %s has %s). "
                "Two different preshared keys give exactly these counters, and so does a path that "
                "drops only the answers (measured on wireguard-go: byte for byte the same), so the counters cannot "
                "tell which, and their fingerprints were not both read in one run (facts gathered without this "
                "run's salt, or no sha256sum on an end). Compare the keys without printing them: on each end, wg show INTERFACE preshared-keys "
                "| awk -v k=PEER_KEY '$1 == k {print $2}' | sha256sum (PEER_KEY: the other end's public key there); equal "
                "digests mean equal keys, and then the answers are lost on the way back to %s (its firewall for UDP from %s's listen port, a "
                "NAT mapping, rp_filter).%s"
                % (knocker, k_sent, other, o_got, o_sent, knocker, here, _psk_words(mine["has_preshared_key"]), there,
                   _psk_words(theirs["has_preshared_key"]), knocker, other, second))
    if cause.startswith("not_answered"):
        return ("%s sent %d bytes and %s received %d bytes from it but never answered, and no handshake ever "
                "completed: not a pattern measured on the lab (an answering end sends a %d-byte response to every "
                "initiation it accepts), so the counters cannot tell the cause. Look at both ends' logs (wireguard-go "
                "with LOG_LEVEL=debug, or dmesg with WireGuard dynamic debug) while %s sends.%s"
                % (knocker, k_sent, other, o_got, RESPONSE_BYTES, knocker, second))
    if cause == "psk_both_ways":
        return ("Both ends received bytes from each other (%s: %d, %s: %d), so the path works both ways and each "
                "accepted the other's handshake initiations, yet no handshake ever completed: each rejects the other's "
                "answer, which is what two different preshared keys do (%s has %s, %s has %s). Not reproduced on the "
                "lab (wireguard-go answering an initiation sends none of its own), hence medium. Compare the keys "
                "without printing them: on each end, wg show INTERFACE preshared-keys | awk -v k=PEER_KEY '$1 == k {print $2}' | sha256sum."
                % (here, got, there, their_got, here, _psk_words(mine["has_preshared_key"]), there,
                   _psk_words(theirs["has_preshared_key"])))
    return ("No handshake ever completed, and the counters (%s: sent %d, received %d; %s: sent %d, received %d) fit "
            "none of the patterns measured on the lab, or a preshared key state is not known, so the rule cannot tell "
            "a key or preshared key mismatch from a path problem.%s" % (here, sent, got, there, their_sent, their_got, second))


def _judged(graph, host):
    """(entry, entry back, other node, this node, one-sample ``classify``) of every pair of ``host`` the rule judges:
    both running, each listing one interface, a classification, and not a port mismatch (left to its rule)."""
    nodes = graph["nodes"]
    for edge, back, other in pairs(graph, host):
        if not (edge["running"] and back["running"]) or len(edge["to"]) != 1 or len(back["to"]) != 1:
            continue
        node = nodes[edge["from"]]
        got = classify(edge, back)
        if got is None:
            continue
        if got[1] != "certain" and (_port_left_to_other_rule(edge, other["listen_port"])
                                    or _port_left_to_other_rule(back, node["listen_port"])):
            continue
        yield edge, back, other, node, got


def second_sample_hosts(views) -> list:
    """The hosts of ``views`` (``{host: view}``, the facts only) whose WireGuard counters diagnose reads a second time:
    both ends of every pair the rule judges from one sample without certainty (module doc), sorted; ``[]`` when no
    pair needs it (a converged fleet: no second reading, no wait)."""
    graph = graph_of(views)
    hosts = set()
    for host in graph["by_host"]:
        for _edge, _back, other, _node, got in _judged(graph, host):
            if got[1] != "certain":
                hosts.update((host, other["host"]))
    return sorted(hosts)


def _fresh_at_second_reading(later):
    return later is not None and fresh_handshake(later["handshake_age_s"])


def never_completes(host, view, views):
    """One (evidence, explanation) per entry of ``host`` whose pair ``classify`` judges (module doc), from both ends'
    second readings too where diagnose took them (``growth``, ``classify_growth``)."""
    graph = graph_of(views)
    out = []
    for edge, back, other, node, got in _judged(graph, host):
        later = (second_sample(views, host, node["interface"], edge["public_key"]),
                 second_sample(views, other["host"], other["interface"], back["public_key"]))
        if _fresh_at_second_reading(later[0]) or _fresh_at_second_reading(later[1]):
            continue   # the handshake completed between the readings: the tunnel works now
        grown = (growth(edge, later[0]), growth(back, later[1]))
        samples = 2 if None not in grown else 1
        second_text = None
        if samples == 2 and got[1] != "certain":
            now = classify_growth(edge, back, grown[0], grown[1])
            got = now or got
            second_text = _second_text("%s's %s" % (host, node["interface"]), "%s's %s" % (other["host"], other["interface"]),
                                       grown, now is not None)
        classification, confidence, cause = got
        here, there = "%s's %s" % (host, node["interface"]), "%s's %s" % (other["host"], other["interface"])
        evidence = {"interface": node["interface"], "peer_public_key": edge["public_key"], "other_host": other["host"],
                    "other_interface": other["interface"], "classification": classification, "confidence": confidence,
                    "candidates": _candidates(cause), "samples": samples,
                    "handshake_age_s": edge["handshake_age_s"], "other_handshake_age_s": back["handshake_age_s"],
                    "tx_bytes": edge["tx_bytes"], "rx_bytes": edge["rx_bytes"],
                    "other_tx_bytes": back["tx_bytes"], "other_rx_bytes": back["rx_bytes"],
                    "sampled_after_s": (later[0] or {}).get("sampled_after_s"),
                    "tx_bytes_2": (later[0] or {}).get("tx_bytes"), "rx_bytes_2": (later[0] or {}).get("rx_bytes"),
                    "other_sampled_after_s": (later[1] or {}).get("sampled_after_s"),
                    "other_tx_bytes_2": (later[1] or {}).get("tx_bytes"), "other_rx_bytes_2": (later[1] or {}).get("rx_bytes"),
                    "has_preshared_key": edge["has_preshared_key"], "other_has_preshared_key": back["has_preshared_key"],
                    "preshared_keys": preshared_keys(edge, back),
                    "owner": edge["owner"], "owner_path": edge["owner_path"]}
        out.append((evidence, "The tunnel between %s and %s %s: %s (%s). %s"
                    % (here, there, "never completed a handshake" if edge["handshake_age_s"] is None and back["handshake_age_s"] is None
                       else "has no fresh handshake", classification,
                       "certain" if confidence == "certain" else ("confidence %s" % confidence if confidence else "no classification"),
                       _text(cause, here, there, edge, back, second_text))))
    return out
