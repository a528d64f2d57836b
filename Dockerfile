# Dockerfile: mcpsim as a container image: a simulated device on TCP, HTTP and WebSocket for client
# developers.
#   docker build -t mcpsim .
#   docker run --rm -p 127.0.0.1:7000:7000 mcpsim                     # esp32-demo on TCP 7000
#   docker run --rm -p 127.0.0.1:7002:7002 -p 127.0.0.1:7003:7003 mcpsim  # MCP at /mcp: HTTP, WS
#   docker run --rm -p 127.0.0.1:7000:7000 mcpsim --board greenhouse  # another built-in board
#   docker run --rm -p 127.0.0.1:7000:7000 -v "$PWD/my.json:/board.json:ro" mcpsim --board /board.json
#   docker run --rm -p 127.0.0.1:7000:7000 -p 127.0.0.1:7001:7001 \
#       mcpsim --board esp32-demo --control 0.0.0.0:7001              # opt in to the control channel
# Everything about it (ports, the control channel's exposure, health, sizes): docs/docker.md.

# ---------------------------------------------------------------- build: Debian 12 with the -dev packages
FROM debian:bookworm AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# check and libcurl: the configure step requires them for the tests, although only the mcpsim
# target is built. libmicrohttpd/libwebsockets/libmosquitto: the HTTP, WebSocket and MQTT
# transports.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        cmake make gcc libc6-dev pkg-config check libcurl4-openssl-dev \
        libjansson-dev libuv1-dev libmicrohttpd-dev libwebsockets-dev libmosquitto-dev \
 && rm -rf /var/lib/apt/lists/*

# RelWithDebInfo (-O2 -g, then stripped) is the optimised build the tests cover; Release (-O3)
# currently trips gcc 12's -Wformat-truncation (with -Werror) in sim/cfg.c.
ARG BUILD_TYPE=RelWithDebInfo
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
 && cmake --build /build --target mcpsim -j"$(nproc)" \
 && strip /build/bin/mcpsim

# The Debian packages that hold the shared libraries mcpsim links directly (ELF NEEDED; apt adds
# their own dependencies): what the runtime stage installs, so a transport that starts linking a
# new library needs no change here. dpkg knows each file under one of its merged-/usr names: try
# the path ldd prints, its real path, and that path without /usr. libwebsockets loads its libuv
# event loop as a plugin (dlopen, invisible to ldd): libwebsockets-evlib-uv comes with it.
RUN objdump -p /build/bin/mcpsim | awk '$1 == "NEEDED" { print $2 }' | while read -r soname; do \
        lib=$(ldd /build/bin/mcpsim | awk -v so="$soname" '$1 == so { print $3 }'); \
        real=$(readlink -f "$lib"); \
        dpkg-query -S "$lib" 2>/dev/null || dpkg-query -S "$real" 2>/dev/null \
            || dpkg-query -S "${real#/usr}" 2>/dev/null \
            || { echo "no Debian package holds $soname ($lib)" >&2; exit 1; }; \
    done | cut -d: -f1 | sort -u | grep -vx libc6 >/build/runtime-packages \
 && if grep -qx 'libwebsockets[0-9]*' /build/runtime-packages; then \
        echo libwebsockets-evlib-uv >>/build/runtime-packages; fi \
 && echo "runtime packages: $(tr '\n' ' ' </build/runtime-packages)"

# ---------------------------------------------------------------- runtime: bookworm-slim + runtime libraries
FROM debian:bookworm-slim

# Only the packages of the libraries mcpsim links (found in the build stage: libjansson4, libuv1,
# libmicrohttpd12, libwebsockets17 and its libuv plugin libwebsockets-evlib-uv), checked with ldd
# below. EXTRA_RUNTIME_PACKAGES adds others, should a new dlopen'ed plugin appear.
ARG EXTRA_RUNTIME_PACKAGES=""
COPY --from=build /build/runtime-packages /usr/share/mcpsim/runtime-packages
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        $(cat /usr/share/mcpsim/runtime-packages) $EXTRA_RUNTIME_PACKAGES \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
 && groupadd --system --gid 10001 mcpsim \
 && useradd --system --uid 10001 --gid mcpsim --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin mcpsim

COPY --from=build /build/bin/mcpsim /usr/local/bin/mcpsim
COPY --from=build /src/sim/boards/ /usr/share/mcpsim/boards/
COPY tools/docker-healthcheck /usr/local/bin/mcpsim-healthcheck
RUN if ldd /usr/local/bin/mcpsim | grep 'not found'; then \
        echo "mcpsim needs a library that no runtime package provides" >&2; exit 1; fi \
 && /usr/local/bin/mcpsim --version

# Board names are looked up here first; mount more boards and prepend their directory
# (-e MCPSIM_BOARDS=/boards:/usr/share/mcpsim/boards), or give a file: --board /board.json.
ENV MCPSIM_BOARDS=/usr/share/mcpsim/boards

USER mcpsim:mcpsim
WORKDIR /tmp

# 7000: the device, MCP/U newline-delimited JSON-RPC over TCP.
# 7001: the control channel (sim.*): NOT exposed and NOT listening unless asked for with
#       --control 0.0.0.0:7001; publish it on the host's loopback only (-p 127.0.0.1:7001:7001).
# 7002: MCP over Streamable HTTP at http://HOST:7002/mcp.
# 7003: MCP over WebSocket at ws://HOST:7003/mcp.
EXPOSE 7000 7002 7003

# The device asks itself: get_info over TCP must answer with a result (bash /dev/tcp, no extra
# packages). It reads the --tcp port from mcpsim's own command line (7000 unless overridden).
HEALTHCHECK --interval=15s --timeout=5s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/mcpsim-healthcheck"]

# Listening on all interfaces is right inside the container: which host interface reaches it is
# decided by `docker run -p` (publish to 127.0.0.1 unless others should reach the device).
# No --allow-host here, on purpose: HTTP and WebSocket check the Host header (DNS rebinding) and a
# browser's Origin, and the defaults accept localhost, 127.0.0.1 and [::1] with any port, which is
# what a client of a port published on the host's loopback sends (-p 127.0.0.1:HOSTPORT:7002).
# mcpsim therefore logs, at start, a warning that remote clients would be refused: that is the
# secure default. To let a LAN name in, add --allow-host mybox.lan (and --allow-origin for a
# browser app, --auth-token or -e MCPSIM_AUTH_TOKEN when others can reach it) after the image name.
# Arguments after the image name replace CMD, so `docker run IMAGE --board uno` picks the board;
# a later --tcp, --http or --ws on the command line wins over the one here.
ENTRYPOINT ["/usr/local/bin/mcpsim", "--tcp", "0.0.0.0:7000", "--http", "0.0.0.0:7002", "--ws", "0.0.0.0:7003"]
CMD ["--board", "esp32-demo"]
