#!/usr/bin/env bash
# exsim run and exsim agent as a user meets them: a run over agent processes
# on loopback, agents given by a hosts file, a wrong token refused, and an agent
# killed mid-run failing the run within its deadline. Usage: run_test.sh EXSIM SOURCE_DIR
set -u
source "$(dirname "$0")/checks.sh"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
scenario=$src/tests/data/run/three-hosts.json

# 1. Agents started by run itself.
timeout 120 "$exsim" run "$scenario" --json "$work/run.json" >"$work/out" 2>"$work/err"
code=$?
check "run exits 0" test "$code" -eq 0
[ "$code" -ne 0 ] && sed 's/^/  stderr: /' "$work/err" | head -5
check "run prints both policies" has "64K-2" "$work/out"
check "results are measured" has '"source": "measured"' "$work/run.json"
check "hash rows, both policies" test "$(grep -c '"rows": 120000' "$work/run.json")" -eq 2
check "broadcast rows to 3 hosts" test "$(grep -c '"rows": 24000' "$work/run.json")" -eq 2
check "random rows" test "$(grep -c '"rows": 20000' "$work/run.json")" -eq 2
check "merge rows" test "$(grep -c '"rows": 10000' "$work/run.json")" -eq 2
check "agents' RSS reported" has '"rss_peak_bytes"' "$work/run.json"
check "achieved LZ4 ratio reported" has '"lz4_ratio"' "$work/run.json"
check "achieved RTT reported beside the nominal one" has '"achieved"' "$work/run.json"
# Each exchange's largest sender instance at its peak: some buffer, and never
# more than the host that holds it at its own peak (which adds its instances).
check "largest sender instance's peak measured, within its host's" python3 -c "
import json
for r in json.load(open('$work/run.json')):
    host_peak = max(h['sender_peak_bytes'] for h in r['hosts'])
    for x in r['exchanges']:
        assert 0 < x['sender_instance_peak_bytes'] <= host_peak, (x['id'], x.get('sender_instance_peak_bytes'), host_peak)
"
# Delay lines never release a frame early: every round trip measured is at least
# its nominal RTT, and every host pair with calls both ways has one (all 9 here:
# an agent that stops first must not take its calls' delays out of another's report).
check "achieved RTTs measured, none below nominal" python3 -c "
import json
for r in json.load(open('$work/run.json')):
    nom, ach = r['rtt_ms']['nominal'], r['rtt_ms']['achieved']
    measured = [(a, n) for ra, rn in zip(ach, nom) for a, n in zip(ra, rn) if a >= 0]
    assert len(measured) == 9, measured
    assert all(a >= 0.99 * n for a, n in measured), measured
"
# What bounded each exchange, measured: the six parts of its sender threads' time, none
# negative, the largest named, in all no more than its 6 senders' whole exchange (timer slack 20%).
check "bound by measured" python3 -c "
import json
names = {'producer', 'sender_cpu', 'round_trips', 'nic', 'receiver', 'consumer'}
for r in json.load(open('$work/run.json')):
    for x in r['exchanges']:
        t = x['sender_time_s']
        assert set(t) == names and min(t.values()) >= 0, t
        assert x['bound_by'] == max(t, key=t.get), x
        assert 0 < sum(t.values()) <= 1.2 * 6 * x['wall_s'], x
"
check "RPC CPU measured" test "$(grep -c '"rpc": 0.0,' "$work/run.json")" -eq 0
# The senders' own part of their calls (handing each to a reactor) apart from
# the reactors': some, and less than the rest of both sides.
check "calls' CPU on the sender threads measured apart" python3 -c "
import json
for r in json.load(open('$work/run.json')):
    c = r['cpu_s']
    assert 0 < c['call'] < c['rpc'], c
