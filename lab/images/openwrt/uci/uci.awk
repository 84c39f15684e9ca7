# uci.awk - a small emulation of OpenWrt's `uci` command line, for the tunnelfix test image.
# Written from the documented behaviour of uci (OpenWrt wiki, observed output); no OpenWrt code.
# Run through the /sbin/uci wrapper: awk -v CONFDIR=.. -v SAVEDIR=.. -v QUIET=0|1 -v EXTNAMES=0|1
#   -f uci.awk -- <command> [args...]
# Data model, per loaded config (key K = config "#" generation):
#   NS[K] sections; SN[K,i] name, ST[K,i] type, SA[K,i] anonymous, SD[K,i] deleted, SIDX[K,name] = i
#   OORD[K,i] = " opt1 opt2 " (file order), OV[K,i,opt] = "S" value | "L" item LSEP item ...
# Delta file SAVEDIR/<config>, one change per line (as uci's save files): "c.s.o='v'" set,
# "+c.s='type'" add, "-c.s[.o]" delete, "@c.s[.o]='new'" rename, "|c.s.o='v'" add_list,
# "~c.s.o='v'" del_list.
BEGIN {
    LSEP = "\036"; RC = 0; GEN = 0
    for (i = 1; i < 256; i++) ORD[sprintf("%c", i)] = i
    n = 0
    for (i = 1; i < ARGC; i++) { if (ARGV[i] == "--" && n == 0) continue; A[++n] = ARGV[i] }
    ARGC = 1
    if (n == 0) usage()
    if (A[1] == "batch") {
        INBATCH = 1
        while ((getline line < "/dev/stdin") > 0) {
            if (line ~ /^[ \t]*(#|$)/) continue
            m = tokenize(line)
            if (m < 0) { err("Parse error (unterminated quote) in batch line"); continue }
            if (m == 0) continue
            for (j = 1; j <= m; j++) B[j] = TOK[j]
            dispatch(B, m)
        }
    } else {
        dispatch(A, n)
    }
    save_all()
    close("cat 1>&2")
    exit RC
}

function usage() {
    print "Usage: uci [-q] [-X] [-c <confdir>] [-P <savedir>] <command> [<arguments>]\n" \
          "Commands: batch export show get set delete add add_list del_list rename revert changes commit" | "cat 1>&2"
    close("cat 1>&2")
    exit 255
}

function err(msg) {
    if (!QUIET) print "uci: " msg | "cat 1>&2"
    RC = 1
    return 0
}

# ---------------------------------------------------------------- tokens, quoting
# Split one line of a config file (or of a batch input) into TOK[1..n]; quotes as in uci files:
# '...' literal, "..." and bare words with backslash escapes, # starts a comment. -1: open quote.
function tokenize(s,    n, i, c, q, cur, intok, L) {
    n = 0; cur = ""; intok = 0; q = ""; L = length(s)
    for (i = 1; i <= L; i++) {
        c = substr(s, i, 1)
        if (q == "'") { if (c == "'") q = ""; else cur = cur c; continue }
        if (q == "\"") {
            if (c == "\\" && i < L) { i++; cur = cur substr(s, i, 1) }
            else if (c == "\"") q = ""
            else cur = cur c
            continue
        }
        if (c == " " || c == "\t" || c == "\r") { if (intok) { TOK[++n] = cur; cur = ""; intok = 0 } continue }
        if (c == "#" && !intok) break
        intok = 1
        if (c == "'" || c == "\"") q = c
        else if (c == "\\" && i < L) { i++; cur = cur substr(s, i, 1) }
        else cur = cur c
    }
    if (q != "") return -1
    if (intok) TOK[++n] = cur
    return n
}

function quote(v,    out, i) {
    out = ""
    while ((i = index(v, "'")) > 0) { out = out substr(v, 1, i - 1) "'\\''"; v = substr(v, i + 1) }
    return "'" out v "'"
}

# Inverse of quote() for one value (delta files): 'a'\''b' -> a'b. Unquoted text is taken as is.
function unquote(v,    out, i, c, L, inq) {
    if (substr(v, 1, 1) != "'") return v
    out = ""; inq = 0; L = length(v)
    for (i = 1; i <= L; i++) {
        c = substr(v, i, 1)
        if (inq) { if (c == "'") inq = 0; else out = out c }
        else if (c == "'") inq = 1
        else if (c == "\\" && i < L) { i++; out = out substr(v, i, 1) }
    }
    return out
}

function hash(h, s,    i, L) {
    L = length(s)
    for (i = 1; i <= L; i++) h = (h * 33 + ORD[substr(s, i, 1)]) % 65536
    return h
}

function valid_name(s) { return s ~ /^[A-Za-z0-9_]+$/ }
function valid_config(s) { return s ~ /^[A-Za-z0-9_-]+$/ }
function valid_type(s) { return s ~ /^[A-Za-z0-9_-]+$/ }

# ---------------------------------------------------------------- loading
function key(c) { return c "#" GENOF[c] }

# Load config c (file + staged delta). 1 ok, 0 no such config, -1 parse error (reported).
function load(c,    K, f, line, lineno, m, cur, r, d) {
    if (c in LOADED) return LOADED[c]
    if (!valid_config(c)) return 0
    GENOF[c] = ++GEN; K = key(c); NS[K] = 0; ND[c] = 0
    f = CONFDIR "/" c; cur = 0; lineno = 0
    r = (getline line < f)
    if (r < 0) { close(f); LOADED[c] = 0; return 0 }
    while (r > 0) {
        lineno++
        m = tokenize(line)
        if (m < 0) return load_fail(c, f, "unterminated quote", lineno)
        if (m > 0) {
            if (TOK[1] == "package") {
                if (m != 2) return load_fail(c, f, "invalid command", lineno)
            } else if (TOK[1] == "config") {
                if (m < 2 || m > 3 || !valid_type(TOK[2]) || (m == 3 && !valid_name(TOK[3])))
                    return load_fail(c, f, "invalid section", lineno)
                if (cur) fix_anon(K, cur)
                cur = new_section(K, (m == 3 ? TOK[3] : ""), TOK[2])
            } else if (TOK[1] == "option" || TOK[1] == "list") {
                if (!cur) return load_fail(c, f, "option/list command found before the first section", lineno)
                if (m != 3 || !valid_name(TOK[2])) return load_fail(c, f, "invalid option", lineno)
                if (TOK[1] == "option") opt_set(K, cur, TOK[2], TOK[3])
                else opt_add_list(K, cur, TOK[2], TOK[3])
            } else {
                return load_fail(c, f, "invalid command", lineno)
            }
        }
        r = (getline line < f)
    }
    close(f)
    if (cur) fix_anon(K, cur)
    LOADED[c] = 1
    # replay the staged changes
    d = SAVEDIR "/" c
    while ((getline line < d) > 0) {
        if (line == "") continue
        DL[c, ++ND[c]] = line
        replay(c, line)
    }
    close(d)
    return 1
}

function load_fail(c, f, why, lineno) {
    close(f)
    LOADED[c] = -1
    err("Parse error (" why ") at line " lineno ", byte 1")
    return -1
}

function new_section(K, name, type,    i) {
    i = ++NS[K]
    SN[K, i] = name; ST[K, i] = type; SA[K, i] = (name == ""); SD[K, i] = 0; OORD[K, i] = " "
    if (name != "") {
        if ((K, name) in SIDX) { SD[K, SIDX[K, name]] = 1 }   # a repeated name: the later one wins
        SIDX[K, name] = i
    }
    return i
}

# An anonymous section gets cfg + 2 hex digits (its position) + 4 hex digits (hash of type and options).
function fix_anon(K, i,    h, o, nm, j, L) {
    if (!SA[K, i] || SN[K, i] != "") return
    h = hash(5381 % 65536, ST[K, i])
    L = split(OORD[K, i], OL, " ")
    for (j = 1; j <= L; j++) { o = OL[j]; h = hash(h, o "=" OV[K, i, o]) }
    do { nm = sprintf("cfg%02x%04x", i % 256, h); h = (h + 1) % 65536 } while ((K, nm) in SIDX)
    SN[K, i] = nm; SIDX[K, nm] = i
}

function opt_set(K, i, o, v) {
    if (!((K, i, o) in OV)) OORD[K, i] = OORD[K, i] o " "
    OV[K, i, o] = "S" v
}

function opt_add_list(K, i, o, v,    cur) {
    if (!((K, i, o) in OV)) { OORD[K, i] = OORD[K, i] o " "; OV[K, i, o] = "L" v; return }
    cur = OV[K, i, o]
    OV[K, i, o] = "L" substr(cur, 2) LSEP v
}

function opt_del(K, i, o) {
    delete OV[K, i, o]
    sub(" " o " ", " ", OORD[K, i])
}

# Remove every list item equal to v; a plain option equal to v is removed too. 1 if changed.
function opt_del_list(K, i, o, v,    cur, n, j, out, kept, hit) {
    if (!((K, i, o) in OV)) return 0
    cur = OV[K, i, o]
    n = split(substr(cur, 2), IT, LSEP)
    out = ""; kept = 0; hit = 0
    for (j = 1; j <= n; j++) {
        if (IT[j] == v) { hit = 1; continue }
        out = (kept ? out LSEP : "") IT[j]; kept++
    }
    if (!hit) return 0
    if (kept == 0) opt_del(K, i, o)
    else OV[K, i, o] = substr(cur, 1, 1) out
    return 1
}

# ---------------------------------------------------------------- references
# Parse "config[.section[.option]][=value]" into RC_, RS_, RO_, RV_, HASV. 0 on a parse error.
function parse_ref(s,    eq, k, n) {
    RC_ = RS_ = RO_ = RV_ = ""; HASV = 0
    eq = index(s, "=")
    if (eq) { k = substr(s, 1, eq - 1); RV_ = substr(s, eq + 1); HASV = 1 } else k = s
    n = split(k, P, ".")
    if (n < 1 || n > 3) return 0
    RC_ = P[1]
    if (n >= 2) RS_ = P[2]
    if (n == 3) RO_ = P[3]
    if (!valid_config(RC_)) return 0
    if (n >= 2 && !valid_name(RS_) && RS_ !~ /^@[A-Za-z0-9_-]+(\[-?[0-9]+\])?$/) return 0
    if (n == 3 && !valid_name(RO_)) return 0
    return 1
}

# Index of section ref (name or @type[N]) in config c, 0 if none.
function find_section(c, ref,    K, t, idx, i, cnt, want) {
    K = key(c)
    if (substr(ref, 1, 1) != "@") {
        if ((K, ref) in SIDX && !SD[K, SIDX[K, ref]]) return SIDX[K, ref]
        return 0
    }
    t = substr(ref, 2); idx = 0
    if (index(t, "[")) { idx = substr(t, index(t, "[") + 1); sub(/\].*/, "", idx); t = substr(t, 1, index(t, "[") - 1) }
    idx = idx + 0
    cnt = 0
    for (i = 1; i <= NS[K]; i++) if (!SD[K, i] && ST[K, i] == t) cnt++
    want = idx < 0 ? cnt + idx : idx
    if (want < 0 || want >= cnt) return 0
    cnt = 0
    for (i = 1; i <= NS[K]; i++) if (!SD[K, i] && ST[K, i] == t) { if (cnt == want) return i; cnt++ }
    return 0
}

# Position of section i among the live sections of its type (the N of @type[N]).
function type_index(K, i,    j, n) {
    n = 0
    for (j = 1; j < i; j++) if (!SD[K, j] && ST[K, j] == ST[K, i]) n++
    return n
}

function shown_name(K, i) {
    if (SA[K, i] && !EXTNAMES) return "@" ST[K, i] "[" type_index(K, i) "]"
    return SN[K, i]
}

# ---------------------------------------------------------------- changes
# Apply one delta line while loading (no recording).
function replay(c, line,    p, k, eq, v, n, K, i) {
    p = substr(line, 1, 1)
    if (p ~ /[-+@|~^]/) line = substr(line, 2); else p = ""
    eq = index(line, "=")
    if (eq) { k = substr(line, 1, eq - 1); v = unquote(substr(line, eq + 1)) } else { k = line; v = "" }
    n = split(k, P, ".")
    if (n < 2) return
    apply(c, p, P[2], (n == 3 ? P[3] : ""), v, (eq > 0))
}

# The one place that changes the in-memory config. op: "" set, + add, - delete, @ rename,
# | add_list, ~ del_list. Returns 1 if applied.
function apply(c, op, s, o, v, hasv,    K, i) {
    K = key(c)
    i = find_section(c, s)
    if (op == "+") { if (i) return 0; new_section(K, s, v); SA[K, NS[K]] = 1; return 1 }
    if (op == "") {
        if (o == "") { if (i) ST[K, i] = v; else new_section(K, s, v); return 1 }
        if (!i) return 0
        if (v == "") { if ((K, i, o) in OV) opt_del(K, i, o); return 1 }
        opt_set(K, i, o, v); return 1
    }
    if (!i) return 0
    if (op == "-") {
        if (o == "") { SD[K, i] = 1; delete SIDX[K, SN[K, i]]; return 1 }
        if (hasv) return opt_del_list(K, i, o, v)
        if (!((K, i, o) in OV)) return 0
        opt_del(K, i, o); return 1
    }
    if (op == "@") {
        if (o == "") { delete SIDX[K, SN[K, i]]; SN[K, i] = v; SA[K, i] = 0; SIDX[K, v] = i; return 1 }
        if (!((K, i, o) in OV)) return 0
        OV[K, i, v] = OV[K, i, o]; delete OV[K, i, o]
        sub(" " o " ", " " v " ", OORD[K, i]); return 1
    }
    if (op == "|") { opt_add_list(K, i, o, v); return 1 }
    if (op == "~") return opt_del_list(K, i, o, v)
    return 0
}

# Stage one change: apply it, remember it for `changes` and for the save file.
function stage(c, op, s, o, v, hasv,    line) {
    if (!apply(c, op, s, o, v, hasv)) return 0
    line = op c "." s (o != "" ? "." o : "") (hasv ? "=" quote(v) : "")
    DL[c, ++ND[c]] = line
    NEW[c, ++NN[c]] = line
    DIRTY[c] = 1
    return 1
}

function save_all(    c, f, j) {
    for (c in DIRTY) {
        if (!NN[c]) continue
        system("mkdir -p '" SAVEDIR "'")
        f = SAVEDIR "/" c
        for (j = 1; j <= NN[c]; j++) print NEW[c, j] >> f
        close(f)
    }
}

function forget(c) { delete LOADED[c]; delete DIRTY[c]; NN[c] = 0; ND[c] = 0 }

# ---------------------------------------------------------------- commands
function dispatch(X, n,    cmd) {
    cmd = X[1]
    if (cmd == "show") return cmd_show(X, n)
    if (cmd == "export") return cmd_export(X, n)
    if (cmd == "get") return cmd_get(X, n)
    if (cmd == "changes") return cmd_changes(X, n)
    if (cmd == "commit") return cmd_commit(X, n)
    if (cmd == "revert") return cmd_revert(X, n)
    if (cmd == "add") return cmd_add(X, n)
    if (cmd == "set" || cmd == "delete" || cmd == "add_list" || cmd == "del_list" || cmd == "rename")
        return cmd_change(cmd, X, n)
    if (cmd == "batch" || INBATCH) return err("Invalid argument")
    usage()
}

function list_dir(dir, out,    cmd, line, n) {
    n = 0
    cmd = "ls '" dir "' 2>/dev/null"
    while ((cmd | getline line) > 0) if (valid_config(line)) out[++n] = line
    close(cmd)
    return n
}

# Look a reference up for reading; sets LC (config), LI (section index). 1 ok, 0 reported error.
function lookup(s) {
    if (!parse_ref(s) || HASV) return err("Parse error")
    LC = RC_
    LI = 0
    r = load(LC)
    if (r < 0) return 0
    if (r == 0) return err("Entry not found")
    if (RS_ != "") { LI = find_section(LC, RS_); if (!LI) return err("Entry not found") }
    if (RO_ != "" && !((key(LC), LI, RO_) in OV)) return err("Entry not found")
    return 1
}

function fmt_value(enc, sep,    n, j, out) {
    if (substr(enc, 1, 1) == "S") return sep == "q" ? quote(substr(enc, 2)) : substr(enc, 2)
    n = split(substr(enc, 2), IT, LSEP)
    out = ""
    for (j = 1; j <= n; j++) out = out (j > 1 ? " " : "") (sep == "q" ? quote(IT[j]) : IT[j])
    return out
}

function show_section(c, i, only,    K, nm, L, j, o) {
    K = key(c); nm = c "." shown_name(K, i)
    if (only == "") print nm "=" ST[K, i]
    L = split(OORD[K, i], OL2, " ")
    for (j = 1; j <= L; j++) {
        o = OL2[j]
        if (only != "" && o != only) continue
        print nm "." o "=" fmt_value(OV[K, i, o], "q")
    }
}

function show_config(c,    K, i) {
    K = key(c)
    for (i = 1; i <= NS[K]; i++) if (!SD[K, i]) show_section(c, i, "")
}

function cmd_show(X, n,    m, j, r) {
    if (n > 2) return err("Invalid argument")
    if (n == 1) {
        m = list_dir(CONFDIR, CFGS)
        for (j = 1; j <= m; j++) if (load(CFGS[j]) > 0) show_config(CFGS[j])
        return 1
    }
    if (!lookup(X[2])) return 0
    if (RS_ == "") show_config(LC)
    else show_section(LC, LI, RO_)
    return 1
}

function export_config(c,    K, i, L, j, o, enc, m, k) {
    K = key(c)
    print "package " c
    for (i = 1; i <= NS[K]; i++) {
        if (SD[K, i]) continue
        print ""
        print "config " ST[K, i] (SA[K, i] ? "" : " " quote(SN[K, i]))
        L = split(OORD[K, i], OL2, " ")
        for (j = 1; j <= L; j++) {
            o = OL2[j]; enc = OV[K, i, o]
            if (substr(enc, 1, 1) == "S") { print "\toption " o " " quote(substr(enc, 2)); continue }
            m = split(substr(enc, 2), IT, LSEP)
            for (k = 1; k <= m; k++) print "\tlist " o " " quote(IT[k])
        }
    }
    print ""
}

function cmd_export(X, n,    m, j) {
    if (n > 2) return err("Invalid argument")
    if (n == 1) {
        m = list_dir(CONFDIR, CFGS)
        for (j = 1; j <= m; j++) if (load(CFGS[j]) > 0) export_config(CFGS[j])
        return 1
    }
    if (!parse_ref(X[2]) || RS_ != "" || HASV) return err("Invalid argument")
    r = load(RC_)
    if (r < 0) return 0
    if (r == 0) return err("Entry not found")
    export_config(RC_)
    return 1
}

function cmd_get(X, n) {
    if (n != 2) return err("Invalid argument")
    if (!lookup(X[2])) return 0
    if (RS_ == "") return err("Invalid argument")
    if (RO_ == "") print ST[key(LC), LI]
    else print fmt_value(OV[key(LC), LI, RO_], "")
    return 1
}

function cmd_change(cmd, X, n,    c, s, o, v, K, i, r) {
    if (n != 2) return err("Invalid argument")
    if (!parse_ref(X[2])) return err("Parse error")
    c = RC_; s = RS_; o = RO_; v = RV_
    if (s == "") return err("Invalid argument")
    r = load(c)
    if (r < 0) return 0
    if (r == 0) return err("Entry not found")
    K = key(c)
    i = find_section(c, s)
    if (cmd == "set") {
        if (!HASV) return err("Invalid argument")
        if (o == "") {
            if (!valid_type(v)) return err("Invalid argument")
            if (!i && substr(s, 1, 1) == "@") return err("Invalid argument")
            return stage(c, "", (i ? SN[K, i] : s), "", v, 1)
        }
        if (!i) return err("Invalid argument")
        if (v == "" && !((K, i, o) in OV)) return 1
        if (v == "") return stage(c, "-", SN[K, i], o, "", 0)
        return stage(c, "", SN[K, i], o, v, 1)
    }
    if (cmd == "delete") {
        if (!i) return err("Entry not found")
        if (o != "" && !((K, i, o) in OV)) return err("Entry not found")
        if (HASV && o != "") { opt_del_list_staged(c, SN[K, i], o, v); return 1 }
        return stage(c, "-", SN[K, i], o, "", 0)
    }
    if (cmd == "rename") {
        if (!HASV || !valid_name(v)) return err("Invalid argument")
        if (!i) return err("Entry not found")
        if (o != "" && !((K, i, o) in OV)) return err("Entry not found")
        return stage(c, "@", SN[K, i], o, v, 1)
    }
    # add_list / del_list
    if (!HASV || o == "") return err("Invalid argument")
    if (!i) return err("Invalid argument")
    if (cmd == "add_list") return stage(c, "|", SN[K, i], o, v, 1)
    if (!((K, i, o) in OV)) return 1
    stage(c, "~", SN[K, i], o, v, 1)
    return 1
}

function opt_del_list_staged(c, s, o, v) { return stage(c, "~", s, o, v, 1) }

function cmd_add(X, n,    c, t, K, h, nm) {
    if (n != 3) return err("Invalid argument")
    c = X[2]; t = X[3]
    if (!valid_config(c) || !valid_type(t)) return err("Invalid argument")
    r = load(c)
    if (r < 0) return 0
    if (r == 0) return err("Entry not found")
    K = key(c)
    h = hash(5381 % 65536, t)
    do { nm = sprintf("cfg%02x%04x", (NS[K] + 1) % 256, h); h = (h + 1) % 65536 } while ((K, nm) in SIDX)
    stage(c, "+", nm, "", t, 1)
    print nm
    return 1
}

function show_changes(c,    j, line, p, eq, k, v, op) {
    if (load(c) < 0) return
    for (j = 1; j <= ND[c]; j++) {
        line = DL[c, j]
        p = substr(line, 1, 1)
        if (p ~ /[-+@|~^]/) line = substr(line, 2); else p = ""
        eq = index(line, "=")
        if (p == "-" && eq) { print "-" line; continue }   # delete of one list value
        if (p == "-") { print "-" line; continue }
        k = substr(line, 1, eq - 1); v = substr(line, eq + 1)
        op = (p == "|" ? "+=" : (p == "~" ? "-=" : "="))
        print k op v
    }
}

function cmd_changes(X, n,    m, j) {
    if (n > 2) return err("Invalid argument")
    if (n == 2) {
        if (!parse_ref(X[2]) || RS_ != "") return err("Invalid argument")
        r = load(RC_)
        if (r == 0) return err("Entry not found")
        show_changes(RC_)
        return 1
    }
    m = list_dir(SAVEDIR, DCF)
    for (j = 1; j <= m; j++) show_changes(DCF[j])
    return 1
}

function write_config(c,    f, tmp, K, i, L, j, o, enc, m, k) {
    K = key(c)
    f = CONFDIR "/" c; tmp = CONFDIR "/." c ".uci-new"
    printf "" > tmp
    for (i = 1; i <= NS[K]; i++) {
        if (SD[K, i]) continue
        print "" > tmp
        print "config " ST[K, i] (SA[K, i] ? "" : " " quote(SN[K, i])) > tmp
        L = split(OORD[K, i], OL2, " ")
        for (j = 1; j <= L; j++) {
            o = OL2[j]; enc = OV[K, i, o]
            if (substr(enc, 1, 1) == "S") { print "\toption " o " " quote(substr(enc, 2)) > tmp; continue }
            m = split(substr(enc, 2), IT, LSEP)
            for (k = 1; k <= m; k++) print "\tlist " o " " quote(IT[k]) > tmp
        }
    }
    print "" > tmp
    close(tmp)
    if (system("mv -f '" tmp "' '" f "' && rm -f '" SAVEDIR "/" c "'") != 0) return err("I/O error")
    forget(c)
    return 1
}

function commit_one(c,    r) {
    r = load(c)
    if (r < 0) return 0
    if (r == 0) return err("Entry not found")
    if (ND[c] == 0) return 1
    return write_config(c)
}

function cmd_commit(X, n,    m, j, c) {
    if (n > 2) return err("Invalid argument")
    if (n == 2) {
        if (!parse_ref(X[2]) || RS_ != "") return err("Invalid argument")
        return commit_one(RC_)
    }
    m = list_dir(SAVEDIR, DCF)
    for (c in DIRTY) if (NN[c]) DCF[++m] = c
    for (j = 1; j <= m; j++) commit_one(DCF[j])
    return 1
}

# revert config[.section[.option]]: drop the matching staged changes.
function cmd_revert(X, n,    c, s, o, K, i, f, j, line, rest, keep, nk, prefix) {
    if (n != 2) return err("Invalid argument")
    if (!parse_ref(X[2]) || HASV) return err("Invalid argument")
    c = RC_; s = RS_; o = RO_
    r = load(c)
    if (r < 0) return 0
    if (r == 0) return err("Entry not found")
    if (s != "") { i = find_section(c, s); if (i) s = SN[key(c), i] }
    nk = 0
    for (j = 1; j <= ND[c]; j++) {
        line = DL[c, j]
        rest = (substr(line, 1, 1) ~ /[-+@|~^]/) ? substr(line, 2) : line
        prefix = c "." s (o != "" ? "." o : "")
        if (s == "" || substr(rest, 1, length(prefix) + 1) == prefix "=" || substr(rest, 1, length(prefix) + 1) == prefix "." || rest == prefix) continue
        KEEP[++nk] = line
    }
    f = SAVEDIR "/" c
    system("rm -f '" f "'")
    if (nk) {
        system("mkdir -p '" SAVEDIR "'")
        for (j = 1; j <= nk; j++) print KEEP[j] >> f
        close(f)
    }
    forget(c)
    return 1
}
