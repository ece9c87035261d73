#!/usr/bin/env bash
# What `jvmti-cli pauses` costs an allocation-heavy workload (AllocBench's one thread on a 64 MiB G1
# heap: a young collection, so a safepoint, every few milliseconds, each one a line the JVM writes
# into the agent's pipe): its throughput without the tool, with `pauses` (the JVM's own safepoint
# and gc log taken for the window) and with `pauses --late-threads` (async-profiler's
# time-to-safepoint sampling too), rounds in alternating order, a fresh JVM a run. Per wall second
# (what the pauses themselves take shows there) and per CPU second of the worker; medians of the
# rounds' ratios. Not a test: the numbers depend on the machine. Needs
# `mvn -B package -DskipTests` first.
#   bench/pauses-overhead.sh [rounds] [measure-seconds]
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

source "$here/session-rounds.sh"
workload=("$java" -Xmx64m -XX:+UseG1GC -cp "$work" AllocBench $((warm * 1000)) $((measure * 1000)))
run() { # $1 = plain, pauses or late; prints "ops/s ops/cpu-s"
  case $1 in
    plain) measure_workload plain ;;
    pauses) measure_workload pauses pauses ;;
    late) measure_workload late pauses --late-threads ;;
  esac
}

results="$work/results"
for ((i = 1; i <= rounds; i++)); do
  modes=(plain pauses late)
  ((i % 2)) || modes=(late pauses plain)
  declare -A got=()
  for m in "${modes[@]}"; do got[$m]=$(run "$m"); done
  echo "${got[plain]} ${got[pauses]} ${got[late]}" >>"$results"
  printf 'round %d (ops/s ops/cpu-s): without the tool %s, pauses %s, pauses --late-threads %s\n' \
    "$i" "${got[plain]}" "${got[pauses]}" "${got[late]}"
done
# columns of a round: plain wall cpu, pauses wall cpu, late wall cpu
per() { # $1 = name, $2 = column of plain (1 wall, 2 cpu)
  local p=$2 s=$(($2 + 2)) l=$(($2 + 4))
  printf '%s: without %.0f, pauses %.0f (ratio %.3f), pauses --late-threads %.0f (ratio %.3f); medians of %d rounds\n' "$1" \
    "$(awk -v c=$p '{print $c}' "$results" | median)" "$(awk -v c=$s '{print $c}' "$results" | median)" \
    "$(awk -v c=$s -v d=$p '{print $c / $d}' "$results" | median)" "$(awk -v c=$l '{print $c}' "$results" | median)" \
    "$(awk -v c=$l -v d=$p '{print $c / $d}' "$results" | median)" "$rounds"
}
per "per wall second" 1
per "per CPU second of the worker" 2
echo "last report with --late-threads:"; sed -n '1,2p;/pauses,/,$p' "$work/late.txt" | cut -c1-200
