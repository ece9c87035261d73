#!/usr/bin/env bash
# What recording native allocations costs the target: the throughput of one thread that mallocs,
# writes and frees 256 bytes an operation (bench/heap/NativeChurn.java, through Unsafe, so the JVM's
# malloc), over a window of S seconds, in a fresh JVM each: without any tool, under
# `jvmti-cli memory --native`, and under async-profiler's own nativemem recording loaded by jcmd
# (`start,nativemem=0,jfr,file=...`, the same library and mode the agent drives, without the agent).
# Operations per wall second and per CPU second of the thread, medians of the rounds, the three
# in a different order each round. Not a test: the numbers depend on the machine and its load.
# Needs `mvn -B package -DskipTests` first.
#   bench/nativemem-overhead.sh [rounds] [seconds]     (default: 3 rounds, 5 s)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-3}
seconds=${2:-5}
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jdk_bin=$(dirname "$(readlink -f "$(command -v "$java")")")
library=$root/native/target/async-profiler/linux-x64/libasyncProfiler.so
work=$(mktemp -d)
target=
trap '[[ -n "$target" ]] && kill "$target" 2>/dev/null; rm -rf "$work"' EXIT
javac -nowarn -d "$work" "$here/heap/NativeChurn.java" 2>/dev/null
now_ms() { date +%s%3N; }
# $1 = the target's log, $2 $3 = wall-clock ms: "ops/s ops-per-cpu-s" between the two, from the lines nearest inside
rate() {
  awk -v a="$2" -v b="$3" '!/^[0-9]/ { next } $1 >= a && first == "" { first = $0 } $1 <= b { last = $0 }
    END { split(first, f, " "); split(last, l, " "); printf "%.0f %.0f\n", (l[2] - f[2]) * 1000 / (l[1] - f[1]), (l[2] - f[2]) * 1e9 / (l[3] - f[3]) }' "$1"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
modes=("none" "jvmti-cli memory --native" "async-profiler nativemem")
for ((i = 0; i < 3; i++)); do : >"$work/wall$i"; : >"$work/cpu$i"; done
for ((r = 1; r <= rounds; r++)); do
  for ((k = 0; k < 3; k++)); do
    i=$(((k + r) % 3))
    "$java" -Xmx256m -cp "$work" NativeChurn >"$work/log" 2>&1 &
    target=$!
    while ! grep -q READY "$work/log" 2>/dev/null; do kill -0 "$target"; sleep 0.2; done
    [[ $i == 1 ]] && "$root/jvmti-cli" threads "$target" >/dev/null # the agent resident before the window
    sleep 3 # warm
    case $i in
      0) sleep 1; start=$(now_ms); sleep $((seconds - 2)); end=$(now_ms); sleep 1 ;;
      1) "$root/jvmti-cli" memory "$target" --native --duration "${seconds}s" --max-recording 1g >"$work/report" &
         cli=$!; sleep 1; start=$(now_ms); sleep $((seconds - 2)); end=$(now_ms); wait "$cli" ;;
      2) "$jdk_bin/jcmd" "$target" JVMTI.agent_load "$library" "\"start,nativemem=0,jfr,file=$work/ap.jfr\"" >/dev/null
         start=$(now_ms); sleep $((seconds - 2)); end=$(now_ms)
         "$jdk_bin/jcmd" "$target" JVMTI.agent_load "$library" "\"stop\"" >/dev/null ;;
    esac
    read -r wall cpu < <(rate "$work/log" "$start" "$end")
    echo "$wall" >>"$work/wall$i"; echo "$cpu" >>"$work/cpu$i"
    kill "$target"; wait "$target" 2>/dev/null || true
    target=
  done
done
echo "| recording | operations / wall s | operations / CPU s of the thread | ratio (CPU) |"
echo "|---|---:|---:|---:|"
base=$(median <"$work/cpu0")
for ((i = 0; i < 3; i++)); do
  cpu=$(median <"$work/cpu$i")
  echo "| ${modes[$i]} | $(median <"$work/wall$i") | $cpu | $(awk -v c="$cpu" -v b="$base" 'BEGIN {printf "%.3f", c / b}') |"
done
echo "each operation a malloc and a free; $rounds rounds, the middle $((seconds - 2)) s of a ${seconds} s window ($("$java" -version 2>&1 | head -1))"
echo "load average at the end:$(uptime | sed 's/.*load average://')"
