#!/usr/bin/env bash
# Issue 9, acceptance 2: a scratch Maven project outside the repository depends on the installed
# io.iwarp4j:verbs-api artifact, and the key-value example's client runs against its server on
# the class path and on the module path. Before that, the minimal consumer pom
# (docs/examples/consumer) builds and its first program runs. ScratchProjectIT runs this script; it also runs alone:
#
#   src-it/scratch/run-scratch.sh [work-dir]        (default: a new temporary directory)
#
# Environment: MAVEN_OFFLINE=true adds -o to every Maven run; MAVEN_REPO_LOCAL sets
# -Dmaven.repo.local (default: Maven's own, ~/.m2/repository); JAVA_HOME picks the JDK;
# IWARP4J_CHECKOUT is the checkout to install (default: the one holding this script);
# JAVA_OPTS goes to every java command (e.g. --add-modules ALL-MODULE-PATH for automatic modules).
# Takes 1-3 minutes, most of it compiling the library once more.
set -euo pipefail

checkout=${IWARP4J_CHECKOUT:-$(cd "$(dirname "$0")/../.." && pwd)}
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/iwarp4j-scratch.XXXXXX")}
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
mvn_opts=(-B -q)
[ "${MAVEN_OFFLINE:-false}" = true ] && mvn_opts+=(-o)
[ -n "${MAVEN_REPO_LOCAL:-}" ] && mvn_opts+=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")
read -r -a java_opts <<< "${JAVA_OPTS:-}"
server_pid=

step() { echo "[scratch] $*"; }
fail() { echo "[scratch] FAILED: $*" >&2; exit 1; }
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
trap stop_server EXIT

case "$work/" in
  "$checkout"/*) fail "the work directory $work must be outside the checkout $checkout" ;;
esac
mkdir -p "$work"

# 1. Install verbs-api and what it depends on. From a copy, so that the checkout's target/
#    directories, which a running build may be using, stay untouched.
step "installing io.iwarp4j:verbs-api from $checkout"
mkdir -p "$work/iwarp4j"
tar -C "$checkout" --exclude=.git --exclude=target -cf - . | tar -C "$work/iwarp4j" -xf -
(cd "$work/iwarp4j" && mvn "${mvn_opts[@]}" install -pl verbs-api -am -DskipTests \
  -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)

# 2. The minimal consumer pom (README, "Add it as a dependency"): a stock Maven builds it, and its
#    first program runs with the dependencies Maven resolved.
step "building the minimal consumer in $work/consumer"
rm -rf "$work/consumer"
cp -r "$checkout/docs/examples/consumer" "$work/consumer"
rm -rf "$work/consumer/target"
# The README's example, pasted as a user would: its imports at the top of a source file of the
# consumer project, its statements as the body of main. It must compile there and run.
readme_block=$(awk '/^```java$/ {on=1; next} on && /^```$/ {exit} on' "$checkout/README.md")
[ -n "$readme_block" ] || fail "README.md has no java block"
{
  echo "package com.example;"
  printf '%s\n' "$readme_block" | grep '^import '
  echo "public final class ReadmeExample {"
  echo "  public static void main(String[] args) throws Exception {"
  printf '%s\n' "$readme_block" | grep -v '^import '
  echo '    System.out.println(n + " " + wc[0].status() + " " + readBack);'
  echo "  }"
  echo "}"
} > "$work/consumer/src/main/java/com/example/ReadmeExample.java"
(cd "$work/consumer" && mvn "${mvn_opts[@]}" package \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath -Dmdep.outputFile=cp.txt \
  && "$java" "${java_opts[@]}" -cp "target/classes:$(cat cp.txt)" com.example.Hello > hello.out)
grep -Eq '^iwarp4j device .* on (EPOLL|NIO)$' "$work/consumer/hello.out" \
  || fail "the consumer's Hello printed: $(cat "$work/consumer/hello.out")"
(cd "$work/consumer" && "$java" "${java_opts[@]}" -cp "target/classes:$(cat cp.txt)" \
  com.example.ReadmeExample > readme.out)
grep -Eq '^1 SUCCESS hello$' "$work/consumer/readme.out" \
  || fail "the README example in the consumer project printed: $(cat "$work/consumer/readme.out")"

# 3. The example as a user gets it: its directory alone, built against the installed artifact.
step "building the example in $work/kvstore"
rm -rf "$work/kvstore"
cp -r "$checkout/docs/examples/kvstore" "$work/kvstore"
rm -rf "$work/kvstore/target"
cd "$work/kvstore"
mvn "${mvn_opts[@]}" package
jar=$(ls target/iwarp4j-example-kvstore-*.jar)
[ -f target/lib/verbs-api-*.jar ] || fail "target/lib has no verbs-api jar: $(ls target/lib)"

# 4. Server and clients, on the class path and on the module path.
expect() { # file, then the lines it must hold, in order (regular expressions, whole lines)
  local file=$1; shift
  local got; got=$(grep -v '^\[' "$file" || true) # slf4j-simple's lines start with [thread]
  local want; want=$(printf '%s\n' "$@")
  local n=0
  while IFS= read -r pattern; do
    n=$((n + 1))
    local line; line=$(printf '%s\n' "$got" | sed -n "${n}p")
    [[ "$line" =~ ^${pattern}$ ]] || fail "$file line $n is '$line', expected /$pattern/; all of it:
$(cat "$file")"
  done <<< "$want"
}

run() { # class-path or module-path
  local mode=$1 main=io.iwarp4j.example.kvstore
  local -a server client
  if [ "$mode" = class-path ]; then
    server=("${java_opts[@]}" -cp "$jar:target/lib/*" "$main.KvServerMain")
    client=("${java_opts[@]}" -cp "$jar:target/lib/*" "$main.KvClientMain")
  else
    server=("${java_opts[@]}" -p "$jar:target/lib" -m "$main/$main.KvServerMain")
    client=("${java_opts[@]}" -p "$jar:target/lib" -m "$main/$main.KvClientMain")
  fi
  step "$mode: starting the server"
  "$java" "${server[@]}" 0 64 > "$mode-server.out" 2> "$mode-server.err" &
  server_pid=$!
  local port=
  for _ in $(seq 1 300); do
    port=$(sed -n 's/^kvstore listening on port \([0-9]*\) .*/\1/p' "$mode-server.out")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || fail "$mode: the server exited: $(cat "$mode-server.err")"
    sleep 0.2
  done
  [ -n "$port" ] || fail "$mode: the server did not listen within 60 s"
  step "$mode: two clients against port $port"
  "$java" "${client[@]}" 127.0.0.1 "$port" put color blue get color put color "dark red" \
    get color get shape incr incr > "$mode-client1.out" 2> "$mode-client1.err" \
    || fail "$mode: client 1 failed: $(cat "$mode-client1.err")"
  "$java" "${client[@]}" 127.0.0.1 "$port" get color incr > "$mode-client2.out" \
    2> "$mode-client2.err" || fail "$mode: client 2 failed: $(cat "$mode-client2.err")"
  stop_server
  expect "$mode-client1.out" 'put color = blue \(slot [0-9]+\)' 'get color = blue' \
    'put color = dark red \(slot [0-9]+\)' 'get color = dark red' 'get shape = \(not found\)' \
    'incr = 1' 'incr = 2'
  expect "$mode-client2.out" 'get color = dark red' 'incr = 3'
  expect "$mode-server.out" 'kvstore listening on port [0-9]+ with 64 slots' \
    'put slot [0-9]+: color' 'put slot [0-9]+: color' 'stopped; counter = 3'
  step "$mode: OK"
}

run class-path
run module-path
step "all OK (work directory $work)"
