#!/usr/bin/env bash
# Builds the benchmark jar of an older commit, for run-suite.py --baseline-jar (old vs new engine).
# usage: benchmarks/scripts/build-jar-at.sh COMMIT OUT.jar
# Exports COMMIT's tree with git archive into a temporary directory and packages it there
# (mvn package, never install: the local repository is shared); nothing in this checkout changes.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 COMMIT OUT.jar" >&2
  exit 2
fi
commit=$1
out=$(realpath -m "$2")
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dir=$(mktemp -d "${TMPDIR:-/tmp}/iwarp4j-jar-XXXXXX")
trap 'rm -rf "$dir"' EXIT
git -C "$repo" archive "$commit" | tar -x -C "$dir"
# -o when ~/.m2 already holds every dependency (MVN_OFFLINE=0 to allow downloads).
offline=$([ "${MVN_OFFLINE:-1}" = 1 ] && echo -o || true)
(cd "$dir" && mvn -B -q $offline -pl benchmarks -am package -DskipTests)
cp "$dir/benchmarks/target/iwarp4j-benchmarks.jar" "$out"
echo "$(git -C "$repo" rev-parse --short "$commit"): $out"
