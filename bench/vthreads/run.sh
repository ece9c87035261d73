#!/usr/bin/env bash
# Times jvmti-cli on a JVM with many virtual threads (default 100,000) started before the attach,
# next to jstack and jcmd Thread.dump_to_file. Needs a JDK 21+ ($JDK25, or a 25 or 21 under
# /usr/lib/jvm) and `mvn -B package -DskipTests` first. Usage: bench/vthreads/run.sh [N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-100000}
jdk=${JDK25:-$( (ls -d /usr/lib/jvm/*25* /usr/lib/jvm/*21* 2>/dev/null || true) | head -1)}
work=$(mktemp -d)
trap 'exec 3>&-; kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
"$jdk/bin/javac" -d "$work" "$here/ManyVirtualThreads.java"
mkfifo "$work/in"
"$jdk/bin/java" -Xmx1g -cp "$work" ManyVirtualThreads "$n" <"$work/in" >"$work/out" 2>&1 &
pid=$!
exec 3>"$work/in"
until grep -q READY "$work/out" 2>/dev/null; do sleep 0.2; done
echo "target: pid $pid, $("$jdk/bin/java" -version 2>&1 | head -1), $n virtual threads (+10 blocked)"
run() {
  local label=$1; shift
  local start end
  start=$(date +%s.%N)
  "$@" >"$work/result" 2>&1 || true
  end=$(date +%s.%N)
  printf '%-48s %6.2f s  %9d bytes of output\n' "$label" "$(echo "$end - $start" | bc)" "$(wc -c <"$work/result")"
}
cli="$root/jvmti-cli"
run "jvmti-cli threads (attach, platform)" "$cli" threads "$pid"
run "jvmti-cli threads --virtual --summary" "$cli" threads "$pid" --virtual --summary
cp "$work/result" "$work/summary"
run "jvmti-cli threads --virtual --json" "$cli" threads "$pid" --virtual --json
run "jvmti-cli stacks --virtual (grouped)" "$cli" stacks "$pid" --virtual
cp "$work/result" "$work/groups"
run "jvmti-cli stacks --virtual --no-group" "$cli" stacks "$pid" --virtual --no-group
run "jvmti-cli monitors --by-lock" "$cli" monitors "$pid" --by-lock
run "jvmti-cli deadlocks" "$cli" deadlocks "$pid"
run "jstack" "$jdk/bin/jstack" "$pid"
echo "  (jstack lists $(grep -c '^"bench-[0-9]' "$work/result" || true) of the virtual threads)"
run "jcmd Thread.dump_to_file -format=json" "$jdk/bin/jcmd" "$pid" Thread.dump_to_file -format=json "$work/dump.json"
echo
cat "$work/summary"
echo
head -12 "$work/groups"
