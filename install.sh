#!/usr/bin/env bash
# install.sh: install lore from this checkout into <checkout>/.venv, link `lore` into a bin
# directory on PATH and create the data root. Safe to run again; see ./install.sh --help.
# Messages go to stderr; stdout stays empty (except --help) so callers can script around it.

# Checked before anything bash-specific so `sh install.sh` fails with a clear message.
if [ -z "${BASH_VERSION:-}" ]; then
    echo "install.sh: run it with bash: bash install.sh (or ./install.sh)" >&2
    exit 2
fi
set -euo pipefail

PROG=install.sh
CHECKOUT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
VENV=$CHECKOUT/.venv
TARGET=$VENV/bin/lore
# Records what was installed, so a re-run with nothing changed skips pip entirely.
STAMP=$VENV/.lore-install-stamp
PYTHON=${PYTHON:-python3}

QUIET=0
FORCE=0
UNINSTALL=0
EXTRAS=""

usage() {
    cat <<'EOF'
Usage: ./install.sh [--mcp] [--test | --dev] [--quiet] [--force]
       ./install.sh --uninstall

Install lore from this checkout: create (or reuse) <checkout>/.venv, install lore
into it in editable mode, link `lore` into a bin directory on your PATH and create
the data root with `lore init` (existing data is never changed). Safe to run again:
a re-run with nothing changed skips pip and leaves one venv and one link.

Options:
  --mcp         also install the MCP SDK (the [mcp] extra), which `lore mcp` needs
  --test        also install the test tools (the [test] extra: pytest, pytest-xdist,
                hypothesis, the MCP SDK, and the linters CI runs: ruff, lint-imports, mypy)
  --dev         also install the development tools (the [dev] extra: today the test tools)
  -q, --quiet   print only warnings and errors
  --force       replace a `lore` in the bin directory that install.sh did not create, or
                one that links to another checkout's venv (without it that link is
                left alone and install.sh prints the PATH line that selects this one)
  --uninstall   remove the `lore` link (if it points into this checkout's venv) and the
                venv; data is never removed (a data root still inside this checkout must
                be moved first: lore paths --move-to ~/.local/share/lore)
  -h, --help    show this help and exit

Environment:
  PYTHON         interpreter for the venv (default: python3; needs Python 3.10 or newer)
  LORE_BIN_DIR   directory for the `lore` link (default: ~/.local/bin if it is on PATH,
                 else the first writable of /usr/local/bin, ~/bin that is on PATH,
                 else ~/.local/bin, and install.sh prints the line to add to your profile)
  LORE_DATA_DIR  data root to create (default: $XDG_DATA_HOME/lore, i.e. ~/.local/share/lore;
                 never inside this checkout unless you name it here)

Exit status: 0 installed (or uninstalled), 1 error, 2 usage error.
EOF
}

info() {
    if [ "$QUIET" != 1 ]; then printf '%s: %s\n' "$PROG" "$*" >&2; fi
}

warn() {
    printf '%s: warning: %s\n' "$PROG" "$*" >&2
}

# die MESSAGE [EXIT_CODE]: MESSAGE may span several lines (hints).
die() {
    printf '%s: error: %s\n' "$PROG" "$1" >&2
    exit "${2:-1}"
}

add_extra() {
    case ",$EXTRAS," in
        *",$1,"*) ;;
        ",,") EXTRAS=$1 ;;
        *) EXTRAS=$EXTRAS,$1 ;;
    esac
}

parse_args() {
    while [ $# -gt 0 ]; do
        case $1 in
            --mcp) add_extra mcp ;;
            --test) add_extra test ;;
            --dev) add_extra dev ;;
            -q | --quiet) QUIET=1 ;;
            --force) FORCE=1 ;;
            --uninstall) UNINSTALL=1 ;;
            -h | --help)
                usage
                exit 0
                ;;
            *) die "unknown option: $1 (see ./install.sh --help)" 2 ;;
        esac
        shift
    done
    if [ "$UNINSTALL" = 1 ] && [ -n "$EXTRAS" ]; then
        die "--uninstall takes no --mcp/--test/--dev" 2
    fi
    if [ -z "${HOME:-}" ]; then
        die "HOME is not set"
    fi
}