"
# Each exchange's own network and receiver times (a sender's RpcNetworkTime and
# RpcRecvrTime, as Impala's profile gives them): present wherever calls went,
# and together, weighted by their calls, the run's means (histograms: 3%).
check "network and receiver times per exchange" python3 -c "
import json
for r in json.load(open('$work/run.json')):
    xs = [x for x in r['exchanges'] if x['rpcs'] > 0]
    assert xs and all(x['rpc_network_us_mean'] > 0 and x['rpc_receiver_us_mean'] > 0 for x in xs), xs
    for key, total in (('rpc_network_us_mean', 'rpc_network_us'), ('rpc_receiver_us_mean', 'rpc_receiver_us')):
        mean = sum(x[key] * x['rpcs'] for x in xs) / sum(x['rpcs'] for x in xs)
        assert abs(mean / r[total]['mean'] - 1) < 0.03, (key, mean, r[total])
"
check "no agent left behind" test -z "$(pgrep -f "exsim agent --listen 127.0.0.1:0 --token-file /tmp/exsim-token" || true)"

# 2. Agents started by hand, given by a hosts file; then a wrong token.
"$exsim" agent --new-token-file "$work/token" >/dev/null
check "a new token file: private" test "$(stat -c %a "$work/token")" = 600
# Starts three agents with the token, an idle timeout of $2 s, and lists them
# in the hosts file $1; agent i's output goes to $1.i.
start_agents() {
  : >"$1"
  for h in 0 1 2; do
    "$exsim" agent --listen 127.0.0.1:0 --token-file "$work/token" --idle-timeout "$2" >"$1.$h" 2>&1 &
    pids+=($!)
    for _ in $(seq 50); do grep -q listening "$1.$h" && break; sleep 0.1; done
    sed -n 's/^listening //p' "$1.$h" >>"$1"
  done
}
start_agents "$work/hosts" 60
check "three agents listening" test "$(wc -l <"$work/hosts")" -eq 3
timeout 120 "$exsim" run "$scenario" --policy 16K --hosts "$work/hosts" --token-file "$work/token" >"$work/out2" 2>"$work/err2"
check "run with --hosts exits 0" test $? -eq 0
check "run with --hosts prints a row" has "16K" "$work/out2"

start_agents "$work/more-hosts" 60
"$exsim" agent --new-token-file "$work/wrong" >/dev/null
timeout 60 "$exsim" run "$scenario" --policy 16K --hosts "$work/more-hosts" --token-file "$work/wrong" >/dev/null 2>"$work/err3"
code=$?
check "a wrong token fails the run" test "$code" -ne 0 -a "$code" -ne 124
check "the refusal is named" grep -qE "agent h[0-2] at 127.0.0.1:[0-9]+: .*(closed|refused)" "$work/err3"
# The coordinator tries its agents one at a time (by address): the first one refuses it.
check "the coordinator says the agent could not prove the token" grep -q "could not prove it holds the token" "$work/err3"
for _ in $(seq 30); do cat "$work"/more-hosts.? | grep -q "refused" && break; sleep 0.1; done
check "the agent says it refused" grep -q "a connection refused: the peer left the handshake" "$work"/more-hosts.?
# The refused agents still serve a coordinator with the right token.
timeout 120 "$exsim" run "$scenario" --policy 16K --hosts "$work/more-hosts" --token-file "$work/token" >/dev/null 2>"$work/err5"
check "after refusing a wrong token, agents serve the right one" test $? -eq 0

# 3. An agent killed mid-run: the run fails, naming it, long before its deadline.
slow_set="workload.queries.0.exchanges.0.consume_rows_per_s=20000"
# Runs of about a second (the consumers paced), where start-up noise must not decide.
paced="workload.queries.0.exchanges.0.consume_rows_per_s=60000"
start=$(date +%s)
"$exsim" run "$scenario" --policy 16K --set "$slow_set" --timeout 30 >/dev/null 2>"$work/err4" &
run_pid=$!
victim=""
for _ in $(seq 100); do
  victim=$(pgrep -P "$run_pid" | head -1)  # the agents are the run's children
  [ -n "$victim" ] && break
  sleep 0.05
