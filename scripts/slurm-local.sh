#!/usr/bin/env bash
# slurm-local.sh: a real one-node Slurm cluster on localhost, for tests and
# for trying the slurm/ batch scripts without a cluster.
#
#   scripts/slurm-local.sh start  [STATE_DIR]   start (or reuse) the cluster
#   scripts/slurm-local.sh status [STATE_DIR]   what runs; exit 0 iff the node is up
#   scripts/slurm-local.sh stop   [STATE_DIR]   cancel jobs, stop what start started
#   scripts/slurm-local.sh env    [STATE_DIR]   print "export SLURM_CONF=..."
#
# STATE_DIR (default $STARZK_SLURM_STATE or /tmp/starzk-slurm) receives
# slurm.conf, gres.conf, the controller state, the spool, pid files and logs.
# Every Slurm client must then be pointed at it: export SLURM_CONF=STATE_DIR/slurm.conf
# (or eval "$(scripts/slurm-local.sh env STATE_DIR)").
#
# The settings follow what works with Debian 12's slurm-wlm 22.05 and munge
# 0.5.15 on a machine without systemd or cgroups (docs/slurm.md):
#   - munged runs as the munge user on its default socket; a munged that
#     already answers is reused and never stopped by us;
#   - the node is `hostname -s` at 127.0.0.1 with the CPUs and RealMemory
#     that `slurmd -C` reports (a larger RealMemory leaves the node INVAL);
#   - STARZK_SLURM_GPUS (default 1) fake GPUs, gres File=/dev/null, so that
#     scripts asking for --gres=gpu:N run and see CUDA_VISIBLE_DEVICES;
#   - start order munged -> slurmctld -c (clean state) -> slurmd, then wait
#     until the node is idle; stop order: scancel, slurmd, slurmctld, munged,
#     each by the PID in its pid file after checking /proc/PID/comm.
# Ports 6817/6818 are fixed, so one such cluster runs at a time: start refuses
# clearly when a Slurm daemon it did not start is running.
#
# Needs root (slurmd runs as root; munged is started through runuser).
# Exit codes: 0 ok, 1 error, 2 usage, 3 Slurm or munge is not installed.
set -euo pipefail

cmd=${1:-}
state=${2:-${STARZK_SLURM_STATE:-/tmp/starzk-slurm}}
conf="$state/slurm.conf"
host=$(hostname -s)
gpus=${STARZK_SLURM_GPUS:-1}
start_timeout=${STARZK_SLURM_START_TIMEOUT:-30}

say() { printf '[slurm-local] %s\n' "$*"; }
die() { printf '[slurm-local] error: %s\n' "$*" >&2; exit "${2:-1}"; }

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# ---- process helpers ----------------------------------------------------------

# pid_alive FILE NAME: the PID in FILE names a live process whose comm is NAME.
pid_alive() {
  local file=$1 name=$2 pid
  [ -r "$file" ] || return 1
  pid=$(tr -dc '0-9' <"$file")
  [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = "$name" ]
}

# pids_named NAME: every live process whose comm is exactly NAME (read only;
# used to report, never to kill).
pids_named() {
  local d c
  for d in /proc/[0-9]*; do
    read -r c <"$d/comm" 2>/dev/null || continue
    [ "$c" = "$1" ] && printf '%s ' "${d#/proc/}"
  done
  return 0
}

# stop_pidfile FILE NAME: SIGTERM the process of FILE if it is NAME, wait up
# to 10 s, then SIGKILL. Removes FILE.
stop_pidfile() {
  local file=$1 name=$2 pid _
  if ! pid_alive "$file" "$name"; then rm -f "$file"; return 0; fi
  pid=$(tr -dc '0-9' <"$file")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    [ -d "/proc/$pid" ] || break
    sleep 0.1
  done
  if [ -d "/proc/$pid" ]; then
    say "$name ($pid) ignored SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
  say "stopped $name ($pid)"
}

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

node_state() { SLURM_CONF="$conf" sinfo -h -n "$host" -o %T 2>/dev/null | head -n1; }

# ---- configuration --------------------------------------------------------------