# ---------------------------------------------------------------- checks

check_checkout() {
    if ! grep -qs '^name = "lore-memory"' "$CHECKOUT/pyproject.toml"; then
        die "$CHECKOUT does not look like a lore checkout (no pyproject.toml for lore-memory next to install.sh)"
    fi
}

check_python() {
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
        die "$PYTHON not found: install Python 3.10 or newer, or set PYTHON=/path/to/python3"
    fi
    local version major minor rest
    version=$("$PYTHON" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null) ||
        die "$PYTHON does not run; set PYTHON=/path/to/python3 (3.10 or newer)"
    if ! [[ $version =~ ^[0-9]+\.[0-9]+ ]]; then
        die "cannot tell the version of $PYTHON (it printed: $version)"
    fi
    major=${version%%.*}
    rest=${version#*.}
    minor=${rest%%.*}
    if [ "$major" -lt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -lt 10 ]; }; then
        die "lore needs Python 3.10 or newer, but $PYTHON is Python $version.
  Install a newer Python and rerun with PYTHON=/path/to/python3.10 (or newer) ./install.sh"
    fi
    PY_VERSION=$version
}

venv_hint() {
    local mm=${PY_VERSION%.*}
    printf '%s' "$1
  On Debian/Ubuntu install the venv module first: sudo apt install python3-venv (or python$mm-venv)
  then rerun ./install.sh"
}

# ---------------------------------------------------------------- bin dir and link

# on_path DIR: is DIR one of the entries of $PATH (ignoring a trailing slash, expanding ~)?
on_path() {
    local want=${1%/} entry
    local -a entries=()
    IFS=: read -r -a entries <<<"${PATH:-}"
    for entry in ${entries[@]+"${entries[@]}"}; do
        entry=${entry/#\~/$HOME}
        if [ "${entry%/}" = "$want" ]; then return 0; fi
    done
    return 1
}

choose_bin_dir() {
    BIN_DIR=""
    if [ -n "${LORE_BIN_DIR:-}" ]; then
        BIN_DIR=$LORE_BIN_DIR
        case $BIN_DIR in /*) ;; *) BIN_DIR=$PWD/$BIN_DIR ;; esac
    elif on_path "$HOME/.local/bin"; then
        BIN_DIR=$HOME/.local/bin
    else
        local dir
        for dir in /usr/local/bin "$HOME/bin"; do
            if on_path "$dir" && [ -d "$dir" ] && [ -w "$dir" ]; then
                BIN_DIR=$dir
                break
            fi
        done
        if [ -z "$BIN_DIR" ]; then BIN_DIR=$HOME/.local/bin; fi
    fi
    BIN_DIR=${BIN_DIR%/}
    LINK=$BIN_DIR/lore
}

# link_target LINK: where the symlink LINK points, made absolute.
link_target() {
    local dest
    dest=$(readlink -- "$1")
    case $dest in
        /*) printf '%s\n' "$dest" ;;
        *) printf '%s\n' "$(dirname -- "$1")/$dest" ;;
    esac
}

# is_lore_venv_link LINK: LINK points to bin/lore of a venv made by install.sh (or holding
# lore-memory), possibly of another checkout or one since deleted.
is_lore_venv_link() {
    local dest venv
    dest=$(link_target "$1")
    case $dest in */.venv/bin/lore) return 0 ;; */bin/lore) ;; *) return 1 ;; esac
    venv=${dest%/bin/lore}
    compgen -G "$venv/lib/python3*/site-packages/lore_memory-*.dist-info" >/dev/null
}