done
sleep 1
check "found an agent to kill" test -n "$victim"
[ -n "$victim" ] && kill -9 "$victim"
# Bounded: the run must end by itself well before this.
for _ in $(seq 600); do kill -0 "$run_pid" 2>/dev/null || break; sleep 0.1; done
kill -9 "$run_pid" 2>/dev/null
wait "$run_pid"
code=$?
elapsed=$(( $(date +%s) - start ))
check "the run fails" test "$code" -eq 3
check "the dead agent is named" grep -qE "agent h[0-9] \(pid $victim\)|pid $victim" "$work/err4"
check "within its deadline" test "$elapsed" -lt 30
[ "$code" -ne 3 ] && sed 's/^/  stderr: /' "$work/err4" | head -5

# 4. An agent stopped mid-run (it never handles SIGTERM): the run still ends,
# past its exchange deadline, and kills the agent rather than wait for it.
start=$(date +%s)
tokens_before=$(ls /tmp/exsim-token-* 2>/dev/null | wc -l)
"$exsim" run "$scenario" --policy 16K --set "$slow_set" --timeout 4 >/dev/null 2>"$work/err6" &
run_pid=$!
stopped=""
for _ in $(seq 100); do
  stopped=$(pgrep -P "$run_pid" | head -1)
  [ -n "$stopped" ] && break
  sleep 0.05
done
sleep 1
check "found an agent to stop" test -n "$stopped"
[ -n "$stopped" ] && kill -STOP "$stopped"
# Every wait of the coordinator is bounded (30 s for an agent's setup, 60 s for
# its preparing an exchange, the exchange's --timeout), whichever it is in when
# the agent stops; sanitized builds start agents slowly enough to meet each.
for _ in $(seq 1000); do kill -0 "$run_pid" 2>/dev/null || break; sleep 0.1; done
ended=0
kill -0 "$run_pid" 2>/dev/null || ended=1
kill -9 "$run_pid" 2>/dev/null
wait "$run_pid"
code=$?
elapsed=$(( $(date +%s) - start ))
check "a stopped agent: the run ends by itself" test "$ended" -eq 1
check "a stopped agent: named as silent" grep -qE "agent h[0-9] \(pid $stopped\) is lost, its control connection silent for" "$work/err6"
check "a stopped agent: found by its silence, within seconds ($elapsed s)" test "$elapsed" -lt 20
check "a stopped agent: the run fails" test "$code" -eq 3
check "a stopped agent: within the coordinator's deadlines and teardown" test "$elapsed" -lt 90
check "a stopped agent: killed, not left stopped" test -z "$(ps -o stat= -p "$stopped" 2>/dev/null | grep T || true)"
[ -n "$stopped" ] && kill -9 "$stopped" 2>/dev/null

# 4a. An agent stopped for 2 s, under the 5 s its silence is allowed: the run
# completes, but its wall-clock has a cause the model knows nothing of: flagged
# unsteady, naming the host, in the results and on stderr. A run left alone is not.
"$exsim" run "$scenario" --policy 16K --set "$slow_set" --timeout 30 --json "$work/paused.json" >/dev/null 2>"$work/err6a" &
run_pid=$!
paused=""
for _ in $(seq 100); do [ "$(pgrep -P "$run_pid" | wc -l)" -ge 3 ] && break; sleep 0.05; done
sleep 1
paused=$(pgrep -P "$run_pid" | tail -1)
kill -STOP "$paused"; sleep 2; kill -CONT "$paused"
wait "$run_pid"
code=$?
check "an agent paused 2 s: the run completes" test "$code" -eq 0
check "an agent paused 2 s: unsteady, said on stderr" has "unsteady:" "$work/err6a"
check "an agent paused 2 s: the stall in the results, the host named" \
  python3 -c "
