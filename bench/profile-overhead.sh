#!/usr/bin/env bash
# Throughput of a CPU-bound workload without profiling, under `jvmti-cli profile --interval 10ms`
# (async-profiler driven by our agent), and under async-profiler loaded on its own as an agent
# (`jcmd <pid> JVMTI.agent_load <lib> '"start,event=cpu,interval=10ms"'`, then stop with the
# collapsed output to a file, as ours streams it), the same library file both ways. The options go
# to jcmd inside double quotes: unquoted, jcmd cuts them at the commas and async-profiler gets no
# `start`, so nothing is profiled; a standalone run that returns no samples ends the benchmark. Rounds alternate the
# order of the three; prints per round and the medians, per wall-clock second and per CPU second
# of the worker (steadier on a shared machine), and the ratios: ours/standalone (target >= 0.98)
# and each against no profiling. A fresh JVM per run. Not a test: the numbers depend on the machine.
# Needs `mvn -B package -DskipTests` first.
#   bench/profile-overhead.sh [rounds] [measure-seconds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-5}
measure=${2:-10}
warm=5
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jcmd=${JAVA_HOME:+$JAVA_HOME/bin/}jcmd
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" "$here/ProfileBench.java"
# the library as the CLI hands it out (extracted and checked like the agent): the one native/pom.xml
# pins, named by the first half of its SHA-256
sha=$(sed -n 's:.*<async-profiler.sha256>\(.*\)</async-profiler.sha256>.*:\1:p' "$root/native/pom.xml")
lib="${TMPDIR:-/tmp}/.jvmti-cli-lib-$(id -u)/libasyncProfiler-${sha:0:32}.so"

run() { # $1 = plain, ours or standalone; prints "ops/s ops/cpu-s"
  local out
  out=$(mktemp "$work/out.XXXXXX")
  "$java" -XX:+UseParallelGC -cp "$work" ProfileBench $((warm * 1000)) $((measure * 1000)) >"$out" 2>&1 &
  local jvm=$!
  while ! grep -q STARTED "$out" 2>/dev/null; do sleep 0.05; done
  case $1 in
    ours)
      # attach and start during the warm-up: the measured window is all profiling
      "$root/jvmti-cli" profile "$jvm" --interval 10ms --duration $((warm + measure + 1))s --collapsed >"$work/ours.txt" &
      local cli=$! ;;
    standalone)
      "$jcmd" "$jvm" JVMTI.agent_load "$lib" '"start,event=cpu,interval=10ms"' >"$work/jcmd.txt" ;;
  esac
  while ! grep -q '^DONE' "$out" 2>/dev/null; do sleep 0.1; done
  case $1 in
    ours) wait "$cli" ;;
    standalone)
      rm -f "$work/standalone.txt"
      "$jcmd" "$jvm" JVMTI.agent_load "$lib" "\"stop,collapsed,file=$work/standalone.txt\"" >>"$work/jcmd.txt"
      if [[ $(awk '{ n += $NF } END { print n + 0 }' "$work/standalone.txt" 2>/dev/null) -eq 0 ]]; then
        echo "the standalone async-profiler did not profile (no samples); jcmd said:" >&2
        cat "$work/jcmd.txt" >&2
        kill "$jvm"
        exit 1
      fi ;;
  esac
  kill "$jvm"; wait "$jvm" 2>/dev/null || true
  awk '/^OPS/ {print $2, $3}' "$out"
}

# `profile` extracts the library on its first run; the standalone runs load that same file
if [[ ! -f $lib ]]; then
  run ours >/dev/null
fi
results="$work/results"
order=(plain ours standalone)
for ((i = 1; i <= rounds; i++)); do
  declare -A r=()
  for ((k = 0; k < 3; k++)); do
    mode=${order[(i + k) % 3]}
    r[$mode]=$(run "$mode")
  done
  echo "${r[plain]} ${r[ours]} ${r[standalone]}" >>"$results"
  printf 'round %d: none %s, ours %s, standalone %s (ops/s ops/cpu-s)\n' "$i" "${r[plain]}" "${r[ours]}" "${r[standalone]}"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for col in 1 2; do
  what=$([[ $col == 1 ]] && echo "per wall second" || echo "per CPU second ")
  p=$(awk -v c=$col '{ print $c }' "$results" | median)
  o=$(awk -v c=$((col + 2)) '{ print $c }' "$results" | median)
  s=$(awk -v c=$((col + 4)) '{ print $c }' "$results" | median)
  awk -v w="$what" -v p="$p" -v o="$o" -v s="$s" 'BEGIN {
    printf "median %s: none %.0f, ours %.0f, standalone %.0f; ours/standalone %.4f, ours/none %.4f, standalone/none %.4f\n",
      w, p, o, s, o / s, o / p, s / p }'
done
echo "samples in the last runs: ours $(awk '{ n += $NF } END { print n + 0 }' "$work/ours.txt"), standalone $(awk '{ n += $NF } END { print n + 0 }' "$work/standalone.txt")"