# Classify what sits at $LINK now and fail early (before any slow step) if it is not ours.
check_link() {
    LINK_STATE=absent
    if [ -L "$LINK" ]; then
        if [ "$(link_target "$LINK")" = "$TARGET" ]; then
            LINK_STATE=ours
        elif is_lore_venv_link "$LINK"; then
            # Another checkout's lore: repoint it only with --force, or when that
            # checkout's venv is gone (a dangling link serves nobody).
            if [ -x "$(link_target "$LINK")" ] && [ "$FORCE" != 1 ]; then
                LINK_STATE=other-checkout
            else
                LINK_STATE=other-lore
            fi
        else
            LINK_STATE=foreign
        fi
    elif [ -d "$LINK" ]; then
        die "$LINK is a directory; remove it or set LORE_BIN_DIR to another directory"
    elif [ -e "$LINK" ]; then
        LINK_STATE=foreign
    fi
    if [ "$LINK_STATE" = foreign ] && [ "$FORCE" != 1 ]; then
        local what="a file"
        if [ -L "$LINK" ]; then what="a link to $(link_target "$LINK")"; fi
        die "$LINK already exists and was not installed by install.sh (it is $what).
  Remove it, set LORE_BIN_DIR to another directory, or rerun with --force to replace it."
    fi
    if [ -e "$BIN_DIR" ] && [ ! -d "$BIN_DIR" ]; then
        die "$BIN_DIR is not a directory; set LORE_BIN_DIR to another directory"
    fi
    mkdir -p -- "$BIN_DIR" 2>/dev/null || die "cannot create $BIN_DIR; set LORE_BIN_DIR to a writable directory"
    if [ ! -w "$BIN_DIR" ]; then
        die "$BIN_DIR is not writable; set LORE_BIN_DIR to a writable directory (e.g. LORE_BIN_DIR=\$HOME/.local/bin)"
    fi
}

make_link() {
    case $LINK_STATE in
        ours)
            info "$LINK already points to $TARGET"
            return
            ;;
        other-checkout)
            # Never take over another checkout's working command behind its back: this
            # install is complete, and the user decides which lore comes first on PATH.
            warn "$LINK belongs to another checkout ($(link_target "$LINK")): left as it is (--force repoints it)."
            warn "To use this checkout's lore, add this line to your shell profile, then open a new shell:"
            # shellcheck disable=SC2016 # the literal $PATH is the point
            printf '    export PATH="%s:$PATH"\n' "$VENV/bin" >&2
            LINK=$TARGET
            return
            ;;
        # A warning, not info: it may be another checkout's install that --quiet would hide.
        other-lore) warn "replacing $LINK (it linked to another lore venv: $(link_target "$LINK"))" ;;
        foreign) warn "--force: replacing $LINK" ;;
    esac
    # -n: never follow an existing link to a directory; -f: replace in place.
    ln -sfn -- "$TARGET" "$LINK"
    info "linked $LINK -> $TARGET"
}

# ---------------------------------------------------------------- venv and pip

venv_works() {
    [ -x "$VENV/bin/python" ] || return 1
    "$VENV/bin/python" -I -c 'import sys, pip; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
        >/dev/null 2>&1 || return 1
    # A venv made for another path (a moved or copied checkout) has scripts whose
    # shebangs point at the old place: treat it as broken.
    local made_for
    made_for=$(stamp_field checkout)
    [ -z "$made_for" ] || [ "$made_for" = "$CHECKOUT" ]
}