import json, sys
r = json.load(open('$work/paused.json'))[0]['longest_stall']
sys.exit(0 if r['unsteady'] and 1.5 < r['s'] < 3 and 'host h' in r['where'] else 1)"
[ "$code" -ne 0 ] && sed 's/^/  stderr: /' "$work/err6a" | head -5
check "a run left alone: no unsteady warning" hasnt "unsteady" "$work/err"
check "a run left alone: no stall of a second in its results" python3 -c "
import json, sys
sys.exit(0 if all(not r.get('longest_stall', {}).get('unsteady') for r in json.load(open('$work/run.json'))) else 1)"

# 4b. A coordinator stopped mid-run: its agents hear nothing and exit within seconds.
"$exsim" run "$scenario" --policy 16K --set "$slow_set" --timeout 30 >/dev/null 2>&1 &
run_pid=$!
for _ in $(seq 100); do [ "$(pgrep -P "$run_pid" | wc -l)" -ge 3 ] && break; sleep 0.05; done
orphans=$(pgrep -P "$run_pid" | tr '\n' ' ')
sleep 1
kill -STOP "$run_pid"
left=""
for _ in $(seq 150); do
  left=""
  for a in $orphans; do [ "$(ps -o stat= -p "$a" 2>/dev/null | tr -d ' ')" ] && ! ps -o stat= -p "$a" | grep -q Z && left="$left $a"; done
  [ -z "$left" ] && break
  sleep 0.1
done
check "a stopped coordinator: its agents ($orphans) exit within 15 s" test -z "$left"
kill -9 "$run_pid" 2>/dev/null
kill -CONT "$run_pid" 2>/dev/null
wait "$run_pid" 2>/dev/null

# 5. A run ended by a signal leaves no token file: it goes once the agents have read it.
"$exsim" run "$scenario" --policy 16K --set "$slow_set" --timeout 30 >/dev/null 2>&1 &
run_pid=$!
for _ in $(seq 100); do [ -n "$(pgrep -P "$run_pid")" ] && break; sleep 0.05; done
sleep 1.5
kill -INT "$run_pid"
wait "$run_pid"
check "SIGINT: no token file left" test "$(ls /tmp/exsim-token-* 2>/dev/null | wc -l)" -le "$tokens_before"

# 6. Agents whose idle timeout is shorter than an exchange: the exchange runs on.
start_agents "$work/idle-hosts" 1
start=$(date +%s)
timeout 120 "$exsim" run "$scenario" --policy 16K --set "workload.queries.0.exchanges.0.consume_rows_per_s=8000" \
  --hosts "$work/idle-hosts" --token-file "$work/token" >/dev/null 2>"$work/err7"
code=$?
elapsed=$(( $(date +%s) - start ))
check "an exchange longer than the agents' idle timeout completes" test "$code" -eq 0
check "... and it was longer" test "$elapsed" -ge 2
[ "$code" -ne 0 ] && sed 's/^/  stderr: /' "$work/err7" | head -5

# 7. Bad addresses: named by file and line, or by flag; exit 2.
printf '127.0.0.1:1\n127.0.0.1:abc\n127.0.0.1:99999\n' >"$work/bad-hosts"
"$exsim" run "$scenario" --hosts "$work/bad-hosts" --token-file "$work/token" >/dev/null 2>"$work/e8"
check "hosts file: a port that is not a number: exit 2" test $? -eq 2
check "hosts file: named by file and line" has "bad-hosts:2: '127.0.0.1:abc': the port must be a number from 1 to 65535" "$work/e8"
check "hosts file: every bad line named" has "bad-hosts:3: '127.0.0.1:99999'" "$work/e8"
"$exsim" run "$scenario" --hosts "$work" --token-file "$work/token" >/dev/null 2>"$work/e8d"
check "hosts file: a directory: exit 2" test $? -eq 2
check "hosts file: a directory: said" has "is a directory" "$work/e8d"
printf '127.0.0.1:70001\n' >"$work/bad-hosts"
"$exsim" run "$scenario" --hosts "$work/bad-hosts" --token-file "$work/token" >/dev/null 2>"$work/e9"
check "hosts file: a port past 65535: exit 2" test $? -eq 2
printf 'no-such-host.invalid:7000\n' >"$work/bad-hosts"
"$exsim" run "$scenario" --hosts "$work/bad-hosts" --token-file "$work/token" >/dev/null 2>"$work/e10"
check "hosts file: a host name: exit 2, said" has "host names are not resolved" "$work/e10"
timeout 10 "$exsim" agent --listen 127.0.0.1:70000 --token-file "$work/token" >/dev/null 2>"$work/e11"
check "agent --listen past 65535: exit 2" test $? -eq 2
check "agent --listen: named" has "--listen 127.0.0.1:70000: the port must be a number from 0 (any) to 65535" "$work/e11"