write_config() {
  local node cpus mem
  # slurmd -C prints "NodeName=h CPUs=.. Boards=.. SocketsPerBoard=.. ... RealMemory=..".
  node=$(slurmd -C 2>/dev/null | head -n1) || true
  [[ $node == NodeName=* ]] || die "slurmd -C printed no node line: cannot size the node"
  cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node")
  mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
  node=${node#NodeName=* }   # everything after the name: CPUs= ... RealMemory=
  mkdir -p "$state/ctld" "$state/spool"
  cat >"$conf.tmp" <<EOF
# Written by scripts/slurm-local.sh: a one-node test cluster on localhost.
ClusterName=starzk-local
SlurmctldHost=localhost
SlurmctldPort=6817
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# A requeued job waits cred_expire seconds before it may start again (120 by
# default; started sooner, slurmd refuses it: "Job credential revoked").
AuthInfo=cred_expire=10
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerParameters=batch_sched_delay=0
MinJobAge=600
KillWait=5
InactiveLimit=0
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 $node Gres=gpu:$gpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  mv -f "$conf.tmp" "$conf"
  : >"$state/gres.conf"
  local _
  for _ in $(seq "$gpus"); do
    echo "NodeName=$host Name=gpu File=/dev/null" >>"$state/gres.conf"
  done
  say "wrote $conf ($host: $cpus CPUs, $mem MB, $gpus fake GPU(s))"
}

# ---- commands -------------------------------------------------------------------

start_munged() {
  if munge_ok; then
    say "munged already answers: reusing it"
    return 0
  fi
  id munge >/dev/null 2>&1 || die "no munge user: is munge installed? (apt-get install munge)" 3
  [ -r /etc/munge/munge.key ] || die "/etc/munge/munge.key is missing (reinstall munge or run mungekey as munge)"
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  chmod 755 /run/munge
  rm -f /run/munge/munged.pid
  runuser -u munge -- /usr/sbin/munged >"$state/munged.start.log" 2>&1 \
    || die "munged did not start: $(tail -n3 "$state/munged.start.log" /var/log/munge/munged.log 2>/dev/null | tr '\n' ' ')"
  local _
  for _ in $(seq 50); do munge_ok && break; sleep 0.1; done
  munge_ok || die "munged started but 'munge -n | unmunge' fails"
  # Remember that this munged is ours, by PID, so that stop ends it and nothing else.
  cp /run/munge/munged.pid "$state/munged.pid"
  say "started munged ($(cat "$state/munged.pid"))"
}

do_start() {
  [ "$(id -u)" = 0 ] || die "must run as root (slurmd runs as root, munged through runuser)"
  local b
  for b in slurmctld slurmd munged munge unmunge sinfo scontrol; do
    command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || die "$b not found: apt-get install slurm-wlm munge" 3
  done
  export PATH="$PATH:/usr/sbin"
  mkdir -p "$state"
  state=$(cd "$state" && pwd)
  conf="$state/slurm.conf"

  if pid_alive "$state/slurmctld.pid" slurmctld && pid_alive "$state/slurmd.pid" slurmd; then
    say "already running from $state"
  else
    # Ports are fixed: a controller or slurmd we did not start means another cluster.
    local others="" ours="" p
    pid_alive "$state/slurmctld.pid" slurmctld && ours+=" $(tr -dc '0-9' <"$state/slurmctld.pid")"
    pid_alive "$state/slurmd.pid" slurmd && ours+=" $(tr -dc '0-9' <"$state/slurmd.pid")"
    for p in $(pids_named slurmctld) $(pids_named slurmd); do
      [[ " $ours " == *" $p "* ]] || others+="${others:+ }$p"
    done
    [ -z "$others" ] || die "another Slurm daemon is running (pid $others), not started from $state; ports 6817/6818 allow one cluster at a time"
    write_config
    start_munged
    export SLURM_CONF="$conf"
    if ! pid_alive "$state/slurmctld.pid" slurmctld; then
      slurmctld -c -f "$conf" >"$state/slurmctld.start.log" 2>&1 \
        || die "slurmctld did not start: $(tail -n5 "$state/slurmctld.start.log" "$state/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
    fi
    if ! pid_alive "$state/slurmd.pid" slurmd; then
      slurmd -f "$conf" >"$state/slurmd.start.log" 2>&1 \
        || die "slurmd did not start: $(tail -n5 "$state/slurmd.start.log" "$state/slurmd.log" 2>/dev/null | tr '\n' ' ')"
    fi
  fi

  # Wait until the node is idle (or already running jobs).
  local t0=$SECONDS s=""
  while [ $((SECONDS - t0)) -lt "$start_timeout" ]; do
    s=$(node_state)
    case $s in idle*|mixed*|allocated*) say "node $host is $s (SLURM_CONF=$conf)"; return 0 ;; esac
    sleep 0.2
  done
  die "node $host did not become idle in ${start_timeout}s (state '${s:-unknown}'); see $state/slurmctld.log and $state/slurmd.log"
}

do_stop() {
  export PATH="$PATH:/usr/sbin"
  if [ ! -d "$state" ]; then say "nothing to stop ($state does not exist)"; return 0; fi
  if pid_alive "$state/slurmctld.pid" slurmctld; then
    # No cgroups: nothing else would end the jobs' processes.
    SLURM_CONF="$conf" scancel --user="$(id -un)" 2>/dev/null || true
    local _
    for _ in $(seq 50); do
      [ -z "$(SLURM_CONF="$conf" squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  stop_pidfile "$state/slurmd.pid" slurmd
  stop_pidfile "$state/slurmctld.pid" slurmctld
  # munged only if we started it (its PID was copied into the state folder).
  if [ -f "$state/munged.pid" ]; then
    stop_pidfile "$state/munged.pid" munged
  fi
}

do_status() {
  local rc=0 s
  if pid_alive "$state/slurmctld.pid" slurmctld; then say "slurmctld: running ($(cat "$state/slurmctld.pid"))"
  else say "slurmctld: not running"; rc=1; fi
  if pid_alive "$state/slurmd.pid" slurmd; then say "slurmd: running ($(cat "$state/slurmd.pid"))"
  else say "slurmd: not running"; rc=1; fi
  if munge_ok; then
    if [ -f "$state/munged.pid" ]; then say "munged: running ($(cat "$state/munged.pid"), ours)"
    else say "munged: running (not started by slurm-local.sh)"; fi
  else say "munged: not answering"; rc=1; fi
  if [ $rc = 0 ]; then
    s=$(node_state)
    say "node $host: ${s:-unknown}"
    case $s in idle*|mixed*|allocated*) ;; *) rc=1 ;; esac
  fi
  return $rc
}

case $cmd in
  start) do_start ;;
  stop) do_stop ;;
  status) do_status ;;
  env) echo "export SLURM_CONF=$(cd "$state" 2>/dev/null && pwd || echo "$state")/slurm.conf" ;;
  *) usage ;;
esac
