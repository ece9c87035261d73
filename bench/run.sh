#!/usr/bin/env bash
# The speed benchmark: jvmti-cli against jstack and jcmd on targets it starts itself.
# Run after the build (mvn -B package -DskipTests). Options go to Bench (bench/src/Bench.java):
#   --rounds N            rounds of the alternating runs (default 5); figures are medians
#   --scale 500,2000,8000 also run jstack / stacks at these thread counts
#   --skip-main           only the scale runs
# Example: bench/run.sh --rounds 7 --scale 500,2000,8000 | tee bench/target/results.md
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
jar="$root/cli/target/jvmti-cli.jar"
if [[ ! -f "$jar" ]]; then
  echo "bench: $jar is missing; build first: mvn -B package -DskipTests" >&2
  exit 1
fi
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
javac="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
classes="$root/bench/target/classes"
mkdir -p "$classes"
"$javac" -d "$classes" -cp "$jar" "$root"/bench/src/*.java
exec "$java" -cp "$classes" Bench "$root" "$@"
