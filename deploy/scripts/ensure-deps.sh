#!/usr/bin/env bash
# Makes sure the real components the tests and the demo run are installed: Prometheus, promtool
# and Alertmanager from Debian's packages, Chromium and its ChromeDriver (the web UI's browser
# tests), PostgreSQL at 127.0.0.1:5432 (state.backend: postgres and the cluster tests), plus a
# JDK 17+ and Maven. Installs them with apt-get
# when running as root; otherwise names what is missing and fails.
set -euo pipefail

# --postgres: also PostgreSQL (make test, make bench); make demo needs no database.
want_postgres=0
[ "${1:-}" = "--postgres" ] && want_postgres=1

missing_pkgs=()
command -v prometheus >/dev/null 2>&1 || missing_pkgs+=(prometheus)
command -v promtool >/dev/null 2>&1 || missing_pkgs+=(prometheus)
command -v prometheus-alertmanager >/dev/null 2>&1 || missing_pkgs+=(prometheus-alertmanager)
command -v java >/dev/null 2>&1 || missing_pkgs+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || missing_pkgs+=(maven)
command -v curl >/dev/null 2>&1 || missing_pkgs+=(curl)
# make schema-check type-checks the dashboards and manifests with TypeScript (npm packages).
command -v node >/dev/null 2>&1 || missing_pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || missing_pkgs+=(npm)
# ClockStepIT runs the daemon under libfaketime to step its wall clock back.
compgen -G "/usr/lib/*/faketime/libfaketimeMT.so.1" >/dev/null || missing_pkgs+=(faketime)
command -v systemd-analyze >/dev/null 2>&1 || missing_pkgs+=(systemd)
# The web UI's browser tests drive Debian's Chromium through its ChromeDriver.
command -v chromium >/dev/null 2>&1 || missing_pkgs+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing_pkgs+=(chromium-driver)
# VictoriaMetricsIT checks the same queries against VictoriaMetrics single-node.
[ -x /usr/bin/victoria-metrics ] || missing_pkgs+=(victoria-metrics)

# The cluster tests (src/test/java/dev/specwatch/ha) need PostgreSQL at 127.0.0.1:5432 with trust
# authentication for user postgres, and pg_ctlcluster to stop and start it.
postgres_up() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }
if [ $want_postgres -eq 1 ]; then
  command -v pg_ctlcluster >/dev/null 2>&1 || missing_pkgs+=(postgresql)
fi

start_postgres() {
  [ $want_postgres -eq 1 ] || return 0
  local version
  if [ -n "${fresh_postgres:-}" ]; then
    # A cluster this script just installed: let the tests connect as postgres without a password
    # over loopback (as on the project's machines). An existing installation is left as it is.
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    sed -i '1i host all postgres 127.0.0.1/32 trust' "/etc/postgresql/$version/main/pg_hba.conf"
    if postgres_up; then
      pg_ctlcluster --skip-systemctl-redirect "$version" main reload
    fi
  fi
  postgres_up && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "specwatch: PostgreSQL is not running at 127.0.0.1:5432; start it (as root:" \
      "pg_ctlcluster <version> main start)" >&2
    return 1
  fi
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  echo "specwatch: starting PostgreSQL $version" >&2
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
  for _ in $(seq 1 30); do postgres_up && return 0; sleep 1; done
  echo "specwatch: PostgreSQL did not start listening on 127.0.0.1:5432" >&2
  return 1
}

if [ ${#missing_pkgs[@]} -eq 0 ]; then
  start_postgres
  exit $?
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
case " ${missing_pkgs[*]} " in *" postgresql "*) fresh_postgres=1 ;; esac
start_postgres
