#!/usr/bin/env bash
# `make demo`: the real Prometheus (Debian package) with specwatch's recording rules, scraping
# `specwatch simulate` running the built-in scenario (a model healthy for a minute, regressed for
# a minute, recovered for a minute, in a loop, beside a steady second model). Every 10 seconds it
# runs `specwatch check` with the shipped policies (alerts/) and prints the table.
# Ctrl-C stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/../.."

JAR=target/specwatch.jar
[ -f "$JAR" ] || { echo "demo: $JAR is missing; run 'make jar' first" >&2; exit 1; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
  local port=$1
  while port_busy "$port"; do port=$((port + 1)); done
  echo "$port"
}

SIM_PORT=$(pick_port "${DEMO_SIM_PORT:-18000}")
PROM_PORT=$(pick_port "${DEMO_PROM_PORT:-19090}")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/specwatch-demo.XXXXXX")
pids=()

cleanup() {
  trap - INT TERM EXIT
  echo
  echo "demo: stopping the simulator and prometheus, removing $WORK"
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup INT TERM EXIT

java -jar "$JAR" simulate --listen "127.0.0.1:$SIM_PORT" >"$WORK/simulate.log" 2>&1 &
pids+=($!)

cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 2s
  evaluation_interval: 5s
rule_files:
  - $PWD/rules/vllm-spec-decode.rules.yaml
scrape_configs:
  - job_name: vllm
    static_configs:
      - targets: ['127.0.0.1:$SIM_PORT']
YAML
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --web.enable-lifecycle --log.level=warn \
  >"$WORK/prometheus.log" 2>&1 &
pids+=($!)

# The shipped example config and policies, pointed at this Prometheus; a 1m window so the
# regression shows within a minute (production default: 5m).
cat >"$WORK/specwatch.yaml" <<YAML
prometheus: {url: "http://127.0.0.1:$PROM_PORT", timeout: 5s}
evaluation: {interval: 10s, window: 1m}
policies: $PWD/alerts
notifiers: [{type: log}]
YAML
java -jar "$JAR" validate --config "$WORK/specwatch.yaml" >/dev/null

for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null 2>&1 && break
  sleep 0.2
done

cat <<TXT
specwatch demo
  simulator (vLLM /metrics): http://127.0.0.1:$SIM_PORT/metrics
  prometheus:                http://127.0.0.1:$PROM_PORT   (rules: http://127.0.0.1:$PROM_PORT/rules)
  config:                    $WORK/specwatch.yaml (policies: alerts/)

Scenario: unsloth/Qwen3.8-27B-NVFP4 (MTP, k=3) healthy for 45s (acceptance ~0.84, mean accepted
length ~3.51), regressed for 90s (~0.41 / ~2.23), recovered for 45s, in a loop; beside it
deepseek-ai/DeepSeek-R1 (k=1, two data-parallel engines) steady at ~0.815.
Every 10s: specwatch check. qwen3.8-27b-nvfp4 turns 'breach' (acceptance below 0.45) during the
regression and 'ok' again after it. The first rows read no_data/low_traffic while the window fills.
Ctrl-C to stop.
TXT

while true; do
  sleep 10
  echo
  java -jar "$JAR" check --config "$WORK/specwatch.yaml" 2>&1 || true
done