ensure_venv() {
    if [ -e "$VENV" ] || [ -L "$VENV" ]; then
        if venv_works; then
            info "reusing venv $VENV"
            return
        fi
        if [ ! -f "$VENV/pyvenv.cfg" ]; then
            die "$VENV exists but is not a virtual environment; move it away and rerun"
        fi
        warn "$VENV is broken (its Python does not run, lacks pip, or was made elsewhere): recreating it"
        rm -rf -- "$VENV"
    fi
    info "creating venv $VENV with $PYTHON (Python $PY_VERSION)"
    if ! "$PYTHON" -c 'import venv' >/dev/null 2>&1; then
        die "$(venv_hint "the Python venv module is missing from $PYTHON.")"
    fi
    if ! "$PYTHON" -m venv -- "$VENV" >&2; then
        rm -rf -- "$VENV"
        die "$(venv_hint "could not create the venv with $PYTHON -m venv.")"
    fi
    if ! venv_works; then
        rm -rf -- "$VENV"
        die "$(venv_hint "the new venv has no working pip (ensurepip is missing from $PYTHON).")"
    fi
}

# stamp_field NAME: the value of NAME= in the stamp file, empty if absent.
stamp_field() {
    local line
    [ -f "$STAMP" ] || return 0
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in "$1="*) printf '%s\n' "${line#*=}" && return 0 ;; esac
    done <"$STAMP"
}

# What the installed metadata depends on: pyproject.toml and the version in lore/__init__.py.
install_key() {
    "$PYTHON" -c '
import hashlib, pathlib, sys
top = pathlib.Path(sys.argv[1])
digest = hashlib.sha256((top / "pyproject.toml").read_bytes())
for line in (top / "lore" / "__init__.py").read_text(encoding="utf-8").splitlines():
    if line.startswith("__version__"):
        digest.update(line.encode("utf-8"))
print(digest.hexdigest())
' "$CHECKOUT"
}

installed_here() {
    [ -x "$TARGET" ] || return 1
    local where
    where=$(cd / && "$VENV/bin/python" -I -c 'import os, lore; print(os.path.dirname(lore.__file__))' 2>/dev/null) ||
        return 1
    [ "$where" = "$CHECKOUT/lore" ]
}

ensure_installed() {
    local key old_extras extra
    key=$(install_key)
    old_extras=$(stamp_field extras)
    if [ "$(stamp_field key)" = "$key" ] && [ "$(stamp_field checkout)" = "$CHECKOUT" ] && installed_here; then
        local missing=0
        for extra in ${EXTRAS//,/ }; do
            case ",$old_extras," in *",$extra,"*) ;; *) missing=1 ;; esac
        done
        if [ "$missing" = 0 ]; then
            info "lore is already installed from $CHECKOUT${old_extras:+ (with [$old_extras])}: skipping pip"
            return
        fi
    fi
    # Keep the extras an earlier run installed, so a plain re-run after pyproject.toml
    # changed does not leave the dev tools' dependencies stale.
    for extra in ${old_extras//,/ }; do add_extra "$extra"; done

    local -a pip=("$VENV/bin/python" -m pip --disable-pip-version-check --no-input)
    local -a quiet=()
    if [ "$QUIET" = 1 ]; then quiet=(-q); fi
    # Editable installs of a pyproject-only project need pip >= 21.3 (PEP 660);
    # upgrade only then, as it costs a download on every fresh venv.
    if ! "$VENV/bin/python" -I -c 'import pip, re, sys
v = tuple(int(x) for x in re.findall(r"\d+", pip.__version__)[:2])
sys.exit(0 if v >= (21, 3) else 1)' 2>/dev/null; then
        info "upgrading pip (editable installs need pip 21.3 or newer)"
        "${pip[@]}" install ${quiet[@]+"${quiet[@]}"} --upgrade pip >&2 || die "could not upgrade pip"
    fi
    local spec=$CHECKOUT
    if [ -n "$EXTRAS" ]; then spec="${CHECKOUT}[$EXTRAS]"; fi
    info "installing lore from $CHECKOUT${EXTRAS:+ with [$EXTRAS]} (pip install -e)"
    rm -f -- "$STAMP"
    "${pip[@]}" install ${quiet[@]+"${quiet[@]}"} -e "$spec" >&2 ||
        die "pip install -e $spec failed (see pip's messages above)"
    installed_here || die "lore was installed but $VENV/bin/python does not import it from $CHECKOUT"
    printf 'checkout=%s\nkey=%s\nextras=%s\n' "$CHECKOUT" "$key" "$EXTRAS" >"$STAMP.tmp"
    mv -f -- "$STAMP.tmp" "$STAMP"
}

