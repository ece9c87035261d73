#!/usr/bin/env bash
# Cold start: jstack against `jvmti-cli threads` (a new CLI process through the launcher, the agent
# already resident) on a small idle target, one target on each installed JDK; the CLI runs on every
# installed JDK (each with its CDS archive, made before the rounds). Rounds alternate the tools;
# prints medians of wall time and of CPU time (user + system of the process and its children, from
# bash's `times`). Not a test: the numbers depend on the machine and its load.
# Needs `mvn -B package -DskipTests` first.   bench/cold.sh [rounds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-11}
launcher="$root/jvmti-cli"
work=$(mktemp -d)
targets=()
trap 'kill "${targets[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
printf 'public class Idle { public static void main(String[] a) throws Exception { System.out.println("READY"); Thread.sleep(600_000); } }\n' >"$work/Idle.java"
javac --release 17 -d "$work" "$work/Idle.java"

jdks=()
for home in /usr/lib/jvm/*/; do
  [[ -x "$home/bin/jstack" && ! -L "${home%/}" ]] && jdks+=("${home%/}")
done

# The CPU milliseconds (user + system) of the finished children so far, into cpu_ms: bash's
# `times`, read in this shell (a subshell's children are its own).
read_children_cpu() {
  local user system t seconds
  times >"$work/times"
  { read -r _; read -r user system; } <"$work/times"
  cpu_ms=0
  for t in "$user" "$system"; do # as 1m2.345s
    seconds=${t#*m}
    seconds=${seconds%s}
    cpu_ms=$((cpu_ms + 10#${t%%m*} * 60000 + 10#${seconds/./}))
  done
}

# Runs the command with JAVA_HOME=$2 (none when empty) once; appends "wall-ms cpu-ms" to file $1.
measure() {
  local file=$1 java_home=$2 start end before
  shift 2
  read_children_cpu
  before=$cpu_ms
  start=$EPOCHREALTIME
  if [[ -n "$java_home" ]]; then
    JAVA_HOME=$java_home "$@" >/dev/null 2>&1
  else
    "$@" >/dev/null 2>&1
  fi
  end=$EPOCHREALTIME
  read_children_cpu
  awk -v s="$start" -v e="$end" -v c=$((cpu_ms - before)) 'BEGIN { printf "%.1f %d\n", (e - s) * 1000, c }' >>"$file"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| target | tool | wall ms | vs jstack | CPU ms | vs jstack |"
echo "|---|---|---:|---:|---:|---:|"
for target_home in "${jdks[@]}"; do
  "$target_home/bin/java" -cp "$work" Idle >"$work/idle.out" 2>&1 &
  pid=$!
  targets+=("$pid")
  while ! grep -q READY "$work/idle.out" 2>/dev/null; do sleep 0.05; done
  tools=(jstack)
  for cli_home in "${jdks[@]}"; do
    JAVA_HOME=$cli_home "$launcher" threads "$pid" >/dev/null # loads the agent; makes this JDK's archive
    JAVA_HOME=$cli_home "$launcher" threads "$pid" >/dev/null
    tools+=("$cli_home")
  done
  for tool in "${tools[@]}"; do : >"$work/$(basename "$tool")"; done
  for ((i = 0; i < rounds; i++)); do
    for tool in "${tools[@]}"; do
      if [[ "$tool" == jstack ]]; then
        measure "$work/jstack" "" "$target_home/bin/jstack" "$pid"
      else
        measure "$work/$(basename "$tool")" "$tool" "$launcher" threads "$pid"
      fi
    done
  done
  jstack_wall=$(cut -d' ' -f1 "$work/jstack" | median)
  jstack_cpu=$(cut -d' ' -f2 "$work/jstack" | median)
  for tool in "${tools[@]}"; do
    name=$(basename "$tool")
    wall=$(cut -d' ' -f1 "$work/$name" | median)
    cpu=$(cut -d' ' -f2 "$work/$name" | median)
    label="jvmti-cli threads, CLI on $name"
    [[ "$tool" == jstack ]] && label="jstack ($(basename "$target_home"))"
    awk -v t="$(basename "$target_home")" -v l="$label" -v w="$wall" -v c="$cpu" -v jw="$jstack_wall" -v jc="$jstack_cpu" \
      'BEGIN { printf "| %s | %s | %.0f | %.2f | %.0f | %.2f |\n", t, l, w, w / jw, c, c / jc }'
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done
