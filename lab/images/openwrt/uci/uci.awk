# uci.awk - a small emulation of OpenWrt's `uci` command line, for the tunnelfix test image.
# Written for this project from uci's documented and observed behaviour, checked against the
# code paths of uci's cli.c/list.c/delta.c/util.c; no OpenWrt code. Run through the /sbin/uci
# wrapper: awk -v CONFDIR=.. -v SAVEDIR=.. -v DELTADIRS=dir[:dir..] -v NOCOMMIT=0|1 -v QUIET=0|1
#   -v EXTNAMES=0|1 -f uci.awk -- <command> [args...]
# Data model, per loaded config (key K = config "#" generation):
#   NS[K] sections; SN[K,i] name, ST[K,i] type, SA[K,i] anonymous, SD[K,i] deleted, SIDX[K,name] = i
#   OORD[K,i] = " opt1 opt2 " (file order), OV[K,i,opt] = "S" value | "L" item LSEP item ...
# Delta file SAVEDIR/<config>, one change per line (as uci's save files): "c.s.o='v'" set,
# "+c.s='type'" add, "-c.s[.o]" delete ("-c.s.o='N'": list item N), "@c.s[.o]='new'" rename,
# "|c.s.o='v'" add_list, "~c.s.o='v'" del_list. Every command returns uci's exit status: 0, 1
# (an error), 255 (wrong command or argument count: the usage follows), or for `add` uci's error code.
BEGIN {
    LSEP = "\036"; RC = 0; GEN = 0
    # uci keeps the text after an error message in one static buffer: each message printed adds a
    # newline to it, and only a parse error with a parse context replaces it (ERRINFO).
    ERRINFO = ""
    BLINE = 0          # batch: input lines read since a config was last loaded (uci's parse context)
    CTRL = "[" sprintf("%c", 1) "-" sprintf("%c", 8) sprintf("%c%c", 11, 12) sprintf("%c", 14) "-" sprintf("%c", 31) "]"
    for (i = 1; i < 256; i++) ORD[sprintf("%c", i)] = i
    NDD = (DELTADIRS == "") ? 0 : split(DELTADIRS, DDIR, ":")
    n = 0
    for (i = 1; i < ARGC; i++) { if (ARGV[i] == "--" && n == 0) continue; A[++n] = ARGV[i] }
    ARGC = 1
    if (n == 0) { usage(); exit 0 }
    RC = dispatch(A, n)
    if (RC == 255) usage()
    save_all()
    close("cat 1>&2")
    exit RC
}

function usage() {
    print "Usage: uci [-q] [-X] [-c <confdir>] [-P|-t <savedir>] [-p <deltadir>] <command> [<arguments>]\n" \
          "Commands: batch export show get set delete add add_list del_list rename revert changes commit help\n" \
          "(tunnelfix emulation of OpenWrt's uci, see lab/images/openwrt/README.md)" | "cat 1>&2"
    close("cat 1>&2")
}

# An error as uci's cli_perror prints it: "uci: <message>" and the static text after it; returns 1.
function err(msg) {
    if (QUIET) return 1
    ERRINFO = ERRINFO "\n"
    printf "uci: %s%s", msg, ERRINFO | "cat 1>&2"
    return 1
}

# A parse error with a parse context: " (<reason>) at line N, byte B" replaces the static text.
function err_ctx(msg, why, line, byte) {
    if (QUIET) return 1
    ERRINFO = " (" why ") at line " line ", byte " byte
    return err(msg)
}

# A message without the "uci: " prefix (uci's cli_error: "Unknown command", "Too many arguments").
function errx(msg) {
    if (!QUIET) print msg | "cat 1>&2"
    return 1
}