# ---------------------------------------------------------------- data root and PATH

init_data() {
    if [ "$QUIET" = 1 ]; then
        "$TARGET" init >/dev/null || die "lore init failed (see above); no data was removed"
    else
        "$TARGET" init >&2 || die "lore init failed (see above); no data was removed"
        info "data root (lore paths):"
        "$TARGET" paths >&2 || die "lore paths failed"
    fi
}

path_hint() {
    if [ "$LINK_STATE" = other-checkout ]; then return; fi
    if ! on_path "$BIN_DIR"; then
        local shown=$BIN_DIR profile
        case $BIN_DIR in "$HOME"/*) shown="\$HOME/${BIN_DIR#"$HOME"/}" ;; esac
        # Printed for the user to read, so the tilde stays literal.
        # shellcheck disable=SC2088
        case ${SHELL:-} in
            */bash) profile="~/.bashrc" ;;
            */zsh) profile="~/.zshrc" ;;
            *) profile="~/.profile" ;;
        esac
        warn "$BIN_DIR is not on your PATH. Add this line to $profile, then open a new shell:"
        # shellcheck disable=SC2016 # the literal $PATH is the point
        printf '    export PATH="%s:$PATH"\n' "$shown" >&2
        return
    fi
    local found
    found=$(type -P lore 2>/dev/null || true)
    if [ -n "$found" ] && [ "$found" != "$LINK" ]; then
        warn "another lore comes first on your PATH: $found (this install is $LINK)"
    fi
}

# ---------------------------------------------------------------- uninstall

uninstall() {
    local dir removed=0 root="" source=""
    if [ -x "$TARGET" ]; then
        root=$("$TARGET" paths --json 2>/dev/null |
            "$VENV/bin/python" -I -c 'import json, sys; d = json.load(sys.stdin); print(d["source"], d["root"])' 2>/dev/null) ||
            root=""
        source=${root%% *}
        root=${root#* }
    fi
    if [ "$source" = checkout ]; then
        # Removing the venv removes the lore that can move the data: stop first rather
        # than leave the only copy inside a checkout that may be deleted next.
        die "the data root $root is inside this checkout, which git ignores (deleting or cleaning the checkout erases it).
  Move it first: $TARGET paths --move-to ~/.local/share/lore
  then run ./install.sh --uninstall again. Nothing was removed."
    fi
    local -a dirs=()
    if [ -n "${LORE_BIN_DIR:-}" ]; then dirs+=("${LORE_BIN_DIR%/}"); fi
    dirs+=("$HOME/.local/bin" "$HOME/bin" /usr/local/bin)
    for dir in "${dirs[@]}"; do
        if [ -L "$dir/lore" ] && [ "$(link_target "$dir/lore")" = "$TARGET" ]; then
            rm -f -- "$dir/lore"
            info "removed $dir/lore"
            removed=1
        fi
    done
    if [ "$removed" = 0 ]; then info "no lore link into $VENV found"; fi
    if [ -e "$VENV" ]; then
        if [ ! -f "$VENV/pyvenv.cfg" ]; then
            die "$VENV is not a virtual environment; left alone"
        fi
        rm -rf -- "$VENV"
        info "removed $VENV"
    else
        info "no venv at $VENV"
    fi
    info "data was not touched${root:+: it stays in $root}"
}

# ---------------------------------------------------------------- main

main() {
    parse_args "$@"
    if [ "$UNINSTALL" = 1 ]; then
        uninstall
        return
    fi
    check_checkout
    check_python
    choose_bin_dir
    check_link
    ensure_venv
    ensure_installed
    make_link
    init_data
    path_hint
    info "done in ${SECONDS}s: $("$TARGET" --version) at $LINK"
}

main "$@"
