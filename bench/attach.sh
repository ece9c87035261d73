#!/usr/bin/env bash
# First-ever attach (the listener not running yet) through the JDK's Attach API against the CLI's
# own client of HotSpot's attach protocol: rounds alternate, each on a fresh idle target on every
# installed JDK; prints the medians of the attach's wall time and of the attaching process's CPU
# time (its JVM start-up included). Not a test: the numbers depend on the machine.
# Needs `mvn -B package -DskipTests` first.   bench/attach.sh [rounds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-7}
jar="$root/cli/target/jvmti-cli.jar"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" -cp "$jar" "$here/attach/dev/jvmticli/attach/AttachTime.java"
printf 'public class Idle { public static void main(String[] a) throws Exception { System.out.println("READY"); Thread.sleep(600_000); } }\n' >"$work/Idle.java"
javac --release 11 -d "$work" "$work/Idle.java"
library=$("$java" -jar "$jar" agent-path)

once() { # $1 = target java, $2 = jdk|own; prints "wall-ms cpu-ms"
  "$1" -cp "$work" Idle >"$work/idle.out" 2>&1 &
  local target=$!
  while ! grep -q READY "$work/idle.out" 2>/dev/null; do sleep 0.05; done
  "$java" -Xshare:auto -XX:TieredStopAtLevel=1 -cp "$work:$jar" dev.jvmticli.attach.AttachTime "$2" "$target" "$library"
  kill "$target"; wait "$target" 2>/dev/null || true
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

echo "| target | client | attach ms | CPU ms |"
echo "|---|---|---:|---:|"
for home in /usr/lib/jvm/*/; do
  [[ -x "$home/bin/java" && -f "$home/lib/libattach.so" && ! -L "${home%/}" ]] || continue
  : >"$work/jdk"; : >"$work/own"
  for ((i = 1; i <= rounds; i++)); do
    if ((i % 2)); then order="jdk own"; else order="own jdk"; fi
    for client in $order; do once "$home/bin/java" "$client" >>"$work/$client"; done
  done
  for client in jdk own; do
    echo "| $(basename "$home") | $client | $(cut -d' ' -f1 "$work/$client" | median) | $(cut -d' ' -f2 "$work/$client" | median) |"
  done
done
