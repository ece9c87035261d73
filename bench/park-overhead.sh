#!/usr/bin/env bash
# What `jvmti-cli contention`'s park probes (LockSupport.park* and VirtualThread.parkOnCarrierThread,
# docs/locks.md) cost a park-heavy workload (ParkBench: two threads handing a turn to each other with
# park(blocker)/unpark, every hand-off a park; two more with park() and no blocker; four threads taking
# one ReentrantLock in turns): its throughput without the tool, with `contention --no-parks` (monitor
# events only) and with `contention` (the park probes too), rounds in alternating order; per part the
# median rate of each mode and the median of the rounds' ratios (each round's modes ran next to one
# another, so a ratio sees less of the machine's drift than a ratio of medians). With `virtual` (a JDK
# 21+) the four lock takers are virtual threads: the owners whose stacks contention reads are virtual.
# Not a test: the numbers depend on the machine and on what else runs on it. Needs
# `mvn -B package -DskipTests` first.
#   bench/park-overhead.sh [rounds] [measure-seconds] [java home] [platform|virtual]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-3}
measure=${2:-10}
home=${3:-${JAVA_HOME:-}}
java=${home:+$home/bin/}java
lockers=${4:-platform}
warm=5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac --release 11 -d "$work" "$here/ParkBench.java"

source "$here/session-rounds.sh"
workload=("$java" -Xmx256m -cp "$work" ParkBench $((warm * 1000)) $((measure * 1000)) "$lockers")
run() { # $1 = plain, monitors or parks; prints "hand-offs/s locks/s bare-hand-offs/s"
  case $1 in
    plain) measure_workload plain ;;
    monitors) measure_workload monitors contention --no-parks ;;
    parks) measure_workload parks contention ;;
  esac
}

results="$work/results"
for ((i = 1; i <= rounds; i++)); do
  modes=(plain monitors parks)
  ((i % 2)) || modes=(parks monitors plain)
  declare -A got=()
  for m in "${modes[@]}"; do got[$m]=$(run "$m"); done
  echo "${got[plain]} ${got[monitors]} ${got[parks]}" >>"$results"
  printf 'round %d (hand-offs/s locks/s hand-offs-without-a-blocker/s): without the tool %s, monitors only %s, with the park probes %s\n' \
    "$i" "${got[plain]}" "${got[monitors]}" "${got[parks]}"
done
# columns of a round: plain h l b, monitors h l b, parks h l b
part() { # $1 = name, $2 = column of the part in plain (1-3)
  local p=$2 m=$(($2 + 3)) a=$(($2 + 6))
  printf '%s: without %.0f/s, monitors only %.0f/s (ratio %.3f), park probes %.0f/s (ratio %.3f); medians of %d rounds\n' "$1" \
    "$(awk -v c=$p '{print $c}' "$results" | median)" "$(awk -v c=$m '{print $c}' "$results" | median)" \
    "$(awk -v c=$m -v d=$p '{print $c / $d}' "$results" | median)" "$(awk -v c=$a '{print $c}' "$results" | median)" \
    "$(awk -v c=$a -v d=$p '{print $c / $d}' "$results" | median)" "$rounds"
}
part "hand-offs, park(blocker)" 1
part "ReentrantLock, 4 threads" 2
part "hand-offs, park() without a blocker" 3
echo "last report with the park probes:"; head -12 "$work/parks.txt" | cut -c1-200
grep -A1 '^Where the owners' "$work/parks.txt" | cut -c1-200