# 8. Idle connections to an agent's control port do not keep the coordinator out.
start_agents "$work/busy-hosts" 60
port0=$(head -1 "$work/busy-hosts" | sed 's/.*://')
python3 -c "
import socket, time
held = [socket.create_connection(('127.0.0.1', $port0)) for _ in range(4)]
open('$work/held', 'w').close()
time.sleep(40)
" &
pids+=($!)
for _ in $(seq 50); do [ -f "$work/held" ] && break; sleep 0.1; done
check "idle connections to an agent: held" test -f "$work/held"
start=$(date +%s)
timeout 60 "$exsim" run "$scenario" --policy 16K --hosts "$work/busy-hosts" --token-file "$work/token" >/dev/null \
  2>"$work/err12"
code=$?
elapsed=$(( $(date +%s) - start ))
check "idle connections to an agent: the run still succeeds" test "$code" -eq 0
check "idle connections to an agent: without waiting them out" test "$elapsed" -lt 10
[ "$code" -ne 0 ] && sed 's/^/  stderr: /' "$work/err12" | head -5

# 9. Two coordinators started together on the same agents, one listing them in
# reverse: one run gets every agent and succeeds, the other is refused, naming why.
# (Each taking the first agent of its own list would leave both holding some, and
# both failing.) Runs of about a second: with one core kept busy, a coordinator
# started beside a run of a fraction of one once reached the agents only after
# they had served the other and exited ("cannot connect"), refused for no
# coordinator of theirs.
start_agents "$work/shared-hosts" 60
tac "$work/shared-hosts" >"$work/shared-hosts-reversed"
timeout 120 "$exsim" run "$scenario" --policy 16K --set "$paced" --hosts "$work/shared-hosts" --token-file "$work/token" \
  >/dev/null 2>"$work/err13a" &
first=$!
timeout 120 "$exsim" run "$scenario" --policy 16K --set "$paced" --hosts "$work/shared-hosts-reversed" \
  --token-file "$work/token" >/dev/null 2>"$work/err13b" &
second=$!
wait "$first"; code_a=$?
wait "$second"; code_b=$?
check "two coordinators at once: exactly one succeeds" test $(( (code_a == 0) + (code_b == 0) )) -eq 1
check "two coordinators at once: the other is not a timeout" test "$code_a" -ne 124 -a "$code_b" -ne 124
refused_says_why() { grep -qE "another (coordinator|run)" "$work/err13a" "$work/err13b"; }
check "two coordinators at once: the refused one says why" refused_says_why
refused_says_why || sed 's/^/  stderr: /' "$work/err13a" "$work/err13b" | head -10

