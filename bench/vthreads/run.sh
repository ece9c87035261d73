#!/usr/bin/env bash
# Times jvmti-cli on JVMs with many virtual threads (ManyVirtualThreads.java: 90% sleeping, 9% parked,
# 1% parked on a ReentrantLock, 10 blocked on a monitor), started before the attach, next to jstack in
# the same rounds. For each size: one untimed `threads` (the attach), then ROUNDS rounds of jstack and
# each command, alternately; medians, and each median over jstack's. Then `stacks --virtual` and
# jcmd Thread.dump_to_file once. Needs a JDK 21+ ($JDK25, or a 25 or 21 under /usr/lib/jvm) and
# `mvn -B package -DskipTests` first. The heap is sized to the threads (4 MB per 1,000, at least 256 MB).
# Usage: bench/vthreads/run.sh [--rounds N] [SIZE...]   (default: 5 rounds, 100000)
# Example: bench/vthreads/run.sh --rounds 5 10000 100000 1000000
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=5
if [[ "${1:-}" == "--rounds" ]]; then
  rounds=$2
  shift 2
fi
sizes=("${@:-100000}")
jdk=${JDK25:-$( (ls -d /usr/lib/jvm/*25* /usr/lib/jvm/*21* 2>/dev/null || true) | head -1)}
cli="$root/jvmti-cli"
work=$(mktemp -d)
pid=
trap 'exec 3>&- 2>/dev/null || true; [[ -n "$pid" ]] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
"$jdk/bin/javac" -d "$work" "$here/ManyVirtualThreads.java"
commands=("threads" "stacks" "threads --virtual --summary" "deadlocks" "monitors")

# Wall seconds of one run; its output goes to $work/result.
wall() {
  local start end
  start=$(date +%s%N)
  "$@" >"$work/result" 2>&1 || true
  end=$(date +%s%N)
  echo "scale=3; ($end - $start) / 1000000000" | bc
}

median() {
  tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

for n in "${sizes[@]}"; do
  heap=$(( n * 4 / 1000 > 256 ? n * 4 / 1000 : 256 ))
  rm -f "$work/in"
  mkfifo "$work/in"
  "$jdk/bin/java" "-Xmx${heap}m" -cp "$work" ManyVirtualThreads "$n" <"$work/in" >"$work/out" 2>&1 &
  pid=$!
  exec 3>"$work/in"
  until grep -q READY "$work/out" 2>/dev/null; do sleep 0.2; done
  echo "target: pid $pid, $("$jdk/bin/java" -version 2>&1 | head -1), $n virtual threads (+10 blocked), -Xmx${heap}m, load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$cli" threads "$pid" >/dev/null
  declare -A times=() bytes=()
  for ((r = 0; r < rounds; r++)); do
    times[jstack]+=" $(wall "$jdk/bin/jstack" "$pid")"
    bytes[jstack]=$(wc -c <"$work/result")
    for c in "${commands[@]}"; do
      # shellcheck disable=SC2086 # the command's words
      times[$c]+=" $(wall "$cli" $c "$pid")"
      bytes[$c]=$(wc -c <"$work/result")
    done
  done
  jstack_median=$(echo "${times[jstack]}" | median)
  echo
  echo "| $n virtual threads | median s | vs jstack | output bytes | runs (s) |"
  echo "|---|---:|---:|---:|---|"
  for c in jstack "${commands[@]}"; do
    m=$(echo "${times[$c]}" | median)
    printf '| %s | %.3f | %.2f | %d | %s |\n' "$c" "$m" "$(echo "scale=3; $m / $jstack_median" | bc)" "${bytes[$c]}" "${times[$c]# }"
  done
  echo
  printf 'once: jvmti-cli stacks --virtual (grouped) %.2f s, ' "$(wall "$cli" stacks "$pid" --virtual)"
  printf 'jcmd Thread.dump_to_file -format=json %.2f s\n\n' "$(wall "$jdk/bin/jcmd" "$pid" Thread.dump_to_file -format=json "$work/dump-$n.json")"
  rm -f "$work/dump-$n.json"
  exec 3>&-
  wait "$pid" 2>/dev/null || true
  pid=
  unset times bytes
done
