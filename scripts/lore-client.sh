# lore-client.sh: record to lore from shell scripts, silently doing nothing without lore.
#
# Source it from any script (bash or zsh; works under `set -euo pipefail`):
#
#   . /path/to/lore-client.sh          # or copy this file into your project
#   lore_decision "Use rsync for deploys" "atomic, resumable" "scp,tar"
#   lore_failure NonZeroExit "deploy.sh: rsync exited 23" rsync deploy
#
# Every function returns 0, whatever happens: a missing lore, a broken data root
# or a refused write never stops the calling script. Functions print the new
# record's id on stdout when the write worked, nothing otherwise. Set
# LORE_CLIENT_DEBUG=1 to see lore's error messages on stderr, LORE_BIN to use a
# specific lore executable, LORE_CLIENT_TIMEOUT (seconds, default 10) to bound
# each call when `timeout` is available.

_lore_client_exec() {
    # lore "$@" with stdin closed and a time limit; its stderr is left alone.
    local bin="${LORE_BIN:-lore}"
    command -v "$bin" >/dev/null 2>&1 || return 0
    local limit="${LORE_CLIENT_TIMEOUT:-10}"
    local -a runner=()
    if command -v timeout >/dev/null 2>&1; then
        runner=(timeout "$limit")
    fi
    # lore reads a text of "-" as "the text is on stdin": a text (after `--`) that is
    # exactly "-" is therefore also sent on stdin, so it is recorded as written.
    local dash=0 after=0 arg
    for arg in "$@"; do
        if [ "$after" = 1 ] && [ "$arg" = "-" ]; then dash=1; fi
        if [ "$arg" = "--" ]; then after=1; fi
    done
    # ${runner[@]+...}: an empty array is "unbound" to bash < 4.4 under `set -u`.
    if [ "$dash" = 1 ]; then
        printf '%s' - | ${runner[@]+"${runner[@]}"} "$bin" "$@" || true
    else
        ${runner[@]+"${runner[@]}"} "$bin" "$@" </dev/null || true
    fi
    return 0
}

_lore_client_run() {
    if [ -n "${LORE_CLIENT_DEBUG:-}" ]; then
        _lore_client_exec "$@"
    else
        _lore_client_exec "$@" 2>/dev/null
    fi
    return 0
}

# lore_available: succeeds (0) when lore is installed, fails (1) otherwise.
lore_available() {
    command -v "${LORE_BIN:-lore}" >/dev/null 2>&1
}

# Texts go after `--`, so one starting with "-" ("-1 returned") is not read as an option.

# lore_decision TEXT [RATIONALE] [ALTERNATIVES (comma-separated)] [TAGS]
lore_decision() {
    [ $# -ge 1 ] || return 0
    local -a args=(remember -q)
    [ -n "${2:-}" ] && args+=(--rationale "$2")
    [ -n "${3:-}" ] && args+=(--alternatives "$3")
    [ -n "${4:-}" ] && args+=(--tags "$4")
    _lore_client_run "${args[@]}" -- "$1"
}

# lore_pattern NAME [SOLUTION] [CONTEXT] [TAGS]
lore_pattern() {
    [ $# -ge 1 ] || return 0
    local -a args=(learn -q)
    [ -n "${2:-}" ] && args+=(--solution "$2")
    [ -n "${3:-}" ] && args+=(--context "$3")
    [ -n "${4:-}" ] && args+=(--tags "$4")
    _lore_client_run "${args[@]}" -- "$1"
}

# lore_failure ERROR_TYPE MESSAGE [TOOL] [STEP] [TAGS]
lore_failure() {
    [ $# -ge 2 ] || return 0
    local -a args=(fail -q)
    [ -n "${3:-}" ] && args+=(--tool "$3")
    [ -n "${4:-}" ] && args+=(--step "$4")
    [ -n "${5:-}" ] && args+=(--tags "$5")
    _lore_client_run "${args[@]}" -- "$1" "$2"
}

# lore_observe TEXT [TAGS]
lore_observe() {
    [ $# -ge 1 ] || return 0
    local -a args=(observe -q)
    [ -n "${2:-}" ] && args+=(--tags "$2")
    _lore_client_run "${args[@]}" -- "$1"
}

# lore_handoff [--merge] MESSAGE [NEXT_STEP ...]: prints the handed-off session's id.
# The NEXT_STEPs replace the open items the last handoff left (lore says so on stderr,
# "lore: open items: ..."; that line is always passed through); --merge keeps those and
# adds these.
lore_handoff() {
    local -a args=(handoff -q)
    if [ "${1:-}" = "--merge" ]; then
        args+=(--merge)
        shift
    fi
    [ $# -ge 1 ] || return 0
    local message="$1"
    shift
    local step
    for step in "$@"; do
        args+=(--next "$step")
    done
    # stdout (the id) goes straight through; stderr is read, and lore's note on the open
    # items passed on (everything, with LORE_CLIENT_DEBUG).
    local said line
    { said=$(_lore_client_exec "${args[@]}" -- "$message" 2>&1 1>&3 3>&-) || true; } 3>&1
    while IFS= read -r line; do
        case "$line" in
            "lore: open items:"*) printf '%s\n' "$line" >&2 ;;
            *) if [ -n "${LORE_CLIENT_DEBUG:-}" ] && [ -n "$line" ]; then printf '%s\n' "$line" >&2; fi ;;
        esac
    done <<<"$said"
    return 0
}

# lore_resume [BUDGET_TOKENS]: prints the resume text (nothing without lore).
lore_resume() {
    local -a args=(resume)
    [ -n "${1:-}" ] && args+=(--budget "$1")
    _lore_client_run "${args[@]}"
}