# 10. Hosts on CPUs of their own (--pin-hosts): every thread of each local agent
# runs on its share of the run's CPUs; too few CPUs for the hosts is a usage
# error; a hand-started agent takes --cpus.
pair=$src/scenarios/seeds/impala-1638.json  # two hosts
cpus=$(python3 -c "import os; print(' '.join(map(str, sorted(os.sched_getaffinity(0))[:2])))")
if [ "$(wc -w <<<"$cpus")" -ge 2 ]; then
  read -r c0 c1 <<<"$cpus"
  taskset -c "$c0,$c1" "$exsim" run "$pair" --policy two-in-flight --pin-hosts --no-delay-line --timeout 60 \
    --set "workload.queries.0.exchanges.0.rows=65536" --set "workload.queries.0.exchanges.0.consume_rows_per_s=20000" \
    --json "$work/pinned.json" >"$work/out14" 2>"$work/err14" &
  run_pid=$!
  # Each agent pins itself before it reports its port: poll (5 s at most) until
  # both are up and every thread of each shows one CPU list, the two lists apart.
  apart() { [ "$(tr ' ' '\n' <<<"$1" | grep -c .)" -eq 2 ] && [ "$(tr ' ' '\n' <<<"$1" | sort -u | grep -c .)" -eq 2 ]; }
  seen=""
  for _ in $(seq 100); do
    now=""
    for a in $(pgrep -P "$run_pid"); do  # the agents are the run's children
      now="$now $(sed -n 's/^Cpus_allowed_list:\s*//p' /proc/"$a"/task/*/status 2>/dev/null | sort -u | tr '\n' ' ')"
    done
    [ -n "${now// /}" ] && seen=$now  # the last look at running agents, for the message
    apart "$seen" && break
    sleep 0.05
  done
  wait "$run_pid"
  code=$?
  check "--pin-hosts: the run succeeds" test "$code" -eq 0
  [ "$code" -ne 0 ] && sed 's/^/  stderr: /' "$work/err14" | head -5
  check "--pin-hosts: each agent's threads on one CPU, the two apart (seen:$seen)" apart "$seen"
  check "--pin-hosts: every row delivered" has '"rows": 65536' "$work/pinned.json"
  check "--pin-hosts: said in the table's title" has "each host on CPUs of its own" "$work/out14"
fi
taskset -c "${cpus%% *}" "$exsim" run "$pair" --pin-hosts >/dev/null 2>"$work/err15"
check "--pin-hosts on one CPU: a usage error" test $? -eq 2
check "--pin-hosts on one CPU: says what the hosts need" has "the scenario's 2 hosts need a CPU each; this process may use 1" "$work/err15"
"$exsim" run "$pair" --pin-hosts --hosts "$work/hosts" --token-file "$work/token" >/dev/null 2>"$work/err16"
check "--pin-hosts with --hosts: a usage error" test $? -eq 2
check "--pin-hosts with --hosts: names the agents' own flag" has "start remote agents with --cpus" "$work/err16"
"$exsim" agent --token-file "$work/token" --cpus 99999 >/dev/null 2>"$work/err17"
check "agent --cpus of a CPU it may not use: a usage error" test $? -eq 2
check "agent --cpus: the flag named" has "--cpus" "$work/err17"

# 11. A policy of Impala 4.3's sender layout is simulated only: the real exchange
# refuses it before any agent starts, naming the file and the JSON path.
python3 - "$scenario" "$work/v43.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for p in s["policies"].values():
    p["sender_layout"] = "v4.3"
json.dump(s, open(sys.argv[2], "w"))
PY
timeout 30 "$exsim" run "$work/v43.json" >"$work/out18" 2>"$work/err18"
check "sender_layout v4.3 on the real exchange: refused with exit 2" test $? -eq 2
check "sender_layout v4.3: the file and path named" grep -q "v43.json:/policies/.*/sender_layout: expected \"head\"" "$work/err18"
check "sender_layout v4.3: nothing written" test ! -s "$work/out18"
"$exsim" simulate "$work/v43.json" >/dev/null 2>&1
check "sender_layout v4.3: simulated as ever" test $? -eq 0