# ---------------------------------------------------------------- tokens, quoting
# Split one line of a config file (or of a batch input) into TOK[1..n]; quotes as in uci files:
# '...' literal, "..." and bare words with backslash escapes; an unquoted # ends the line, and in
# a batch (inbatch) an unquoted ; too (uci reads the next command from the next line).
# -1: an open quote (uci would go on reading the next line: values with a newline are not emulated).
function tokenize(s, inbatch,    n, i, c, q, cur, intok, L) {
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
        if (c == "#" || (c == ";" && inbatch)) break
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
# uci's checks of a reference: a config name is printable ASCII without spaces (only [A-Za-z0-9_-]
# files exist here); a value has no control characters other than tab, newline and carriage return.
function printable(s) { return s ~ /^[!-~]+$/ }
function valid_type(s) { return printable(s) }
function valid_text(s) { return s !~ CTRL }

# ---------------------------------------------------------------- loading
function key(c) { return c "#" GENOF[c] }

# Load config c (file + staged deltas). 1 ok, 0 no such config, -1 parse error (reported).
function load(c,    K, f, line, lineno, m, cur, r, d, j) {
    BLINE = 0          # uci parses every config afresh, which drops the batch input's parse context
    if (c in LOADED) return LOADED[c]
    if (!valid_config(c)) return 0
    GENOF[c] = ++GEN; K = key(c); NS[K] = 0; ND[c] = 0
    f = CONFDIR "/" c; cur = 0; lineno = 0
    r = (getline line < f)
    if (r < 0) { close(f); LOADED[c] = 0; return 0 }
    while (r > 0) {
        lineno++
        m = tokenize(line, 0)
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
    # replay the staged changes: the -p delta dirs first, the save dir last (as uci's delta path)
    for (j = 1; j <= NDD + 1; j++) {
        d = (j <= NDD ? DDIR[j] : SAVEDIR) "/" c
        while ((getline line < d) > 0) {
            if (line == "") continue
            if (replay(c, line)) DL[c, ++ND[c]] = line
        }
        close(d)
    }
    return 1
}

function load_fail(c, f, why, lineno) {
    close(f)
    LOADED[c] = -1
    err_ctx("Parse error", why, lineno, 1)
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

# del_list: remove every list item equal to v (the option goes when none is left). A plain option
# is left alone, as uci does.
function opt_del_list(K, i, o, v,    cur, n, j, out, kept) {
    cur = OV[K, i, o]
    n = split(substr(cur, 2), IT, LSEP)
    out = ""; kept = 0
    for (j = 1; j <= n; j++) {
        if (IT[j] == v) continue
        out = (kept ? out LSEP : "") IT[j]; kept++
    }
    if (kept == 0) opt_del(K, i, o)
    else OV[K, i, o] = "L" out
}

# delete c.s.o=N: remove list item N (from 0). 0 when there is no such item.
function opt_del_item(K, i, o, idx,    n, j, out, kept) {
    n = split(substr(OV[K, i, o], 2), IT, LSEP)
    if (idx < 0 || idx >= n) return 0
    out = ""; kept = 0
    for (j = 1; j <= n; j++) {
        if (j == idx + 1) continue
        out = (kept ? out LSEP : "") IT[j]; kept++
    }
    if (kept == 0) opt_del(K, i, o)
    else OV[K, i, o] = "L" out
    return 1
}

# ---------------------------------------------------------------- references
# Parse "config[.section[.option]][=value]" into RN_ (number of parts), RC_, RS_, RO_, RV_, HASV
# and REXT (the section is not a plain name: only @type[N] is then valid, checked on lookup).
# 0 on a parse error (uci: Parse error).
function parse_ref(s,    eq, k) {
    RC_ = RS_ = RO_ = RV_ = ""; HASV = 0; REXT = 0
    eq = index(s, "=")
    if (eq) { k = substr(s, 1, eq - 1); RV_ = substr(s, eq + 1); HASV = 1 } else k = s
    RN_ = split(k, P, ".")
    if (RN_ < 1 || RN_ > 3) return 0
    RC_ = P[1]
    if (RN_ >= 2) RS_ = P[2]
    if (RN_ == 3) RO_ = P[3]
    if (!printable(RC_)) return 0
    if (RN_ >= 2 && !valid_name(RS_)) REXT = 1
    if (RN_ == 3 && !valid_name(RO_)) return 0
    if (HASV && !valid_text(RV_)) return 0
    return 1
}

# uci's extended section syntax: @type[N] (type may be empty: any type; N may be empty: 0).
function ext_ref(s,    b, t) {
    if (substr(s, 1, 1) != "@") return 0
    b = index(s, "[")
    if (!b || substr(s, b + 1) !~ /^[-+]?[0-9]*\]$/) return 0
    t = substr(s, 2, b - 2)
    return t == "" || printable(t)
}

# Index of section ref (name or @type[N]) in config c, 0 if none.
function find_section(c, ref,    K, t, idx, i, cnt, want) {
    K = key(c)
    if (substr(ref, 1, 1) != "@") {
        if ((K, ref) in SIDX && !SD[K, SIDX[K, ref]]) return SIDX[K, ref]
        return 0
    }
    t = substr(ref, 2, index(ref, "[") - 2)
    idx = substr(ref, index(ref, "[") + 1); sub(/\]$/, "", idx)
    idx = idx + 0
    cnt = 0
    for (i = 1; i <= NS[K]; i++) if (!SD[K, i] && (t == "" || ST[K, i] == t)) cnt++
    want = idx < 0 ? cnt + idx : idx
    if (want < 0 || want >= cnt) return 0
    cnt = 0
    for (i = 1; i <= NS[K]; i++) if (!SD[K, i] && (t == "" || ST[K, i] == t)) { if (cnt == want) return i; cnt++ }
    return 0
}

# Position of section i among the live sections of its type (the N of @type[N]).
function type_index(K, i,    j, n) {
    n = 0
    for (j = 1; j < i; j++) if (!SD[K, j] && ST[K, j] == ST[K, i]) n++
    return n
}

# The name `show` prints: @type[N] for an anonymous section only when a whole config is shown
# (and not -X); `show config.section[.option]` prints the internal cfgXXXXXX name, as uci does.
function shown_name(K, i, whole) {
    if (whole && SA[K, i] && !EXTNAMES) return "@" ST[K, i] "[" type_index(K, i) "]"
    return SN[K, i]
}

# Resolve reference s as uci does before any command: parse it (Parse error), load the config
# (Entry not found, or the file's parse error), check an extended section reference (Invalid
# argument). A missing section or option is not an error here. Sets LC, LI (0: no section),
# LCOMPLETE (everything named exists). Returns 0, or 1 after reporting the error.
function lookup(s,    r) {
    if (!parse_ref(s)) {
        # in a batch uci still holds the input's parse context (no reason, byte 0) when it reports this
        if (INBATCH) return err_ctx("Parse error", "unknown", BLINE, 0)
        return err("Parse error")
    }
    LC = RC_; LI = 0; LCOMPLETE = 0
    r = load(LC)
    if (r < 0) return 1
    if (r == 0) return err("Entry not found")
    if (RN_ < 2) { LCOMPLETE = 1; return 0 }
    if (REXT && !ext_ref(RS_)) return err("Invalid argument")
    LI = find_section(LC, RS_)
    LCOMPLETE = LI > 0 && (RN_ < 3 || (key(LC), LI, RO_) in OV)
    return 0
}

# ---------------------------------------------------------------- changes
# Apply one delta line while loading (no recording). 1 if it is a change uci would read back.
function replay(c, line,    p, k, eq, v, n) {
    p = substr(line, 1, 1)
    if (p ~ /[-+@|~^]/) line = substr(line, 2); else p = ""
    eq = index(line, "=")
    if (eq) { k = substr(line, 1, eq - 1); v = unquote(substr(line, eq + 1)) } else { k = line; v = "" }
    n = split(k, P, ".")
    if (n < 2 || P[1] != c || !valid_name(P[2]) || (n == 3 && !valid_name(P[3]))) return 0
    if (p != "-" && !eq) return 0
    if (p == "@" && !valid_name(v)) return 0
    apply(c, p, P[2], (n == 3 ? P[3] : ""), v, (eq > 0))
    return 1
}

# The one place that changes the in-memory config. op: "" set, + add, - delete, @ rename,
# | add_list, ~ del_list. Returns 1 if something changed.
function apply(c, op, s, o, v, hasv,    K, i, idx) {
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
        if (!((K, i, o) in OV)) return 0
        if (hasv && v != "" && substr(OV[K, i, o], 1, 1) == "L") {
            if (!match(v, /^[ \t]*[-+]?[0-9]+/)) return 0
            idx = substr(v, 1, RLENGTH) + 0
            return opt_del_item(K, i, o, idx)
        }
        opt_del(K, i, o); return 1
    }
    if (op == "@") {
        if (o == "") { delete SIDX[K, SN[K, i]]; SN[K, i] = v; SA[K, i] = 0; SIDX[K, v] = i; return 1 }
        if (!((K, i, o) in OV)) return 0
        OV[K, i, v] = OV[K, i, o]; delete OV[K, i, o]
        sub(" " o " ", " " v " ", OORD[K, i]); return 1
    }
    if (op == "|") { opt_add_list(K, i, o, v); return 1 }
    if (op == "~") {
        if (!((K, i, o) in OV) || substr(OV[K, i, o], 1, 1) != "L") return 0
        opt_del_list(K, i, o, v); return 1
    }
    return 0
}

