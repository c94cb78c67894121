#!/usr/bin/env bash
# make install-test: specwatch installed for real, as root, on loopback only.
#  - the container image, built by podman (Debian's package, runc) on a Debian base made here with
#    debootstrap (no registry is needed), run read-only, without capabilities, as uid 10001;
#  - the Debian package (make deb) installed with apt-get inside a Debian booted by systemd in
#    systemd-nspawn, its unit started, reloaded, restarted, killed, watched and stopped by systemd.
# Prometheus (Debian's package) runs on a loopback port; a "stalled" datasource is socat accepting
# connections and never answering. Every figure it measures goes to target/install-test/figures.txt
# (docs/OPERATIONS.md quotes them). The debootstrapped roots are cached in $CACHE between runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

CACHE=${SPECWATCH_INSTALL_CACHE:-/var/cache/specwatch-install-test}
MIRROR=${SPECWATCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
IMAGE=localhost/specwatch:install-test
BASE=localhost/specwatch-base:bookworm
OUT=target/install-test
passed=0
failed=0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-test: needs root (podman, debootstrap, systemd-nspawn)" >&2
  exit 1
fi

# --- what it needs, from Debian ---
need=()
for pair in podman:podman buildah:buildah runc:runc debootstrap:debootstrap \
  systemd-nspawn:systemd-container newuidmap:uidmap socat:socat dpkg-deb:dpkg; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "install-test: installing ${need[*]}" >&2
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

mkdir -p "$CACHE/debs" "$OUT"
WORK=$(mktemp -d /tmp/specwatch-install.XXXXXX)
: > "$OUT/figures.txt"
pids=()
containers=()
cleanup() {
  trap - ERR
  set +e
  for c in "${containers[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1; done
  podman volume rm -f specwatch-it-state >/dev/null 2>&1
  if [ -n "${NSPAWN_PID:-}" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
    kill "$NSPAWN_PID" 2>/dev/null
    for _ in $(seq 1 30); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 1; done
    kill -9 "$NSPAWN_PID" 2>/dev/null
  fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  if [ "$failed" -gt 0 ] && [ -f "$WORK/podman.log" ]; then cp "$WORK/podman.log" "$OUT/"; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
# A command that stops the script (set -e) says which: one CI run ended here with no line at all.
set -o errtrace
trap 'echo "install-test: stopped at line $LINENO (exit $?): $BASH_COMMAND" >&2' ERR

check() { # check NAME COMMAND...: one line per check, counted
  local name=$1
  shift
  if "$@"; then
    echo "ok: $name"
    passed=$((passed + 1))
  else
    echo "FAILED: $name"
    failed=$((failed + 1))
  fi
}
figure() { echo "$1	$2" | tee -a "$OUT/figures.txt"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
free_port() {
  local p
  while :; do
    p=$(shuf -i 20000-59999 -n 1)
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
wait_http() { # wait_http URL SECONDS: until it answers 2xx
  local deadline=$(($(date +%s) + $2))
  until curl -fsS -o /dev/null "$1" 2>/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# --- Debian roots, made once per machine ---
make_root() { # make_root NAME PACKAGES
  local dir=$CACHE/$1
  if [ -f "$dir.complete" ]; then return 0; fi
  rm -rf "$dir" "$dir.tmp"
  echo "install-test: debootstrap $1 (cached in $CACHE)" >&2
  debootstrap --variant=minbase --cache-dir="$CACHE/debs" --include="$2" bookworm "$dir.tmp" \
    "$MIRROR" >"$CACHE/$1.log" 2>&1 || { tail -20 "$CACHE/$1.log" >&2; return 1; }
  rm -rf "$dir.tmp"/var/cache/apt/archives/*.deb "$dir.tmp"/var/lib/apt/lists/*
  mv "$dir.tmp" "$dir"
  touch "$dir.complete"
}
make_root image-root openjdk-17-jre-headless,curl,ca-certificates
make_root nspawn-root systemd,systemd-sysv,dbus,openjdk-17-jre-headless,curl,ca-certificates

# podman without systemd as PID 1, under this VM's limits (root lacks CAP_SYS_RESOURCE here).
cat >"$WORK/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_CONF=$WORK/containers.conf
# Without systemd as PID 1, podman says on every run, stop and rm that it cannot make the
# healthcheck's timer (the HEALTHCHECK itself is run here with podman healthcheck run): kept apart.
podman() { command podman "$@" 2>>"$WORK/podman.log"; }

# --- Prometheus on loopback, and a datasource that accepts and never answers ---
PROM=$(free_port)
cat >"$WORK/prometheus.yml" <<EOF
global: {scrape_interval: 5s}
scrape_configs:
  - job_name: prometheus
    static_configs: [{targets: ['127.0.0.1:$PROM']}]
EOF
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prom" \
  --web.listen-address="127.0.0.1:$PROM" >"$WORK/prometheus.log" 2>&1 &
pids+=($!)
STALL=$(free_port)
socat "TCP-LISTEN:$STALL,bind=127.0.0.1,fork,reuseaddr" SYSTEM:'sleep 600' &
pids+=($!)
wait_http "http://127.0.0.1:$PROM/-/ready" 60

# --- the artifacts ---
[ -f target/specwatch.jar ] || make -s jar
ls target/specwatch_*_all.deb >/dev/null 2>&1 || make -s deb
DEB=$(ls -t target/specwatch_*_all.deb | head -n 1)

if ! podman image exists "$BASE"; then
  tar -C "$CACHE/image-root" -c . | podman import -q - "$BASE" >/dev/null
fi
echo "install-test: podman build" >&2
podman build -q --format docker -f deploy/docker/Dockerfile --target prebuilt \
  --build-arg RUNTIME_IMAGE="$BASE" --build-arg BUILD_IMAGE="$BASE" -t "$IMAGE" . >/dev/null
figure "image size (MB, on a debootstrapped bookworm with openjdk-17-jre-headless)" \
  "$(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{ printf "%.0f", $1 / 1e6 }')"

# === the container image ===
check "the image keeps its HEALTHCHECK (--format docker)" \
  bash -c "podman image inspect --format '{{json .Config.Healthcheck}}' $IMAGE | grep -q healthz"
check "the image runs as 10001:10001" \
  test "$(podman image inspect --format '{{.Config.User}}' "$IMAGE")" = "10001:10001"

run_container() { # run_container NAME PORT PROMETHEUS_URL
  podman run -d --name "$1" --network host --read-only --cap-drop=all \
    --security-opt no-new-privileges -e PROMETHEUS_URL="$3" -e SPECWATCH_PORT="$2" \
    -v specwatch-it-state:/var/lib/specwatch "$IMAGE" >/dev/null
  containers+=("$1")
}

P1=$(free_port)
start=$(now)
run_container specwatch-it-a "$P1" "http://127.0.0.1:$PROM"
check "starts with PROMETHEUS_URL alone (read-only, no capabilities, no-new-privileges) and is ready" \
  wait_http "http://127.0.0.1:$P1/readyz" 90
figure "container: start to ready (s)" "$(since "$start")"
check "its HEALTHCHECK passes on a port that is not 9464 ($P1)" podman healthcheck run specwatch-it-a
check "the daemon runs as uid 10001" \
  test "$(podman exec specwatch-it-a sh -c 'stat -c %u /proc/1')" = "10001"
check "POST a silence (state in the volume)" \
  bash -c "curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' \
    -d '{\"recipe\": \"llama*\", \"duration\": \"2h\", \"comment\": \"install-test survives\"}' \
    http://127.0.0.1:$P1/api/v1/silences"
start=$(now)
check "podman stop exits 0" podman stop specwatch-it-a >/dev/null
figure "container: podman stop, Prometheus answering (s)" "$(since "$start")"
check "exit code 0 after podman stop" \
  test "$(podman inspect --format '{{.State.ExitCode}}' specwatch-it-a)" = 0
podman rm specwatch-it-a >/dev/null

run_container specwatch-it-b "$P1" "http://127.0.0.1:$PROM"
check "a new container on the same volume is ready" wait_http "http://127.0.0.1:$P1/readyz" 90
check "and keeps the state: the silence is there" \
  bash -c "curl -fsS http://127.0.0.1:$P1/api/v1/silences | grep -q 'install-test survives'"
podman rm -f -t 5 specwatch-it-b >/dev/null

# podman stop while Prometheus stalls: the runtime's default 10 s grace, then SIGKILL (exit 137).
P2=$(free_port)
run_container specwatch-it-stall "$P2" "http://127.0.0.1:$STALL"
wait_http "http://127.0.0.1:$P2/healthz" 90
# The first evaluation starts at once and waits on the stalled datasource.
for _ in $(seq 1 50); do
  podman logs specwatch-it-stall 2>&1 | grep -q "specwatch running" && break
  sleep 0.2
done
sleep 2
start=$(now)
podman stop specwatch-it-stall >/dev/null
figure "container: podman stop while Prometheus stalls (s, default grace 10 s)" "$(since "$start")"
check "podman stop while Prometheus stalls exits 0, not SIGKILL's 137" \
  test "$(podman inspect --format '{{.State.ExitCode}}' specwatch-it-stall)" = 0
check "the running evaluation's queries were cancelled" \
  bash -c "podman logs specwatch-it-stall 2>&1 | grep -q 'cancelling its datasource queries'"
podman logs specwatch-it-stall >"$OUT/container-stall.log" 2>&1 || true
podman rm -f specwatch-it-stall >/dev/null

# === the Debian package under systemd, in systemd-nspawn ===
MACHINE=$WORK/machine
cp -a --reflink=auto "$CACHE/nspawn-root" "$MACHINE"
cp "$DEB" "$MACHINE/root/specwatch.deb"
start=$(now)
unshare -m --propagation private bash -c "mkdir -p /run/systemd/nspawn \
  && mount -t tmpfs tmpfs /run/systemd/nspawn \
  && exec systemd-nspawn -q -b -D '$MACHINE' --register=no --keep-unit --machine=specwatch-it" \
  >"$WORK/nspawn.log" 2>&1 </dev/null &
NSPAWN_PID=$!
LEADER=
for _ in $(seq 1 300); do
  # The machine's PID 1 is nspawn's child (unshare execs bash, which execs nspawn).
  LEADER=$(pgrep -P "$NSPAWN_PID" -x systemd || true)
  [ -n "$LEADER" ] && break
  sleep 0.2
done
if [ -z "$LEADER" ]; then
  cat "$WORK/nspawn.log" >&2
  echo "install-test: the nspawn machine did not boot" >&2
  exit 1
fi
in_machine() { nsenter -t "$LEADER" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
export LEADER
export -f in_machine
for _ in $(seq 1 300); do
  case "$(in_machine systemctl is-system-running 2>/dev/null || true)" in
    running | degraded) break ;;
  esac
  sleep 0.2
done
figure "nspawn: boot to multi-user (s)" "$(since "$start")"

check "apt-get install ./specwatch_*.deb" \
  in_machine bash -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q /root/specwatch.deb >/root/apt.log 2>&1'
check "the package made the user and its state directory" \
  in_machine bash -c 'getent passwd specwatch >/dev/null && test "$(stat -c %U /var/lib/specwatch)" = specwatch'
check "/etc/specwatch/specwatch.yaml is a conffile" \
  in_machine bash -c 'dpkg-query -W -f="\${Conffiles}" specwatch | grep -q /etc/specwatch/specwatch.yaml'
P3=$(free_port)
in_machine bash -c "sed -i 's/127.0.0.1:9464/127.0.0.1:$P3/' /etc/specwatch/specwatch.yaml \
  && echo PROMETHEUS_URL=http://127.0.0.1:$PROM > /etc/specwatch/specwatch.env"
# The README's second line, as written (this Prometheus serves no model: it writes nothing).
check "specwatch discover --write /etc/specwatch/alerts (the README's install lines)" \
  in_machine bash -c "PROMETHEUS_URL=http://127.0.0.1:$PROM specwatch discover \
    --config /etc/specwatch/specwatch.yaml --write /etc/specwatch/alerts >/root/discover.log 2>&1"
in_machine bash -c "cp /usr/share/doc/specwatch/examples/alerts/llama-3.3-70b*.yaml /etc/specwatch/alerts/"
check "specwatch validate, as the specwatch user" \
  in_machine bash -c "set -a; . /etc/specwatch/specwatch.env; set +a; \
    setpriv --reuid=specwatch --regid=specwatch --init-groups \
    specwatch validate --config /etc/specwatch/specwatch.yaml >/root/validate.log 2>&1"
start=$(now)
check "systemctl start (Type=notify: returns once the first evaluation finished)" \
  in_machine systemctl start specwatch
figure "systemd: systemctl start to READY=1 (s)" "$(since "$start")"
check "ready right after start" wait_http "http://127.0.0.1:$P3/readyz" 5
check "systemctl reload exits 0 (no procps in the machine)" \
  bash -c "! in_machine test -e /bin/kill && in_machine systemctl reload specwatch"
for _ in $(seq 1 50); do
  in_machine journalctl -u specwatch -q --no-pager | grep -q "config reloaded" && break
  sleep 0.2
done
check "the reload was applied" \
  bash -c "in_machine journalctl -u specwatch -q --no-pager | grep -q 'config reloaded'"
check "systemctl restart" in_machine systemctl restart specwatch
check "ready after restart" wait_http "http://127.0.0.1:$P3/readyz" 60
pid=$(in_machine systemctl show -p MainPID --value specwatch)
in_machine sh -c "kill -9 $pid" # the shell's kill: no procps in the machine
restarted() {
  local now_pid
  for _ in $(seq 1 150); do
    now_pid=$(in_machine systemctl show -p MainPID --value specwatch)
    if [ "$now_pid" != 0 ] && [ "$now_pid" != "$1" ] \
      && [ "$(in_machine systemctl is-active specwatch)" = active ]; then
      return 0
    fi
    sleep 0.2
  done
  return 1
}
check "kill -9: systemd restarts it" restarted "$pid"
check "and it is ready again" wait_http "http://127.0.0.1:$P3/readyz" 60

# The watchdog: fed while evaluations happen; a frozen process is aborted and restarted.
in_machine bash -c 'mkdir -p /run/systemd/system/specwatch.service.d && printf "[Service]\nWatchdogSec=4s\n" \
  >/run/systemd/system/specwatch.service.d/watchdog.conf && systemctl daemon-reload'
in_machine systemctl restart specwatch
restarts=$(in_machine systemctl show -p NRestarts --value specwatch)
sleep 10 # two and a half watchdog periods: an unfed watchdog would have fired
check "the watchdog is fed while evaluations happen (active 10 s after a restart, WatchdogSec=4s)" \
  test "$(in_machine systemctl is-active specwatch)/$(in_machine systemctl show -p NRestarts --value specwatch)" \
  = "active/$restarts"
restarts=$(in_machine systemctl show -p NRestarts --value specwatch)
pid=$(in_machine systemctl show -p MainPID --value specwatch)
in_machine sh -c "kill -STOP $pid"
check "a frozen daemon: the watchdog aborts it and systemd restarts it" restarted "$pid"
check "the journal says why (watchdog timeout)" \
  bash -c "in_machine journalctl -u specwatch -q --no-pager | grep -qi 'watchdog timeout'"
check "NRestarts counted it" \
  test "$(in_machine systemctl show -p NRestarts --value specwatch)" -gt "$restarts"
in_machine bash -c 'rm -r /run/systemd/system/specwatch.service.d && systemctl daemon-reload'
in_machine systemctl restart specwatch
wait_http "http://127.0.0.1:$P3/readyz" 60 || true

score=$(in_machine systemd-analyze security specwatch.service --no-pager 2>/dev/null \
  | sed -n 's/.*Overall exposure level for specwatch.service: \([0-9.]*\).*/\1/p')
figure "systemd-analyze security specwatch.service (exposure, lower is better)" "${score:-none}"
check "systemd-analyze security <= 1.5" awk -v s="${score:-99}" 'BEGIN { exit !(s <= 1.5) }'

start=$(now)
check "systemctl stop" in_machine systemctl stop specwatch
figure "systemd: systemctl stop (s)" "$(since "$start")"
check "stopped with status 0 (Result=success)" \
  test "$(in_machine systemctl show -p Result --value specwatch)/$(in_machine systemctl show -p ExecMainStatus --value specwatch)" = "success/0"
in_machine journalctl -u specwatch -q --no-pager >"$OUT/journal.log" 2>&1 || true

check "apt-get purge removes the user, the state and /etc/specwatch" \
  in_machine bash -c 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -q specwatch >/dev/null 2>&1 \
    && ! getent passwd specwatch >/dev/null && ! test -e /var/lib/specwatch && ! test -e /etc/specwatch'

echo
cat "$OUT/figures.txt"
echo "install-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