# 12. The token file: private and strong, or refused before anything listens.
cp "$work/token" "$work/open-token"; chmod 644 "$work/open-token"
timeout 10 "$exsim" agent --token-file "$work/open-token" >/dev/null 2>"$work/err19"
check "a token file readable by others: exit 2" test $? -eq 2
check "a token file readable by others: named, with the fix" has "mode 644 lets its group or others at the secret; 'chmod 600" "$work/err19"
printf 'short\n' >"$work/short-token"; chmod 600 "$work/short-token"
timeout 10 "$exsim" run "$scenario" --hosts "$work/hosts" --token-file "$work/short-token" >/dev/null 2>"$work/err20"
check "a weak token: exit 2" test $? -eq 2
check "a weak token: says so" has "carries at most" "$work/err20"

# 13. A listener that is not an agent learns nothing: the coordinator waits for
# its proof and sends neither the token nor the scenario.
python3 - "$work" <<'PY' &
import socket, sys, time
work = sys.argv[1]
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(8)
port = server.getsockname()[1]
with open(work + "/impostor-hosts", "w") as f:
    f.write("".join(f"127.0.0.1:{port}\n" for _ in range(3)))
server.settimeout(20)
got = b""
conns = []
try:
    end = time.time() + 15
    while time.time() < end and len(conns) < 3:
        conns.append(server.accept()[0])
    for c in conns:
        c.settimeout(1)
        # Answer like a listener without the token: an ack of the right size.
        c.sendall(b"EXFR" + bytes([1, 2, 0, 0]) + (64).to_bytes(4, "little") + bytes(20) + bytes(64))
    for c in conns:
        try:
            while True:
                b = c.recv(65536)
                if not b: break
                got += b
        except OSError:
            pass
finally:
    open(work + "/impostor-got", "wb").write(got)
PY
impostor=$!
for _ in $(seq 50); do [ -s "$work/impostor-hosts" ] && break; sleep 0.1; done
timeout 30 "$exsim" run "$scenario" --policy 16K --hosts "$work/impostor-hosts" --token-file "$work/token" >/dev/null 2>"$work/err21"
code=$?
wait "$impostor"
check "an impostor listener: the run fails" test "$code" -eq 3
check "an impostor listener: named, the proof refused" has "could not prove it holds the token" "$work/err21"
check "an impostor listener: got hellos" test -s "$work/impostor-got"
check "an impostor listener: no token in what it got" test "$(grep -caF "$(cat "$work/token")" "$work/impostor-got")" -eq 0
check "an impostor listener: no scenario in what it got" test "$(grep -caE 'setup|scenario|three-hosts' "$work/impostor-got")" -eq 0

# 14. Before a peer proves anything it can make an agent hold a few hundred
# bytes: 60 connections each sending a 16 MiB hello leave its peak RSS under 64 MiB,
# and it then serves its coordinator.
start_agents "$work/flood-hosts" 60
port0=$(head -1 "$work/flood-hosts" | sed 's/.*://')
agent0=$(pgrep -f "agent --listen 127.0.0.1:0 --token-file $work/token" | head -1)
python3 - "$port0" <<'PY'
import socket, sys, threading
port = int(sys.argv[1])
header = b"EXFR" + bytes([1, 1, 0, 0]) + (16 << 20).to_bytes(4, "little") + bytes(20)
def flood():
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(header + bytes(16 << 20))
    except OSError:
        pass  # closed at its header, as it should be
threads = [threading.Thread(target=flood) for _ in range(60)]
for t in threads: t.start()
for t in threads: t.join(30)
PY
peak_kb=$(sed -n 's/^VmHWM:\s*\([0-9]*\) kB/\1/p' /proc/"$agent0"/status 2>/dev/null)
echo "  measured: an agent's peak RSS after 60 x 16 MiB hellos: ${peak_kb:-?} kB"
check "60 x 16 MiB hellos: the agent's peak RSS under 64 MiB (${peak_kb:-?} kB)" test "${peak_kb:-999999}" -lt 65536
timeout 60 "$exsim" run "$scenario" --policy 16K --hosts "$work/flood-hosts" --token-file "$work/token" >/dev/null 2>"$work/err22"
check "60 x 16 MiB hellos: the agent then serves its coordinator" test $? -eq 0

