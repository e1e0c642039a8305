#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for TestSlurmJobArray
# (cmd/llpfc/sbatch_test.go): Debian's slurm-wlm and munge (.ci/run installs them),
# a minimal slurm.conf in a directory of its own, munged, slurmctld and slurmd.
#
#   scripts/slurm-cluster.sh up DIR CTLD_PORT SLURMD_PORT [WATCH_PID]
#       writes DIR/slurm.conf (this host, its cores, 80 % of its memory; state, spool,
#       logs and pid files under DIR), starts munged unless one answers, then slurmctld
#       and slurmd, and waits until the node is idle. Commands reach the cluster with
#       SLURM_CONF=DIR/slurm.conf. With WATCH_PID, a watchdog takes the cluster down
#       when that process ends, however it ends (a test binary killed on a timeout
#       runs no cleanup). A failed start takes down what it started.
#   scripts/slurm-cluster.sh down DIR
#       stops slurmd, slurmctld and the munged that 'up' started (not one it found).
#
# Needs root (the daemons run as root: SlurmUser=root). Exit status 0 when the
# cluster is up (or down); otherwise 1 with the daemons' log tails on stderr.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 up DIR CTLD_PORT SLURMD_PORT [WATCH_PID] | down DIR" >&2
  exit 2
fi

stop_pidfile() { # stop_pidfile FILE: TERM the process, then KILL after 5 s
  local f=$1 pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null || true)
  rm -f "$f"
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

down() {
  # Jobs first, so that no task outlives the cluster.
  if [ -f "$dir/slurm.conf" ] && command -v scancel >/dev/null; then
    SLURM_CONF="$dir/slurm.conf" timeout 5 scancel --quiet --full --user "$(id -un)" 2>/dev/null || true
  fi
  stop_pidfile "$dir/slurmd.pid"
  stop_pidfile "$dir/slurmctld.pid"
  if [ -f "$dir/munged.ours" ]; then
    stop_pidfile /run/munge/munged.pid
    rm -f "$dir/munged.ours"
  fi
}

case "$cmd" in
down)
  down
  exit 0
  ;;
up) ;;
*)
  echo "$0: unknown command $cmd (want up or down)" >&2
  exit 2
  ;;
esac

ctld_port=${3:?CTLD_PORT}
slurmd_port=${4:?SLURMD_PORT}
watch=${5:-}

fail() {
  echo "slurm-cluster: $*" >&2
  for f in "$dir"/log/*.log; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }
  done
  down
  exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (the daemons run as SlurmUser=root)"
for b in munged munge slurmctld slurmd sinfo sbatch; do
  command -v "$b" >/dev/null || fail "$b not found: apt-get install slurm-wlm munge"
done
mkdir -p "$dir/state" "$dir/spool" "$dir/log"
host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)

cat >"$dir/slurm.conf" <<EOF
# A single-node cluster for llpfc's Slurm test (scripts/slurm-cluster.sh).
ClusterName=llpfctest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"

# munge: reuse a running daemon, else start one (Debian's package creates the key).
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
  [ -f /etc/munge/munge.key ] || fail "/etc/munge/munge.key missing (reinstall munge, or run mungekey)"
  munged --force --num-threads=4 </dev/null >/dev/null 2>&1 || fail "munged did not start"
  touch "$dir/munged.ours"
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null 2>&1 || fail "munged does not answer"
fi

slurmctld -f "$SLURM_CONF" </dev/null >/dev/null 2>&1 || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N "$host" </dev/null >/dev/null 2>&1 || fail "slurmd did not start"

if [ -n "$watch" ]; then
  # The watchdog: its own session, no inherited output (a caller that reads
  # this script's output must not wait for it).
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec "$2" down "$3"' _ "$watch" "$0" "$dir" \
    </dev/null >/dev/null 2>&1 &
fi

for _ in $(seq 300); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  [ "$state" = idle ] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.1
done
fail "the node did not become idle in 30 s (state: ${state:-none})"
