#!/usr/bin/env bash
# Throughput of an allocation-heavy workload without the agent, and while `jvmti-cli alloc`
# samples it at the default 512 KiB interval; prints both and their ratio (target: within 3%).
# Not a test: the numbers depend on the machine. Needs `mvn -B package -DskipTests` first.
#   bench/alloc-overhead.sh [rounds] [measure-seconds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-3}
measure=${2:-10}
warm=5
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" "$here/AllocBench.java"

run() { # $1 = "agent" or "plain"; prints ops/s
  local out
  out=$(mktemp "$work/out.XXXXXX")
  "$java" -Xmx256m -XX:+UseParallelGC -cp "$work" AllocBench $((warm * 1000)) $((measure * 1000)) >"$out" &
  local jvm=$!
  while ! grep -q STARTED "$out" 2>/dev/null; do sleep 0.05; done
  if [[ $1 == agent ]]; then
    # attach and start sampling during the warm-up: the measured window is all sampling
    "$root/jvmti-cli" threads "$jvm" >/dev/null
    "$root/jvmti-cli" alloc "$jvm" --duration $((warm + measure + 1))s --interval 512k >"$work/alloc.txt" &
    local cli=$!
  fi
  while ! grep -q '^OPS' "$out" 2>/dev/null; do sleep 0.1; done
  if [[ $1 == agent ]]; then wait "$cli"; fi
  kill "$jvm"; wait "$jvm" 2>/dev/null || true
  awk '/^OPS/ {print $2}' "$out"
}

plain_total=0; agent_total=0
for ((i = 1; i <= rounds; i++)); do
  if ((i % 2)); then p=$(run plain); a=$(run agent); else a=$(run agent); p=$(run plain); fi
  printf 'round %d: without agent %s ops/s, sampling at 512 KiB %s ops/s\n' "$i" "$p" "$a"
  plain_total=$((plain_total + p)); agent_total=$((agent_total + a))
done
awk -v p="$plain_total" -v a="$agent_total" -v r="$rounds" 'BEGIN {
  printf "mean: without agent %.0f ops/s, sampling %.0f ops/s, ratio %.4f (%.2f%% slower)\n", p/r, a/r, a/p, 100*(1-a/p) }'
echo "last sampling report:"; head -8 "$work/alloc.txt"
