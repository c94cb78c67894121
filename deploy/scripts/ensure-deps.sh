#!/usr/bin/env bash
# Makes sure the real components the tests and the demo run are installed: Prometheus, promtool
# and Alertmanager from Debian's packages, Chromium and its ChromeDriver (the web UI's browser
# tests), plus a JDK 17+ and Maven. Installs them with apt-get
# when running as root; otherwise names what is missing and fails.
set -euo pipefail

missing_pkgs=()
command -v prometheus >/dev/null 2>&1 || missing_pkgs+=(prometheus)
command -v promtool >/dev/null 2>&1 || missing_pkgs+=(prometheus)
command -v prometheus-alertmanager >/dev/null 2>&1 || missing_pkgs+=(prometheus-alertmanager)
command -v java >/dev/null 2>&1 || missing_pkgs+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || missing_pkgs+=(maven)
command -v curl >/dev/null 2>&1 || missing_pkgs+=(curl)
command -v systemd-analyze >/dev/null 2>&1 || missing_pkgs+=(systemd)
# The web UI's browser tests drive Debian's Chromium through its ChromeDriver.
command -v chromium >/dev/null 2>&1 || missing_pkgs+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing_pkgs+=(chromium-driver)
# VictoriaMetricsIT checks the same queries against VictoriaMetrics single-node.
[ -x /usr/bin/victoria-metrics ] || missing_pkgs+=(victoria-metrics)

if [ ${#missing_pkgs[@]} -eq 0 ]; then
  exit 0
fi
# de-duplicate
mapfile -t missing_pkgs < <(printf '%s\n' "${missing_pkgs[@]}" | sort -u)

if [ "$(id -u)" -ne 0 ]; then
  echo "specwatch: missing Debian packages: ${missing_pkgs[*]}" >&2
  echo "install them with: sudo apt-get update && sudo apt-get install -y ${missing_pkgs[*]}" >&2
  exit 1
fi

echo "specwatch: installing ${missing_pkgs[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Debian's prometheus packages ship services; in a container without systemd they are not
# started, and tests never use the default ports anyway.
apt-get install -y -qq --no-install-recommends "${missing_pkgs[@]}" >/dev/null
