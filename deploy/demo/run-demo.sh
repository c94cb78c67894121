#!/usr/bin/env bash
# `make demo`: everything on this machine, on free loopback ports:
#   - `specwatch simulate` serving vLLM metrics for the built-in three-minute scenario
#     (Qwen3.8-27B-NVFP4 with MTP healthy 45s, regressed 90s, recovered 45s, in a loop);
#   - the Debian `prometheus` with specwatch's recording rules, scraping it;
#   - `specwatch simulate slack`, a stand-in for the Slack Web API that prints what it receives;
#   - `specwatch run` with the shipped policies (alerts/), notifying the Slack stand-in;
#   - a day of simulated history backfilled, so `advise` can measure speed-up by load at once.
# You see the alert fire in Slack and in the log, then the message updated when it recovers.
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
SLACK_PORT=$(pick_port "${DEMO_SLACK_PORT:-18080}")
API_PORT=$(pick_port "${DEMO_API_PORT:-19464}")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/specwatch-demo.XXXXXX")
pids=()

cleanup() {
  trap - INT TERM EXIT
  echo
  echo "demo: stopping specwatch, the Slack stand-in, prometheus and the simulator; removing $WORK"
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup INT TERM EXIT

java -jar "$JAR" simulate --listen "127.0.0.1:$SIM_PORT" >"$WORK/simulate.log" 2>&1 &
pids+=($!)
java -jar "$JAR" simulate slack --listen "127.0.0.1:$SLACK_PORT" 2>"$WORK/slack.log" &
pids+=($!)

cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 2s
  evaluation_interval: 5s
rule_files:
  - $PWD/rules/vllm-spec-decode.rules.yaml
scrape_configs:
  # The simulator serves vLLM, SGLang and TensorRT-LLM models at one address; each job keeps
  # only its engine's series, so Prometheus holds what three separate servers would give it.
  - job_name: vllm
    static_configs:
      - targets: ['127.0.0.1:$SIM_PORT']
    metric_relabel_configs:
      - {source_labels: [__name__], regex: 'vllm:.*', action: keep}
  - job_name: sglang
    static_configs:
      - targets: ['127.0.0.1:$SIM_PORT']
    metric_relabel_configs:
      - {source_labels: [__name__], regex: 'sglang:.*', action: keep}
  - job_name: trtllm
    # trtllm-serve's Prometheus metrics are at /prometheus/metrics (its /metrics is JSON)
    metrics_path: /prometheus/metrics
    static_configs:
      - targets: ['127.0.0.1:$SIM_PORT']
    metric_relabel_configs:
      - {source_labels: [__name__], regex: 'trtllm_.*', action: keep}
YAML
# A day of the scenario's vLLM history, backfilled before Prometheus starts, so that
# `advise` has a day's worth of load to measure the speed-up on from the first minute.
# Its series carry the live scrape's job and instance, so history and live scrapes are one series.
java -jar "$JAR" simulate --history 24h --history-out "$WORK/history.om" \
  --history-job vllm --history-instance "127.0.0.1:$SIM_PORT" >/dev/null
promtool tsdb create-blocks-from openmetrics "$WORK/history.om" "$WORK/data" \
  >"$WORK/backfill.log" 2>&1 || { cat "$WORK/backfill.log" >&2; exit 1; }
rm -f "$WORK/history.om"
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --web.enable-lifecycle --log.level=warn \
  >"$WORK/prometheus.log" 2>&1 &
pids+=($!)

# The shipped policies with demo timing: `for` and `keep_firing_for` of 20s instead of 5m, so the
# three-minute scenario shows a whole alert; a 1m window instead of 5m.
mkdir -p "$WORK/alerts"
for f in alerts/*.yaml; do
  sed -e 's/^for: .*/for: 20s/' -e 's/^keep_firing_for: .*/keep_firing_for: 20s/' "$f" \
    >"$WORK/alerts/$(basename "$f")"
done
cat >"$WORK/specwatch.yaml" <<YAML
prometheus: {url: "http://127.0.0.1:$PROM_PORT", timeout: 5s}
evaluation: {interval: 5s, window: 1m}
policies: alerts
state: {dir: state}
server: {listen: "127.0.0.1:$API_PORT", external_url: "http://127.0.0.1:$API_PORT"}
notifiers:
  - {type: slack, token: xoxb-demo-not-a-real-token, channel: "#mtp-alerts", api_url: "http://127.0.0.1:$SLACK_PORT/api/"}
YAML

for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null 2>&1 && break
  sleep 0.2
done

cat <<TXT
specwatch demo
  simulator (/metrics):      http://127.0.0.1:$SIM_PORT/metrics   (vLLM, SGLang, TensorRT-LLM)
  prometheus:                http://127.0.0.1:$PROM_PORT   (rules: http://127.0.0.1:$PROM_PORT/rules)
  specwatch web UI:          http://127.0.0.1:$API_PORT/   (fleet, alerts, silences, status)
  specwatch status API:      http://127.0.0.1:$API_PORT/api/v1/recipes   /api/v1/alerts   /metrics
  config:                    $WORK/specwatch.yaml

Scenario: qwen3.8-27b-nvfp4 (MTP, k=3) healthy for 45s (acceptance ~0.84), regressed for 90s
(~0.41, below its 0.45 threshold), recovered for 45s, in a loop; deepseek-r1-mtp (vLLM),
deepseek-v4-sglang (SGLang with DP attention) and deepseek-r1-fp4-trtllm (TensorRT-LLM) stay
healthy. llama-3.3-70b-eagle (EAGLE, k=3) and llama-3.3-70b (no speculation) run the same loads,
1 to 32 running requests; a day of their history is backfilled. What speculation buys there:
  java -jar $JAR advise --config $WORK/specwatch.yaml --recipe llama-3.3-70b-eagle --window 24h
(about 1.9x at one running request, 1.1x at 16, below 1 at 32: it stops paying in between).
Expect, about two minutes in (the 1m window has to fill with the regression, then 20s of
'for'): "alert firing qwen3.8-27b-nvfp4/acceptance_rate" in the log and, 30s later (Slack's
group_wait: alerts of a storm would become one message), a [slack] chat.postMessage; about a
minute later "alert resolved", a [slack] chat.update of that same
message and a reply in its thread; then the loop starts again. Open the web UI meanwhile: the
fleet page turns qwen3.8-27b-nvfp4 to "breach", /alerts shows the alert, and a silence created on
/silences keeps the next regression out of Slack. Ctrl-C to stop.

TXT

java -jar "$JAR" run --config "$WORK/specwatch.yaml" &
pids+=($!)
wait
