#!/usr/bin/env bash
# Exceptions made per second by an exception-heavy workload (ExceptionsBench: one thread, an
# exception with a message 8 frames deep, ~1 µs each) without the agent, and while
# `jvmti-cli exceptions` counts them; prints both, their ratio, and the time the probe adds to each
# exception (from the per-CPU-second rates: the probe runs on the worker). Not a test: the numbers
# depend on the machine. Needs `mvn -B package -DskipTests` first.
#   bench/exceptions-overhead.sh [rounds] [measure-seconds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-3}
measure=${2:-10}
warm=5
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" "$here/ExceptionsBench.java"

run() { # $1 = "agent" or "plain"; prints "ops/s ops/cpu-s"
  local out
  out=$(mktemp "$work/out.XXXXXX")
  "$java" -cp "$work" ExceptionsBench $((warm * 1000)) $((measure * 1000)) >"$out" &
  local jvm=$!
  while ! grep -q STARTED "$out" 2>/dev/null; do sleep 0.05; done
  if [[ $1 == agent ]]; then
    # attach and put the probe in during the warm-up: the measured window is all counted
    "$root/jvmti-cli" threads "$jvm" >/dev/null
    "$root/jvmti-cli" exceptions "$jvm" --duration $((warm + measure + 1))s --top 3 >"$work/exceptions.txt" 2>&1 &
    local cli=$!
  fi
  while ! grep -q '^DONE' "$out" 2>/dev/null; do sleep 0.1; done
  if [[ $1 == agent ]]; then wait "$cli"; fi
  kill "$jvm"; wait "$jvm" 2>/dev/null || true
  awk '/^OPS/ {print $2, $3}' "$out"
}

results="$work/results"
for ((i = 1; i <= rounds; i++)); do
  if ((i % 2)); then p=$(run plain); a=$(run agent); else a=$(run agent); p=$(run plain); fi
  echo "$p $a" >>"$results"
  printf 'round %d: without agent %s, counting %s (exceptions/s exceptions/cpu-s)\n' "$i" "$p" "$a"
done
awk '{ pw += $1; pc += $2; aw += $3; ac += $4; n++ } END {
  printf "mean per wall second: without agent %.0f, counting %.0f, ratio %.4f\n", pw/n, aw/n, aw/pw
  printf "mean per CPU second:  without agent %.0f, counting %.0f, ratio %.4f\n", pc/n, ac/n, ac/pc
  printf "time per exception (CPU): %.0f ns without, %.0f ns counting: +%.0f ns\n", 1e9*n/pc, 1e9*n/ac, 1e9*n/ac - 1e9*n/pc }' "$results"
echo "last report:"; head -8 "$work/exceptions.txt"