# Stage one change: apply it, remember it for `changes` and for the save file. 1 if staged.
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

function file_exists(f,    r, line) {
    r = (getline line < f)
    close(f)
    return r >= 0
}

# ---------------------------------------------------------------- commands
# Run one command (X[1..n]); returns its exit status. 255: unknown command or wrong number of
# arguments (the caller prints the usage, or in a batch "Unknown command").
function dispatch(X, n,    cmd) {
    cmd = tolower(X[1])
    if (cmd == "show" || cmd == "changes" || cmd == "export" || cmd == "commit") return package_cmds(cmd, X, n)
    if (cmd == "del") cmd = "delete"
    if (cmd == "ren") cmd = "rename"
    if (cmd == "get" || cmd == "set" || cmd == "delete" || cmd == "add_list" || cmd == "del_list" ||
        cmd == "rename" || cmd == "revert") return section_cmd(cmd, X, n)
    if (cmd == "add") return cmd_add(X, n)
    if (cmd == "batch" && !INBATCH) return cmd_batch()
    if (cmd == "help") { usage(); return 0 }
    if (cmd == "import" || cmd == "reorder") {
        if (!QUIET) print "uci: " cmd " is not emulated (lab/images/openwrt/README.md)" | "cat 1>&2"
        return 1
    }
    return 255
}