# 15. 4000 idle connections to every agent's control port: a run within twice
# the time of the same run without them, measured here side by side (a run of
# about a second, so that start-up noise does not decide the ratio).
start_agents "$work/quiet-hosts" 60
t0=$(date +%s.%N)
timeout 60 "$exsim" run "$scenario" --policy 16K --set "$paced" --hosts "$work/quiet-hosts" --token-file "$work/token" \
  >/dev/null 2>"$work/err23"
check "the run without idle connections" test $? -eq 0
t1=$(date +%s.%N)
start_agents "$work/crowded-hosts" 60
python3 - "$work/crowded-hosts" "$work/crowded" <<'PY' &
import resource, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
ports = [int(l.rsplit(":", 1)[1]) for l in open(sys.argv[1]) if l.strip()]
held = []
for i in range(4000):
    try:
        held.append(socket.create_connection(("127.0.0.1", ports[i % len(ports)]), timeout=5))
    except OSError:
        pass
open(sys.argv[2], "w").write(str(len(held)))
time.sleep(60)
PY
pids+=($!)
for _ in $(seq 300); do [ -s "$work/crowded" ] && break; sleep 0.1; done
check "4000 idle connections: opened ($(cat "$work/crowded" 2>/dev/null))" test "$(cat "$work/crowded" 2>/dev/null || echo 0)" -ge 3900
t2=$(date +%s.%N)
timeout 60 "$exsim" run "$scenario" --policy 16K --set "$paced" --hosts "$work/crowded-hosts" --token-file "$work/token" \
  >/dev/null 2>"$work/err24"
code=$?
t3=$(date +%s.%N)
check "4000 idle connections: the run succeeds" test "$code" -eq 0
[ "$code" -ne 0 ] && sed 's/^/  stderr: /' "$work/err24" | head -5
ratio=$(python3 -c "print(round(($t3 - $t2) / ($t1 - $t0), 2))")
echo "  measured: a run beside 4000 idle connections: $ratio x the same run without ($(python3 -c "print(round($t1 - $t0, 2))") s)"
check "4000 idle connections: within 2x the run without ($ratio x)" python3 -c "import sys; sys.exit(0 if $ratio < 2 else 1)"

# 16. Agents that may not hold their cores awake (not root): the run goes on,
# and says which hosts' cores were not held and why, in its results too.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  unprivileged=$(mktemp -d)  # $work is root's alone: the agents' token goes where they can read it
  chmod 755 "$unprivileged"
  cp "$work/token" "$unprivileged/token"
  chown 65534 "$unprivileged/token"
  : >"$work/nobody-hosts"
  for h in 0 1 2; do
    setpriv --reuid=65534 --regid=65534 --clear-groups "$exsim" agent --listen 127.0.0.1:0 \
      --token-file "$unprivileged/token" --idle-timeout 60 >"$work/nobody.$h" 2>&1 &
    pids+=($!)
    for _ in $(seq 50); do grep -q listening "$work/nobody.$h" && break; sleep 0.1; done
    sed -n 's/^listening //p' "$work/nobody.$h" >>"$work/nobody-hosts"
  done
  timeout 60 "$exsim" run "$scenario" --policy 16K --hosts "$work/nobody-hosts" --token-file "$work/token" \
    --json "$work/nobody.json" >/dev/null 2>"$work/err25"
  check "agents not root: the run succeeds" test $? -eq 0
  check "agents not root: the cores not held, said with why" \
    grep -q "h0's cores not held awake (/dev/cpu_dma_latency: Permission denied (needs root))" "$work/err25"
  check "agents not root: each host's result says so" python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))
sys.exit(0 if all(h["cores_awake"].startswith("not held: /dev/cpu_dma_latency") for r in runs for h in r["hosts"]) else 1)' \
    "$work/nobody.json"
  rm -rf "$unprivileged"
else
  echo "SKIP: agents not root: needs root and setpriv to run agents as another user"
fi

summary
