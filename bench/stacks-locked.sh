#!/usr/bin/env bash
# The target's pause for `jvmti-cli stacks -l` next to `jstack -l`'s on the same JVM under load
# (the test target HeldLocksTarget: 24 threads owning a ReentrantLock and a write lock in timed
# parks, 8 parked on them, 8 readers, 6 threads churning one lock, 2 computing), from the target's
# own -Xlog:safepoint: per pair the VM operations each caused (collections and the periodic
# cleanup left out) with their count, their summed Total (the target's pause) and the part of it
# spent at the safepoint, then the medians and their ratios (target: stacks -l's median pause no
# longer than jstack -l's, a ratio of at most 1) and the DeoptimizeFrame operations each caused
# (target: none). The two run in turns, each first in every other pair.
# Not a test: the numbers depend on the machine. Needs `mvn -B package -DskipTests` first (the
# target is a test class). JVM options after the pairs go to the target (a heap: -Xmx2g -Xms2g).
#   bench/stacks-locked.sh [pairs] [JVM options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
pairs=${1:-9}
shift || true
bin=${JAVA_HOME:+$JAVA_HOME/bin/}
work=$(mktemp -d)
log="$work/safepoints.log"
mkfifo "$work/in"
"${bin}java" "$@" "-Xlog:safepoint:file=$log" -XX:CompileCommand=quiet \
  -XX:CompileCommand=dontinline,dev.jvmticli.targets.HeldLocksTarget::touch \
  -cp "$root/cli/target/test-classes" dev.jvmticli.targets.HeldLocksTarget <"$work/in" >"$work/out" &
jvm=$!
exec 3>"$work/in" # its stdin: the target ends when this closes
trap 'exec 3>&-; kill $jvm 2>/dev/null || true; wait $jvm 2>/dev/null || true; rm -rf "$work"' EXIT
while ! grep -q READY "$work/out" 2>/dev/null; do sleep 0.1; done
"$root/jvmti-cli" threads "$jvm" >/dev/null # the agent loaded before anything is counted
sleep 2

# the operations logged after line $1 that the target makes whoever asks are left out;
# prints "count total-ms deoptimizations at-safepoint-ms names" (total: reaching the safepoint,
# the work at it and, from JDK 25 on, leaving it; on a loaded machine reaching it is mostly
# waiting for a CPU)
operations() {
  tail -n +$(($1 + 1)) "$log" \
    | sed -nE 's/.*Safepoint "([A-Za-z0-9_]+)".* At safepoint: ([0-9]+) ns,.* Total: ([0-9]+) ns.*/\1 \2 \3/p' \
    | awk '$1 !~ /^(Cleanup|ICBufferFull|.*G1.*|.*GC.*|.*Collect.*|Z.*|Shenandoah.*)$/ {
             n++; a += $2; t += $3; d += ($1 == "DeoptimizeFrame"); names[$1]++ }
           END { s = ""; for (k in names) s = s k "x" names[k] " "; printf "%d %.1f %d %.1f %s\n", n, t / 1e6, d, a / 1e6, s }'
}
lines() { wc -l <"$log"; }
measure() { # $1 = ours or jstack; prints operations
  local mark
  mark=$(lines)
  if [[ $1 == ours ]]; then "$root/jvmti-cli" stacks "$jvm" -l >/dev/null; else "${bin}jstack" -l "$jvm" >/dev/null; fi
  operations "$mark"
}

results="$work/results"
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then o=$(measure ours); j=$(measure jstack); else j=$(measure jstack); o=$(measure ours); fi
  echo "$(cut -d' ' -f1-4 <<<"$o") $(cut -d' ' -f1-4 <<<"$j")" >>"$results"
  printf 'pair %d: stacks -l %s ms (%s at the safepoint) in %s (%s) | jstack -l %s ms (%s) in %s (%s)\n' "$i" \
    "$(cut -d' ' -f2 <<<"$o")" "$(cut -d' ' -f4 <<<"$o")" "$(cut -d' ' -f1 <<<"$o")" "$(cut -d' ' -f5- <<<"$o" | xargs)" \
    "$(cut -d' ' -f2 <<<"$j")" "$(cut -d' ' -f4 <<<"$j")" "$(cut -d' ' -f1 <<<"$j")" "$(cut -d' ' -f5- <<<"$j" | xargs)"
done
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
report() { # $1, $2: the columns of ours and jstack's; $3: what they are
  awk -v o="$(cut -d' ' -f"$1" "$results" | median)" -v j="$(cut -d' ' -f"$2" "$results" | median)" -v n="$pairs" -v what="$3" \
    'BEGIN { printf "median %s over %d pairs: stacks -l %.1f ms, jstack -l %.1f ms, ratio %.2f\n", what, n, o, j, (j > 0 ? o / j : 0) }'
}
report 2 6 "pause (Total)"
report 4 8 "time at the safepoint"
awk '{ od += $3; jd += $7 } END { printf "DeoptimizeFrame operations: stacks -l %d, jstack -l %d\n", od, jd }' "$results"