# batch: one command per input line, at most 3 words; a failing line is reported and the next
# lines run; `exit` ends the input. The exit status is 0 whatever failed, as uci's.
function cmd_batch(    line, m, j, rc) {
    INBATCH = 1
    while ((getline line < "/dev/stdin") > 0) {
        BLINE++
        m = tokenize(line, 1)
        if (m < 0) { err_ctx("Parse error", "unterminated quote: values spanning lines are not emulated", BLINE, 1); continue }
        if (m == 0) continue
        if (m > 3) { errx("Too many arguments"); continue }
        if (tolower(TOK[1]) == "exit") break
        for (j = 1; j <= m; j++) B[j] = TOK[j]
        rc = dispatch(B, m)
        if (rc == 255) errx("Unknown command")
    }
    INBATCH = 0
    return 0
}

function list_dir(dir, out,    cmd, line, n) {
    n = 0
    cmd = "ls '" dir "' 2>/dev/null"
    while ((cmd | getline line) > 0) if (valid_config(line)) out[++n] = line
    close(cmd)
    return n
}

# show / changes / export / commit, of one config or (no argument) of every config in the conf
# dir: then errors are reported and the exit status is 0.
function package_cmds(cmd, X, n,    m, j) {
    if (n > 2) return 255
    if (n == 2) return package_cmd(cmd, X[2])
    m = list_dir(CONFDIR, CFGS)
    for (j = 1; j <= m; j++) package_cmd(cmd, CFGS[j])
    return 0
}

# A reference with a section or option names its config for changes, export and commit.
function package_cmd(cmd, ref) {
    if (lookup(ref)) return 1
    if (cmd == "changes") { show_changes(LC); return 0 }
    if (cmd == "export") { export_config(LC); return 0 }
    if (cmd == "commit") return NOCOMMIT ? 0 : commit_one(LC)
    if (!LCOMPLETE) return err("Entry not found")
    if (RN_ == 1) show_config(LC)
    else show_section(LC, LI, RO_, 0)
    return 0
}

