#!/usr/bin/env bash
# Throughput of an allocation-heavy workload without the agent, and while `jvmti-cli alloc`
# samples it at an interval (default 512k, the CLI's default); prints both and their ratio (target
# at 512k: within 3%),
# per wall-clock second and per CPU second of the allocating thread (steadier when other work
# shares the machine; the sampling callbacks run on that thread, so their cost is in it).
# Not a test: the numbers depend on the machine. Needs `mvn -B package -DskipTests` first.
#   bench/alloc-overhead.sh [rounds] [measure-seconds] [interval]
# (an interval below alloc's floor is passed with --force: this measures what the floor is for)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-3}
measure=${2:-10}
interval=${3:-512k}
warm=5
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" "$here/AllocBench.java"

run() { # $1 = "agent" or "plain"; prints "ops/s ops/cpu-s"
  local out
  out=$(mktemp "$work/out.XXXXXX")
  "$java" -Xmx256m -XX:+UseParallelGC -cp "$work" AllocBench $((warm * 1000)) $((measure * 1000)) >"$out" &
  local jvm=$!
  while ! grep -q STARTED "$out" 2>/dev/null; do sleep 0.05; done
  if [[ $1 == agent ]]; then
    # attach and start sampling during the warm-up: the measured window is all sampling
    "$root/jvmti-cli" threads "$jvm" >/dev/null
    "$root/jvmti-cli" alloc "$jvm" --duration $((warm + measure + 1))s --interval "$interval" --force >"$work/alloc.txt" &
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
  printf 'round %d: without agent %s, sampling at %s %s (ops/s ops/cpu-s)\n' "$i" "$p" "$interval" "$a"
done
awk '{ pw += $1; pc += $2; aw += $3; ac += $4; n++ } END {
  printf "mean per wall second: without agent %.0f, sampling %.0f, ratio %.4f\n", pw/n, aw/n, aw/pw
  printf "mean per CPU second:  without agent %.0f, sampling %.0f, ratio %.4f\n", pc/n, ac/n, ac/pc }' "$results"
echo "last sampling report:"; head -8 "$work/alloc.txt"
