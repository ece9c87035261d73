#!/usr/bin/env bash
# Warm stacks end to end: the shell (jvmti-cli shell PID, one connection) against jstack, side by
# side on targets of several shapes, with where the time goes (bench/src/ShellBench.java).
# Run after the build (mvn -B package -DskipTests). Options:
#   --rounds N   alternating rounds (default 7); figures are medians
#   --cli PATH   the launcher of the shell to measure (default: this checkout's), to compare builds
#   --against PATH  this checkout's shell against the one PATH launches, turn by turn, in twin targets,
#                the one not measured paused (ShellAgainst.java); no jstack, no stages
#   SHAPE...     label:threads:depth:kind (kind: mix, sleeping, blocked or parked) in place of the default shapes
# Example: bench/warm.sh --rounds 9 | tee bench/target/warm.md
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
jar="$root/cli/target/jvmti-cli.jar"
if [[ ! -f "$jar" ]]; then
  echo "bench: $jar is missing; build first: mvn -B package -DskipTests" >&2
  exit 1
fi
rounds=7
cli="$root/jvmti-cli"
against=""
while [[ "${1:-}" == --* ]]; do
  case "$1" in
    --rounds) rounds=$2 ;;
    --cli) cli=$(readlink -f "$2") ;;
    --against) against=$(readlink -f "$2") ;;
    *) echo "bench: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
shapes=("$@")
if [[ ${#shapes[@]} -eq 0 ]]; then
  shapes=(small:20:20:mix mix:2000:100:mix sleeping:2000:100:sleeping blocked:2000:100:blocked parked:2000:100:parked
          shallow:2000:10:mix deep:200:1000:mix)
fi
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
javac="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
classes="$root/bench/target/classes"
mkdir -p "$classes"
"$javac" -d "$classes" -cp "$jar" "$root"/bench/src/*.java
if [[ -n "$against" ]]; then
  exec "$java" -cp "$jar:$classes" ShellAgainst "$root" "$rounds" "$against" "${shapes[@]}"
fi
# the stages are measured with the flags the launcher gives the shell
exec "$java" -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:+UseSerialGC -Xss512k -Dcli="$cli" -cp "$jar:$classes" ShellBench "$root" "$rounds" "${shapes[@]}"
