# specwatch — see README.md. Every target runs on a fresh Debian machine with a JDK 17 and Maven.
SHELL := /bin/bash
MVN ?= mvn -B -ntp
JAR := target/specwatch.jar
RULES := rules/vllm-spec-decode.rules.yaml
ALERT_RULES := alerts/prometheus/specwatch.alerts.yaml

.PHONY: all test deps deps-postgres build jar deb install-test kubernetes schema-check rules rules-check unit-check fmt demo bench scale-bench detect-bench heldout-bench speedup-bench advice-bench window-bound chaos clean

all: test

## deps: install Prometheus, promtool and Alertmanager (Debian packages) when missing
deps:
	@bash deploy/scripts/ensure-deps.sh

## deps-postgres: deps, plus PostgreSQL running at 127.0.0.1:5432 (the cluster tests and bench)
deps-postgres:
	@bash deploy/scripts/ensure-deps.sh --postgres

## test: promtool checks of the rules, the systemd unit, the dashboards' and manifests' schemas, then the Maven build with all tests
test: deps-postgres rules-check unit-check schema-check
	@status=0; $(MVN) verify || status=$$?; bash deploy/scripts/slowest-tests.sh; exit $$status

## schema-check: dashboards against @grafana/schema, Kubernetes manifests against kubernetes-models (TypeScript), and a self-test that planted errors fail
schema-check: deps
	@kubectl kustomize --help >/dev/null 2>&1 || { echo "schema-check: kubectl with kustomize v5 is missing (it renders deploy/kubernetes; Debian's kubernetes-client 1.20 is too old): install kubectl 1.27 or later" >&2; exit 1; }
	npm ci --prefix deploy/schema-check --no-audit --no-fund --loglevel=error
	node deploy/schema-check/check.mjs
	node deploy/schema-check/check.mjs --self-test

## unit-check: systemd-analyze verify of deploy/systemd/specwatch.service (any warning fails)
unit-check: deps
	@out=$$(systemd-analyze verify deploy/systemd/specwatch.service 2>&1); \
	  if [ -n "$$out" ]; then echo "$$out"; exit 1; fi; \
	  echo "systemd-analyze verify deploy/systemd/specwatch.service: ok"

## rules-check: promtool check + promtool test of the recording rules
rules-check: deps
	promtool check rules $(RULES) $(ALERT_RULES)
	promtool test rules rules/tests/*.yaml alerts/prometheus/tests/*.yaml

## jar: build target/specwatch.jar without running tests
jar $(JAR):
	$(MVN) -q package -DskipTests -Dspotless.check.skip=true

## deb: the Debian package target/specwatch_*_all.deb (jar, launcher, unit, /etc/specwatch conffiles)
deb:
	$(MVN) -q package -Pdeb -DskipTests -Dspotless.check.skip=true

## install-test: the image under podman, the .deb and its unit under systemd in systemd-nspawn (as root; docs/OPERATIONS.md)
install-test: deps
	@bash deploy/scripts/install-test.sh

## kubernetes: re-render deploy/kubernetes/base's PrometheusRule and dashboards ConfigMap
kubernetes: $(JAR)
	java -jar $(JAR) rules render --format prometheus-operator > deploy/kubernetes/base/prometheusrule.yaml
	$(MVN) -q test-compile -Dspotless.check.skip=true
	$(MVN) -q exec:java -Dexec.classpathScope=test -Dexec.mainClass=dev.specwatch.deploy.KubernetesManifests

## rules: re-render the recording rules and the policies' alerting rules
rules: $(JAR)
	java -jar $(JAR) rules render > $(RULES)
	java -jar $(JAR) rules render --alerts --config deploy/specwatch.example.yaml > $(ALERT_RULES)

## fmt: format Java sources (google-java-format)
fmt:
	$(MVN) -q spotless:apply

## demo: Prometheus with the rules, scraping the simulator's three-minute regression scenario
demo: deps jar
	@bash deploy/demo/run-demo.sh

## chaos: the whole fault suite against the real daemon (about 8 minutes); prints the table of docs/RELIABILITY.md
chaos: deps
	rm -rf target/chaos
	$(MVN) verify -Dspotless.check.skip=true -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dit.test='SlackFaultsIT,StateFaultsIT,ClusterChaosIT,ReloadsIT' -Dchaos.excludedGroups=none
	@echo; echo "fault	lost	duplicated	fire delay s	resolve delay s	webhook fire delay s	note"; \
	  cat target/chaos/*.tsv

## bench: specwatch's own CPU, allocation and heap per evaluation; the daemon beside vmalert (RSS, threads, CPU); three replicas on PostgreSQL with 10,000 recipes and their failover (docs/PERFORMANCE.md)
bench: deps-postgres
	$(MVN) -q test-compile -Dspotless.check.skip=true
	$(MVN) -q dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt
	java -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.bench.EvaluationBench
	java -Xmx256m -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.schedule.DaemonBench
	$(MVN) -q package -DskipTests -Dspotless.check.skip=true
	java -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.bench.FootprintBench
	java -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.bench.ClusterBench

## scale-bench: the daemon with 10,000 recipes (a third without data, change detection on each, learned models for those with data) for an hour in the shipped heap (docs/PERFORMANCE.md)
scale-bench: deps
	$(MVN) -q package -DskipTests -Dspotless.check.skip=true
	$(MVN) -q test-compile -Dspotless.check.skip=true
	$(MVN) -q dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt
	java -Xmx2g -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.bench.ScaleBench

## heldout-bench: the change rule and static lines on noise families it was not designed on (docs/DETECTION.md)
heldout-bench: deps-postgres
	$(MVN) -q test-compile -Dspotless.check.skip=true
	$(MVN) -q dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt
	java $(BENCH_FLAGS) -Xmx4g -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.bench.HeldOutBench

## advice-bench: the advisor's k by load against roofline step-time worlds it does not model (docs/SPEEDUP.md)
advice-bench:
	$(MVN) -q test-compile -Dspotless.check.skip=true
	$(MVN) -q dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt
	java $(BENCH_FLAGS) -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.bench.AdviceRegretBench

## speedup-bench: the speed-up intervals' coverage on history families the estimator was not designed on (docs/SPEEDUP.md)
speedup-bench:
	$(MVN) -q test-compile -Dspotless.check.skip=true
	$(MVN) -q dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt
	java $(BENCH_FLAGS) -Xmx1g -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.bench.SpeedupBench

## window-bound: the fastest any window test tuned on each held-out family could be (docs/DETECTION.md)
window-bound:
	$(MVN) -q test-compile -Dspotless.check.skip=true
	$(MVN) -q dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt
	java $(BENCH_FLAGS) -Xmx4g -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.bench.WindowBound

## detect-bench: false alarms and delays of every detector on generated histories (docs/DETECTION.md)
detect-bench: deps-postgres
	$(MVN) -q test-compile -Dspotless.check.skip=true
	$(MVN) -q dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt
	java $(BENCH_FLAGS) -Xmx4g -cp target/test-classes:target/classes:$$(cat target/bench-classpath.txt) \
	  dev.specwatch.bench.DetectionBench

clean:
	$(MVN) -q clean
