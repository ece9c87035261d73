#!/usr/bin/env bash
# How long a class histogram stops the target: `jvmti-cli heap` (all objects, no GC) and
# `heap --live` (a full GC first) next to `jmap -histo`, `jmap -histo:live`, `jcmd GC.class_histogram -all`
# and `jcmd GC.class_histogram` (live), on targets holding live heaps of the sizes given (MiB), each
# with -Xlog:safepoint. A tool's pause is the sum of the Total of every safepoint the target logged
# while it ran, but the periodic "Cleanup" ones, which are not the tool's; the tools alternate,
# medians of the rounds are printed. Not a test: the numbers
# depend on the machine. Then the GC cost of `alloc --live`'s weak refs (its table full) next to none.
# Needs `mvn -B package -DskipTests` first.
#   bench/heap.sh [rounds] [size-MiB...]     (default: 3 rounds, 1024 and 2048 MiB)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-3}
shift || true
if (($# == 0)); then set -- 1024 2048; fi
sizes=("$@")
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jdk_bin=$(dirname "$(readlink -f "$(command -v "$java")")")
work=$(mktemp -d)
target=
trap '[[ -n "$target" ]] && kill "$target" 2>/dev/null; rm -rf "$work"' EXIT
javac -d "$work" "$here/heap/LiveHeap.java"

tools=("jvmti-cli heap" "jvmti-cli heap --live" "jmap -histo" "jmap -histo:live" "jcmd GC.class_histogram -all" "jcmd GC.class_histogram")
run_tool() { # $1 = tool index, $2 = pid
  case $1 in
    0) "$root/jvmti-cli" heap "$2" --top 1 ;;
    1) "$root/jvmti-cli" heap "$2" --live --top 1 ;;
    2) "$jdk_bin/jmap" -histo "$2" ;;
    3) "$jdk_bin/jmap" -histo:live "$2" ;;
    4) "$jdk_bin/jcmd" "$2" GC.class_histogram -all ;;
    5) "$jdk_bin/jcmd" "$2" GC.class_histogram ;;
  esac >/dev/null
}
pause_ms_since() { # $1 = log, $2 = byte offset: the summed safepoint Total logged since, in ms
  tail -c +"$(($2 + 1))" "$1" | { grep -v 'Safepoint "Cleanup"' || true; } | sed -n 's/.*Safepoint ".*Total: \([0-9]*\) ns.*/\1/p' | awk '{s += $1} END {printf "%.1f", s / 1e6}'
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

load_at_start=$(uptime | sed 's/.*load average: //') # the machine's other work stretches every pause
printf '| live heap |'; for t in "${tools[@]}"; do printf ' %s |' "$t"; done; echo
printf '|---|'; for _ in "${tools[@]}"; do printf -- '---:|'; done; echo
for size in "${sizes[@]}"; do
  log="$work/safepoint-$size.log"
  "$java" -Xmx$((size * 2 + 1024))m -Xms$((size * 2 + 1024))m -XX:+UseG1GC -Xlog:safepoint:file="$log" \
      -cp "$work" LiveHeap "$size" >"$work/out" 2>&1 &
  target=$!
  while ! grep -q READY "$work/out" 2>/dev/null; do kill -0 "$target"; sleep 0.2; done
  "$root/jvmti-cli" heap "$target" --top 1 >/dev/null # the agent's first load is not a histogram's pause
  for ((i = 0; i < ${#tools[@]}; i++)); do : >"$work/t$i"; done
  for ((r = 1; r <= rounds; r++)); do
    for ((k = 0; k < ${#tools[@]}; k++)); do
      i=$(((k + r) % ${#tools[@]})) # a different order each round
      sleep 1
      offset=$(stat -c %s "$log")
      run_tool "$i" "$target"
      sleep 0.2 # the log is written after the safepoint ends
      pause_ms_since "$log" "$offset" >>"$work/t$i"; echo >>"$work/t$i"
    done
  done
  printf '| %s MiB |' "$size"
  for ((i = 0; i < ${#tools[@]}; i++)); do printf ' %s |' "$(grep . "$work/t$i" | median)"; done; echo
  kill "$target"; wait "$target" 2>/dev/null || true
  target=
done
echo "pause in ms: the median over $rounds rounds of the safepoints the target logged while the tool ran ($("$java" -version 2>&1 | head -1))"
echo "load average at the start: $load_at_start; at the end:$(uptime | sed 's/.*load average://')"

# The GC cost of alloc --live's weak refs: a target whose survivors fill the agent's table (64k weak
# refs), young collections logged with -Xlog:gc,gc+phases=debug; the "JNI Weak" phase and the pause
# of each young collection, averaged over a window without a session and one with the table full.
javac -d "$work" "$here/heap/LiveSamples.java"
log="$work/phases.log"
"$java" -Xmx1g -Xmn16m -XX:+UseG1GC -Xlog:gc,gc+phases=debug:file="$log" -cp "$work" LiveSamples >"$work/out" 2>&1 &
target=$!
while ! grep -q READY "$work/out" 2>/dev/null; do kill -0 "$target"; sleep 0.2; done
young_since() { # $1 = byte offset: "collections, mean JNI Weak ms, mean pause ms" of the young collections logged since
  tail -c +"$(($1 + 1))" "$log" | awk '
    /JNI Weak/ { for (i = 1; i <= NF; i++) if ($i == "Sum:") { weak += $(i + 1); w++ } }
    /Pause Young/ { sub(/ms$/, "", $NF); pause += $NF; n++ }
    END { printf "%d | %.3f | %.2f", n, w ? weak / w : 0, n ? pause / n : 0 }'
}
"$root/jvmti-cli" threads "$target" >/dev/null # the agent is resident in both windows
sleep 5
offset=$(stat -c %s "$log"); sleep 10; without=$(young_since "$offset")
"$root/jvmti-cli" alloc "$target" --live --interval 1k --force --duration 20s --json >"$work/live.json" &
cli=$!
sleep 8 # the table fills
offset=$(stat -c %s "$log"); sleep 10; with=$(young_since "$offset")
wait "$cli"
echo
echo "| young collections of a 1 GiB G1 heap (-Xmn16m) | collections | JNI Weak, ms | pause, ms |"
echo "|---|---:|---:|---:|"
echo "| no session | $without |"
echo "| alloc --live, table full ($(grep -o '"tracked" : [0-9]*' "$work/live.json" | grep -o '[0-9]*$') tracked, $(grep -o '"tableFull" : [0-9]*' "$work/live.json" | grep -o '[0-9]*$') did not fit) | $with |"
echo "JNI Weak: the phase's Sum over GC workers, mean per young collection; pause: mean Pause Young"
kill "$target"; wait "$target" 2>/dev/null || true
target=
