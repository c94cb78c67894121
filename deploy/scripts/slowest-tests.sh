#!/usr/bin/env bash
# The ten slowest test classes of the last build (surefire and failsafe reports), slowest first:
# where `make test`'s time goes (docs/PERFORMANCE.md). Prints nothing when there are no reports.
set -euo pipefail
shopt -s nullglob
reports=(target/surefire-reports/*.txt target/failsafe-reports/*.txt)
if [ ${#reports[@]} -eq 0 ]; then
  exit 0
fi
echo "slowest test classes (seconds):"
grep -h "Time elapsed" "${reports[@]}" \
  | sed -E 's/.*Time elapsed: ([0-9.,]+) s.* in (.*)$/\1 \2/' \
  | tr -d ',' \
  | sort -rn \
  | head -10 \
  | awk '{ printf "  %7.1f  %s\n", $1, $2 }'