# get set delete add_list del_list rename revert: one reference.
function section_cmd(cmd, X, n) {
    if (n != 2) return 255
    if (lookup(X[2])) return 1
    if (HASV && (cmd == "get" || cmd == "revert")) return 1     # silently, as uci
    if (cmd == "get") return cmd_get()
    if (cmd == "set") return cmd_set()
    if (cmd == "delete") return cmd_delete()
    if (cmd == "rename") return cmd_rename()
    if (cmd == "revert") return cmd_revert()
    return cmd_list(cmd)
}

# A value: "q" quoted as `show` prints it; "g" as `get` prints it (a list item holding a space,
# tab, CR or LF quoted).
function fmt_value(enc, how,    n, j, out) {
    if (substr(enc, 1, 1) == "S") return how == "q" ? quote(substr(enc, 2)) : substr(enc, 2)
    n = split(substr(enc, 2), IT, LSEP)
    out = ""
    for (j = 1; j <= n; j++) out = out (j > 1 ? " " : "") (how == "q" || IT[j] ~ /[ \t\r\n]/ ? quote(IT[j]) : IT[j])
    return out
}

function show_section(c, i, only, whole,    K, nm, L, j, o) {
    K = key(c); nm = c "." shown_name(K, i, whole)
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
    for (i = 1; i <= NS[K]; i++) if (!SD[K, i]) show_section(c, i, "", 1)
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

# get of a whole config prints nothing (exit status 0), as uci.
function cmd_get() {
    if (!LCOMPLETE) return err("Entry not found")
    if (RN_ == 3) print fmt_value(OV[key(LC), LI, RO_], "g")
    else if (RN_ == 2) print ST[key(LC), LI]
    return 0
}

# set: an option (its section must exist), or a section's type (a new named section when it does
# not exist). An empty value deletes what exists and is no change otherwise; the current value is
# no change either (nothing is staged).
function cmd_set(    K) {
    K = key(LC)
    if (!HASV || RN_ < 2 || (RN_ == 3 && !LI)) return err("Invalid argument")
    if (RN_ == 2 && RV_ != "" && !valid_type(RV_)) return err("Invalid argument")
    if (RV_ == "") {
        if (!LCOMPLETE) return 0
        stage(LC, "-", SN[K, LI], RO_, "", 0)
        return 0
    }
    if (RN_ == 3) {
        if (!((K, LI, RO_) in OV) || OV[K, LI, RO_] != "S" RV_) stage(LC, "", SN[K, LI], RO_, RV_, 1)
        return 0
    }
    if (LI) {
        if (ST[K, LI] != RV_) stage(LC, "", SN[K, LI], "", RV_, 1)
        return 0
    }
    if (REXT) return 0      # uci makes a section named "@type[N]" that its save file cannot hold
    stage(LC, "", RS_, "", RV_, 1)
    return 0
}

# delete config.section[.option]; =N with a list option deletes item N (from 0); a value that is
# not a number fails silently (exit status 1), as uci.
function cmd_delete(    K) {
    if (HASV && RV_ !~ /^[ \t]*([-+]?[0-9]|$)/) return 1
    if (!LCOMPLETE) return err("Entry not found")
    if (RN_ < 2) return err("Invalid argument")
    K = key(LC)
    if (RN_ == 3 && HASV && RV_ != "" && substr(OV[K, LI, RO_], 1, 1) == "L") {
        stage(LC, "-", SN[K, LI], RO_, RV_, 1)
        return 0
    }
    stage(LC, "-", SN[K, LI], RO_, "", 0)
    return 0
}

# rename config.section[.option]=name. A name that is not [A-Za-z0-9_]+ succeeds without effect:
# uci stages it, then drops it when it reads its save file.
function cmd_rename(    K) {
    if (!LCOMPLETE) return err("Entry not found")
    if (RN_ < 2 || !HASV) return err("Invalid argument")
    if (!valid_name(RV_)) return 0
    K = key(LC)
    stage(LC, "@", SN[K, LI], RO_, RV_, 1)
    return 0
}

# add_list / del_list config.section.option=value. del_list of a missing option or of a plain
# (non-list) option changes nothing; of a list it is staged even when no item matches.
function cmd_list(cmd,    K) {
    if (!HASV || RN_ < 2 || !LI) return err("Invalid argument")
    if (RN_ < 3) return err("Invalid argument")      # uci misbehaves without an option; not emulated
    K = key(LC)
    if (cmd == "add_list") { stage(LC, "|", SN[K, LI], RO_, RV_, 1); return 0 }
    if (!((K, LI, RO_) in OV) || substr(OV[K, LI, RO_], 1, 1) != "L") return 0
    stage(LC, "~", SN[K, LI], RO_, RV_, 1)
    return 0
}

# add config type: prints the new cfgXXXXXX name. Its exit status is uci's error code (3: no
# such config), as uci's.
function cmd_add(X, n,    c, t, K, h, nm, r) {
    if (n != 3) return 255
    c = X[2]; t = X[3]
    r = load(c)
    if (r < 0) return 5
    if (r == 0) { err("Entry not found"); return 3 }
    if (!valid_type(t)) { err("Invalid argument"); return 2 }
    K = key(c)
    h = hash(5381 % 65536, t)
    do { nm = sprintf("cfg%02x%04x", (NS[K] + 1) % 256, h); h = (h + 1) % 65536 } while ((K, nm) in SIDX)
    stage(c, "+", nm, "", t, 1)
    print nm
    return 0
}

# changes: the staged changes in order; a delete prints no value (not even a list item's index).
function show_changes(c,    j, line, p, eq, k, v, op) {
    for (j = 1; j <= ND[c]; j++) {
        line = DL[c, j]
        p = substr(line, 1, 1)
        if (p ~ /[-+@|~^]/) line = substr(line, 2); else p = ""
        eq = index(line, "=")
        if (p == "-") { print "-" (eq ? substr(line, 1, eq - 1) : line); continue }
        k = substr(line, 1, eq - 1); v = substr(line, eq + 1)
        op = (p == "|" ? "+=" : (p == "~" ? "-=" : "="))
        print k op v
    }
}

# commit: write the config with its changes, then empty the save file (uci truncates it and
# leaves it in place). Changes read from a -p delta dir are written too; that file stays.
function write_config(c,    f, tmp, K, i, L, j, o, enc, m, k, save) {
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
    if (system("mv -f '" tmp "' '" f "'") != 0) return err("I/O error")
    save = SAVEDIR "/" c
    if (NN[c] || file_exists(save)) {
        system("mkdir -p '" SAVEDIR "'")
        printf "" > save
        close(save)
    }
    forget(c)
    return 0
}

function commit_one(c) {
    if (ND[c] == 0) return 0
    return write_config(c)
}

# revert config[.section[.option]]: drop the matching staged changes from the save file, which is
# rewritten in place (an empty file stays), as uci does; no save file: nothing to do.
function cmd_revert(    c, s, o, f, j, line, rest, nk, prefix) {
    c = LC; s = (LI ? SN[key(c), LI] : RS_); o = RO_
    f = SAVEDIR "/" c
    if (!NN[c] && !file_exists(f)) return 0
    nk = 0
    prefix = c "." s (o != "" ? "." o : "")
    while ((getline line < f) > 0) {
        if (line == "") continue
        rest = (substr(line, 1, 1) ~ /[-+@|~^]/) ? substr(line, 2) : line
        if (RN_ < 2 || substr(rest, 1, length(prefix) + 1) == prefix "=" || substr(rest, 1, length(prefix) + 1) == prefix "." || rest == prefix) continue
        KEEP[++nk] = line
    }
    close(f)
    for (j = 1; j <= NN[c]; j++) {
        line = NEW[c, j]
        rest = substr(line, 1, 1) ~ /[-+@|~^]/ ? substr(line, 2) : line
        if (RN_ < 2 || substr(rest, 1, length(prefix) + 1) == prefix "=" || substr(rest, 1, length(prefix) + 1) == prefix "." || rest == prefix) continue
        KEEP[++nk] = line
    }
    system("mkdir -p '" SAVEDIR "'")
    printf "" > f
    for (j = 1; j <= nk; j++) print KEEP[j] > f
    close(f)
    forget(c)
    return 0
}
