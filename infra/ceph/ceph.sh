#!/usr/bin/env bash
# Floe's object store on one machine: a single-node Ceph cluster (mon, mgr, one
# bluestore OSD on a sparse file) and the RADOS Gateway in front of it. All
# state lives in one data folder (default <repo>/.data/ceph, env FLOE_CEPH_DIR);
# the machine's /etc/ceph and /var/lib/ceph are never used.
#
#   ceph.sh install | start | stop | status | restart-rgw | destroy
#
# See README.md next to this file and ../../../shared/TOOLCHAIN.md.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd -P)"

# ---------------------------------------------------------------- settings
DIR_INPUT="${FLOE_CEPH_DIR:-.data/ceph}"
case "$DIR_INPUT" in
  /*) DIR="$DIR_INPUT" ;;
  *) DIR="$REPO_ROOT/$DIR_INPUT" ;;
esac
DIR="${DIR%/}"

S3_PORT="${FLOE_S3_PORT:-7480}"
REGION="us-east-1"
ADMIN_UID="floe-admin"
ADMIN_CAPS="users=*;buckets=*;metadata=*;usage=*;roles=*;user-policy=*"
# IAM (roles, user policies) and STS are served by RGW's S3 frontend only when
# "iam" and "sts" are enabled next to "s3"; "admin" is the admin ops API.
RGW_APIS="s3, admin, sts, iam"
USAGE_TICK=5                      # seconds between usage-log flushes
PACKAGES=(ceph-mon ceph-mgr ceph-osd radosgw ceph-common)

CONF="$DIR/ceph.conf"
KEYRING="$DIR/ceph.keyring"
CLUSTER_ENV="$DIR/cluster.env"   # fsid, osd uuid, mon ports, sts key: fixed at bootstrap
RGW_STATE="$DIR/rgw.state"       # how the running radosgw was started
ADMIN_JSON="$DIR/admin.json"
LOG="$DIR/log"
RUN="$DIR/run"

export CEPH_CONF="$CONF"
export DEBIAN_FRONTEND=noninteractive
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

T0=$(date +%s.%N)
say() { printf '[ceph] %s\n' "$*"; }
die() { printf '[ceph] ERROR: %s\n' "$*" >&2; exit 1; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
is_port() { [[ "$1" =~ ^[0-9]+$ ]] && (( $1 >= 1 && $1 <= 65535 )); }

is_port "$S3_PORT" || die "FLOE_S3_PORT must be a port number (got '$S3_PORT')"

# Last lines of a log, for error messages.
tail_log() {
  local f="$1" n="${2:-25}"
  if [[ -s "$f" ]]; then
    printf '[ceph] --- last lines of %s ---\n' "$f" >&2
    tail -n "$n" "$f" >&2 || true
  fi
}

# `ceph` CLI with a short timeout so a dead mon never hangs us.
cephc() { timeout 20 ceph -c "$CONF" --connect-timeout 5 "$@"; }

# Is anything listening on 127.0.0.1:<port>?
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

rgw_answers() {
  local code
  code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$S3_PORT/" 2>/dev/null) || return 1
  [[ "$code" != "000" ]]
}

# ---------------------------------------------------------------- install
packages_missing() {
  local p missing=()
  for p in "${PACKAGES[@]}"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]]; then
      missing+=("$p")
    fi
  done
  # the script itself needs curl (HTTP checks, the signed S3 check)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  echo "${missing[*]:-}"
}

cmd_install() {
  local missing
  missing=$(packages_missing)
  [[ -z "$missing" ]] && return 0
  [[ $(id -u) -eq 0 ]] || die "Ceph packages missing ($missing); run as root to install them"
  local t
  t=$(date +%s.%N)
  say "installing Debian packages: $missing (apt-get update first)"
  apt-get update -qq >"/tmp/floe-ceph-apt.$$.log" 2>&1 || { cat "/tmp/floe-ceph-apt.$$.log" >&2; die "apt-get update failed"; }
  # shellcheck disable=SC2086
  if ! apt-get install -y -qq --no-install-recommends $missing >>"/tmp/floe-ceph-apt.$$.log" 2>&1; then
    tail -n 30 "/tmp/floe-ceph-apt.$$.log" >&2
    die "apt-get install failed"
  fi
  rm -f "/tmp/floe-ceph-apt.$$.log"
  missing=$(packages_missing)
  [[ -z "$missing" ]] || die "still missing after install: $missing"
  say "packages installed in $(elapsed "$t") s"
}

# ---------------------------------------------------------------- daemons
# name  -> binary, args
#   mon.a          ceph-mon -i a
#   mgr.x          ceph-mgr -i x
#   osd.0          ceph-osd -i 0
#   client.rgw.gw  radosgw -n client.rgw.gw
DAEMONS_START=(mon.a mgr.x osd.0 client.rgw.gw)
DAEMONS_STOP=(client.rgw.gw osd.0 mgr.x mon.a)
# Pacific's radosgw often never finishes a SIGTERM while a lifecycle worker is
# inside a bucket (RGWLC WorkQ::drain() waits for pool threads that already
# quit; its own 120 s alarm ends it). It keeps no state of its own, so after
# this grace it gets SIGKILL.
RGW_STOP_GRACE=6

daemon_bin() {
  case "$1" in
    mon.*) echo ceph-mon ;; mgr.*) echo ceph-mgr ;; osd.*) echo ceph-osd ;; client.rgw.*) echo radosgw ;;
    *) die "unknown daemon $1" ;;
  esac
}
pid_file() { echo "$RUN/$1.pid"; }

# Does <pid> belong to our <daemon> (right binary, our ceph.conf)?
pid_is() {
  local pid="$1" name="$2" cmd
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ "$cmd" == *"$(daemon_bin "$name")"* && "$cmd" == *" $CONF "* && "$cmd" == *"$(daemon_arg_id "$name")"* ]] || return 1
  # A time-shifted test gateway (start-shifted-rgw) shares the name but is never "the" radosgw.
  [[ "$cmd" != *shifted-rgw* ]]
}
daemon_arg_id() {
  case "$1" in
    client.*) echo "-n $1" ;;
    *) echo "-i ${1#*.}" ;;
  esac
}

# Pid of our running daemon, or nothing. Pid file first; a /proc scan finds
# daemons whose pid file is gone.
daemon_pid() {
  local name="$1" pf pid p
  pf=$(pid_file "$name")
  if [[ -s "$pf" ]]; then
    pid=$(tr -dc '0-9' <"$pf" 2>/dev/null || true)
    if pid_is "$pid" "$name"; then echo "$pid"; return 0; fi
  fi
  for p in $(grep -lsF -- "$CONF" /proc/[0-9]*/cmdline 2>/dev/null || true); do
    p=${p#/proc/}; p=${p%/cmdline}
    if pid_is "$p" "$name"; then echo "$p"; return 0; fi
  done
  return 0
}

start_daemon() {
  local name="$1"; shift
  local bin id
  bin=$(daemon_bin "$name")
  if [[ "$name" == client.* ]]; then id=(-n "$name"); else id=(-i "${name#*.}"); fi
  # No log rotation runs here: set a big log aside while its daemon is down.
  if [[ -f "$LOG/$name.log" ]] && (( $(stat -c %s "$LOG/$name.log") > 64 * 1024 * 1024 )); then
    mv -f "$LOG/$name.log" "$LOG/$name.log.old"
  fi
  # Daemons fork into the background themselves and write their pid file.
  # fd 9 is our lock: a daemon that inherited it would hold it forever.
  # A daemon that cannot reach the mon may sit in its parent for minutes: bound it.
  if ! timeout 120 "$bin" -c "$CONF" "${id[@]}" "$@" </dev/null >>"$LOG/$name.stdout" 2>&1 9>&-; then
    tail_log "$LOG/$name.stdout" 10
    tail_log "$LOG/$name.log"
    die "$bin ($name) failed to start"
  fi
}

# Stop one daemon: SIGTERM, wait up to <secs> for it to exit, then SIGKILL.
stop_daemon() {
  local name="$1" secs="${2:-30}" pid i
  pid=$(daemon_pid "$name")
  if [[ -z "$pid" ]]; then rm -f "$(pid_file "$name")"; return 0; fi
  say "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < secs * 10; i++)); do
    [[ -d "/proc/$pid" ]] || break
    # a zombie has exited for our purposes
    [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)" == Z ]] && break
    sleep 0.1
  done
  if [[ -d "/proc/$pid" ]] && pid_is "$pid" "$name"; then
    if [[ "$name" == client.rgw.* ]]; then
      say "$name still shutting down after ${secs} s (known Pacific lifecycle shutdown hang); sending SIGKILL"
    else
      say "$name did not exit within ${secs} s; sending SIGKILL"
    fi
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do [[ -d "/proc/$pid" ]] || break; sleep 0.1; done
  fi
  rm -f "$(pid_file "$name")"
}

# ---------------------------------------------------------------- config
load_cluster_env() {
  # shellcheck disable=SC1090
  source "$CLUSTER_ENV"
}

# Mon ports: env wins; otherwise what the cluster was created with; else defaults.
resolve_mon_ports() {
  local want_v2="${FLOE_CEPH_MON_PORT:-}" want_v1="${FLOE_CEPH_MON_V1_PORT:-}"
  if [[ -f "$CLUSTER_ENV" ]]; then
    load_cluster_env
    if [[ -n "$want_v2" && "$want_v2" != "$MON_PORT" ]] || [[ -n "$want_v1" && "$want_v1" != "$MON_V1_PORT" ]]; then
      die "the cluster in $DIR was created with mon ports $MON_PORT/$MON_V1_PORT; FLOE_CEPH_MON_PORT/FLOE_CEPH_MON_V1_PORT ask for ${want_v2:-$MON_PORT}/${want_v1:-$MON_V1_PORT}. Use the same ports or run '$0 destroy' first."
    fi
  else
    MON_PORT="${want_v2:-3300}"
    MON_V1_PORT="${want_v1:-6789}"
  fi
  is_port "$MON_PORT" || die "FLOE_CEPH_MON_PORT must be a port number (got '$MON_PORT')"
  is_port "$MON_V1_PORT" || die "FLOE_CEPH_MON_V1_PORT must be a port number (got '$MON_V1_PORT')"
  [[ "$MON_PORT" != "$MON_V1_PORT" ]] || die "mon v2 and v1 ports must differ"
}

# rgw lc debug interval: env when given (-1 = Ceph's default, off), else the
# value the previous radosgw ran with (so restart-rgw keeps behaviour).
resolve_lc_interval() {
  local recorded=""
  if [[ -f "$RGW_STATE" ]]; then recorded=$(sed -n 's/^lc_debug_interval=//p' "$RGW_STATE"); fi
  if [[ -n "${FLOE_RGW_LC_DEBUG_INTERVAL+x}" ]]; then
    LC_INTERVAL="${FLOE_RGW_LC_DEBUG_INTERVAL:--1}"
  else
    LC_INTERVAL="${recorded:--1}"
  fi
  [[ "$LC_INTERVAL" =~ ^-?[0-9]+$ ]] || die "FLOE_RGW_LC_DEBUG_INTERVAL must be an integer number of seconds (got '$LC_INTERVAL')"
}

# ceph.conf is rewritten on every start from cluster.env and the current
# settings (atomically), so improvements to this script reach old clusters.
write_conf() {
  local lc_line=""
  if [[ "$LC_INTERVAL" != "-1" ]]; then lc_line="rgw lc debug interval = $LC_INTERVAL"; fi
  cat >"$CONF.tmp" <<EOF
# Written by infra/ceph/ceph.sh on every start; edit the script, not this file.
[global]
fsid = $FSID
mon host = [v2:127.0.0.1:$MON_PORT,v1:127.0.0.1:$MON_V1_PORT]
mon initial members = a
public addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $KEYRING
log file = $LOG/\$name.log
log to stderr = false
err to stderr = true
mon cluster log file = $LOG/cluster.log
run dir = $RUN
crash dir = $DIR/crash
mon data = $DIR/mon/ceph-\$id
mgr data = $DIR/mgr/ceph-\$id
osd data = $DIR/osd/ceph-\$id
rgw data = $DIR/rgw/ceph-\$id

# one OSD, no replicas
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
osd crush chooseleaf type = 0
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon max pg per osd = 1000

# Debug logging off except errors (level 0) and, for radosgw, one line per
# request (level 1, kept for reading test failures). The default in-memory
# gather levels (x/5 … x/20) format entries nobody reads on every operation:
# on 2 cores that is CPU taken from the catalog's commits.
debug ms = 0/0
debug monc = 0/0
debug auth = 0/0
debug objecter = 0/0
debug rados = 0/0
debug objclass = 0/0
debug osd = 0/0
debug bluestore = 0/0
debug bluefs = 0/0
debug bdev = 0/0
debug rocksdb = 0/0
debug filestore = 0/0
debug journal = 0/0
debug finisher = 0/0
debug throttle = 0/0
debug rgw = 1/1
debug rgw sync = 0/0
debug civetweb = 0/0

# health noise that means nothing on one machine
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim = false
mon warn on insecure global id reclaim allowed = false
mon data avail warn = 10

[mon]
admin socket = $RUN/\$name.asok
pid file = $RUN/\$name.pid
mon memory target = 134217728
rocksdb cache size = 33554432

[mgr]
admin socket = $RUN/\$name.asok
pid file = $RUN/\$name.pid
# Python modules nobody uses here: not loading them halves the mgr's memory.
mgr disabled modules = alerts, diskprediction_local, influx, insights, iostat, localpool, mirroring, nfs, osd_perf_query, osd_support, prometheus, restful, selftest, snap_schedule, stats, telegraf, test_orchestrator, zabbix, dashboard, k8sevents, rook, cephadm, mds_autoscaler

[osd]
admin socket = $RUN/\$name.asok
pid file = $RUN/\$name.pid
osd objectstore = bluestore
bluestore block create = true
bluestore block size = 21474836480
bluestore cache autotune = false
bluestore cache size = 67108864
osd memory target = 939524096
osd op num shards = 2
osd op num threads per shard = 2
# The block file reports itself rotational, which puts bluestore in HDD mode:
# every small write goes through the RocksDB WAL first and again to the
# block (deferred write). The file lives on the machine's SSD-backed disk.
bluestore debug enforce settings = ssd

[client.rgw.gw]
admin socket = $RUN/\$name.asok
pid file = $RUN/\$name.pid
rgw frontends = beast endpoint=127.0.0.1:$S3_PORT
# Beast is asynchronous: a few threads serve many connections; 64 only
# context-switch on 2 cores.
rgw thread pool size = 16
rgw enable apis = $RGW_APIS
rgw sts key = $STS_KEY
rgw s3 auth use sts = true
rgw bucket quota ttl = 0
rgw override bucket index max shards = 1
# The usage log: per bucket and hour, requests and bytes in/out (counters only,
# no object keys), read by the metering worker through the admin usage API.
# Flushed every few seconds so a test sees its own traffic.
rgw enable usage log = true
rgw usage log tick interval = $USAGE_TICK
$lc_line
EOF
  mv -f "$CONF.tmp" "$CONF"
}

# ---------------------------------------------------------------- bootstrap
new_uuid() { cat /proc/sys/kernel/random/uuid; }
random_chars() { LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c "$1" || true; }

bootstrap() {
  local t
  t=$(date +%s.%N)
  say "bootstrapping a new single-node cluster in $DIR"
  # A half-made cluster from an interrupted bootstrap is useless: start clean.
  : >"$DIR/.bootstrapping"
  rm -rf "$DIR/mon" "$DIR/mgr" "$DIR/osd" "$DIR/rgw" "$KEYRING" "$DIR/mon.keyring" "$DIR/monmap" "$RGW_STATE" "$ADMIN_JSON"
  mkdir -p "$LOG" "$RUN" "$DIR/crash" "$DIR/mon/ceph-a" "$DIR/mgr/ceph-x" "$DIR/osd/ceph-0" "$DIR/rgw/ceph-rgw.gw"

  FSID=$(new_uuid)
  OSD_UUID=$(new_uuid)
  STS_KEY=$(random_chars 16)
  [[ ${#STS_KEY} -eq 16 ]] || die "could not generate the STS key"
  write_conf


  (
    umask 077
    export CEPH_CONF=/dev/null # ceph-authtool would otherwise log as "mon." into our log dir
    ceph-authtool --create-keyring "$DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *'
    ceph-authtool --create-keyring "$KEYRING" --gen-key -n client.admin \
      --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *'
    ceph-authtool "$KEYRING" --gen-key -n mgr.x \
      --cap mon 'allow profile mgr' --cap osd 'allow *' --cap mds 'allow *'
    ceph-authtool "$KEYRING" --gen-key -n osd.0 \
      --cap mon 'allow profile osd' --cap mgr 'allow profile osd' --cap osd 'allow *'
    ceph-authtool "$KEYRING" --gen-key -n client.rgw.gw \
      --cap mon 'allow rw' --cap mgr 'allow rw' --cap osd 'allow rwx'
    ceph-authtool "$DIR/mon.keyring" --import-keyring "$KEYRING"
  ) >/dev/null
  monmaptool --create --fsid "$FSID" --addv a "[v2:127.0.0.1:$MON_PORT,v1:127.0.0.1:$MON_V1_PORT]" "$DIR/monmap" >/dev/null
  if ! ceph-mon -c "$CONF" -i a --mkfs --monmap "$DIR/monmap" --keyring "$DIR/mon.keyring" >>"$LOG/mon.a.stdout" 2>&1; then
    tail_log "$LOG/mon.a.stdout"; tail_log "$LOG/mon.a.log"; die "ceph-mon --mkfs failed"
  fi
  rm -f "$DIR/monmap"
  say "mon created ($(elapsed "$t") s)"

  check_mon_ports_free
  start_daemon mon.a
  start_daemon mgr.x
  wait_mon
  if ! cephc osd new "$OSD_UUID" 0 >/dev/null 2>>"$LOG/bootstrap.log"; then
    tail_log "$LOG/bootstrap.log"; die "'ceph osd new' failed"
  fi
  # radosgw would create its pools one by one (two map epochs, ~2 s, each);
  # created side by side now, while the OSD is formatted, they cost nothing.
  precreate_rgw_pools &
  local pools_pid=$!
  say "formatting the bluestore OSD (sparse file $DIR/osd/ceph-0/block)"
  if ! ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$OSD_UUID" >>"$LOG/osd.0.stdout" 2>&1; then
    tail_log "$LOG/osd.0.stdout"; tail_log "$LOG/osd.0.log"; die "ceph-osd --mkfs failed"
  fi
  start_daemon osd.0
  wait "$pools_pid" || { tail_log "$LOG/bootstrap.log"; die "creating the radosgw pools failed"; }

  # Written last: its presence means "a complete cluster exists here".
  cat >"$CLUSTER_ENV.tmp" <<EOF
FSID=$FSID
OSD_UUID=$OSD_UUID
MON_PORT=$MON_PORT
MON_V1_PORT=$MON_V1_PORT
STS_KEY=$STS_KEY
EOF
  chmod 600 "$CLUSTER_ENV.tmp"
  mv -f "$CLUSTER_ENV.tmp" "$CLUSTER_ENV"
  rm -f "$DIR/.bootstrapping"
  say "cluster $FSID created in $(elapsed "$t") s; mon on 127.0.0.1:$MON_PORT (v1 $MON_V1_PORT)"
}

RGW_POOLS=(.rgw.root default.rgw.log default.rgw.control default.rgw.meta
  default.rgw.buckets.index default.rgw.buckets.data default.rgw.buckets.non-ec)
precreate_rgw_pools() {
  local p pids=() rc=0
  for p in "${RGW_POOLS[@]}"; do cephc osd pool create "$p" 8 8 >>"$LOG/bootstrap.log" 2>&1 & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  pids=()
  for p in "${RGW_POOLS[@]}"; do cephc osd pool application enable "$p" rgw >>"$LOG/bootstrap.log" 2>&1 & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return "$rc"
}

check_mon_ports_free() {
  local p
  for p in "$MON_PORT" "$MON_V1_PORT"; do
    if port_open "$p"; then
      die "port $p is in use by another process; this cluster's mon needs it (set FLOE_CEPH_MON_PORT / FLOE_CEPH_MON_V1_PORT for a second cluster, then destroy/recreate its data dir)"
    fi
  done
}

# ---------------------------------------------------------------- waits
wait_mon() {
  local i
  for ((i = 0; i < 60; i++)); do
    if cephc mon stat >/dev/null 2>&1; then return 0; fi
    [[ -n "$(daemon_pid mon.a)" ]] || { tail_log "$LOG/mon.a.log"; die "ceph-mon exited"; }
    sleep 0.5
  done
  tail_log "$LOG/mon.a.log"; die "the mon did not answer within 30 s"
}

# The mon's map may still say "up" for an OSD that was killed, so also ask the
# OSD itself (admin socket) whether it has booted.
wait_osd() {
  local i st
  for ((i = 0; i < 120; i++)); do
    st=$(cephc osd stat -f json 2>/dev/null || true)
    if [[ "$st" == *'"num_up_osds":1'* ]] &&
      timeout 5 ceph -c "$CONF" --admin-daemon "$RUN/osd.0.asok" status 2>/dev/null | grep -q '"state": "active"'; then
      return 0
    fi
    [[ -n "$(daemon_pid osd.0)" ]] || { tail_log "$LOG/osd.0.log"; die "ceph-osd exited"; }
    sleep 0.5
  done
  tail_log "$LOG/osd.0.log"; die "the OSD did not come up within 60 s (ceph osd stat: ${st:-no answer})"
}

wait_rgw() {
  local i pid
  for ((i = 0; i < 240; i++)); do
    rgw_answers && return 0
    pid=$(daemon_pid client.rgw.gw)
    [[ -n "$pid" ]] || { tail_log "$LOG/client.rgw.gw.stdout" 10; tail_log "$LOG/client.rgw.gw.log"; die "radosgw exited"; }
    sleep 0.25
  done
  tail_log "$LOG/client.rgw.gw.log"; die "radosgw did not answer on 127.0.0.1:$S3_PORT within 60 s"
}

# ---------------------------------------------------------------- rgw
# Before stopping a running radosgw to move it to another port: is that port free?
check_new_rgw_port_free() {
  local port=""
  [[ -f "$RGW_STATE" ]] && port=$(sed -n 's/^port=//p' "$RGW_STATE")
  if [[ "$port" != "$S3_PORT" ]] && port_open "$S3_PORT"; then
    die "port $S3_PORT is in use by another process; set FLOE_S3_PORT to a free port (radosgw keeps running on ${port:-its old port})"
  fi
}

rgw_state_line() { echo "port=$S3_PORT lc_debug_interval=$LC_INTERVAL"; }

start_rgw() {
  if port_open "$S3_PORT"; then
    die "port $S3_PORT is in use by another process; set FLOE_S3_PORT to a free port"
  fi
  start_daemon client.rgw.gw
  printf 'port=%s\nlc_debug_interval=%s\nstarted_at=%s\n' "$S3_PORT" "$LC_INTERVAL" "$(date -u +%FT%TZ)" >"$RGW_STATE"
  wait_rgw
}

# Running radosgw started with other settings (port, lc interval) than asked?
rgw_settings_differ() {
  [[ -f "$RGW_STATE" ]] || return 0
  local port lc
  port=$(sed -n 's/^port=//p' "$RGW_STATE")
  lc=$(sed -n 's/^lc_debug_interval=//p' "$RGW_STATE")
  [[ "$port" != "$S3_PORT" || "$lc" != "$LC_INTERVAL" ]]
}

# The usage log is switched on in ceph.conf; a radosgw started before that
# (by an older copy of this script) takes it at run time through its admin
# socket, so a shared gateway never needs a restart for it.
ensure_usage_log() {
  local asok="$RUN/client.rgw.gw.asok"
  [[ -S "$asok" ]] || return 0
  if ! timeout 20 ceph --admin-daemon "$asok" config get rgw_enable_usage_log 2>/dev/null | grep -q '"true"'; then
    timeout 20 ceph --admin-daemon "$asok" config set rgw_usage_log_tick_interval "$USAGE_TICK" >/dev/null 2>&1 || true
    if timeout 20 ceph --admin-daemon "$asok" config set rgw_enable_usage_log true >/dev/null 2>&1; then
      say "switched on the usage log of the running radosgw"
    else
      say "could not switch on the usage log of the running radosgw (traffic stays unmetered until it restarts)"
    fi
  fi
}

# ---------------------------------------------------------------- admin user
ensure_admin_user() {
  local info out parsed
  if ! info=$(timeout 60 radosgw-admin -c "$CONF" user info --uid "$ADMIN_UID" 2>/dev/null); then
    say "creating the admin user $ADMIN_UID"
    if ! out=$(timeout 60 radosgw-admin -c "$CONF" user create --uid "$ADMIN_UID" --display-name "Floe service admin" 2>&1); then
      printf '%s\n' "$out" >&2; die "radosgw-admin user create failed"
    fi
    info="$out"
  fi
  # One python run: read the keys, compare the caps, write admin.json (600).
  if ! parsed=$(printf '%s' "$info" | /usr/bin/python3 -c '
import json, os, sys
uid, caps_wanted, path, endpoint, region, data_dir = sys.argv[1:]
d = json.load(sys.stdin)
key = [k for k in d.get("keys", []) if k.get("user") == uid][0]
have = sorted(c["type"] + "=" + c["perm"] for c in d.get("caps", []))
os.umask(0o077)
with open(path + ".tmp", "w") as f:
    json.dump({"endpoint": endpoint, "region": region, "access_key": key["access_key"],
               "secret_key": key["secret_key"], "data_dir": data_dir}, f, indent=2)
    f.write("\n")
os.chmod(path + ".tmp", 0o600)
os.replace(path + ".tmp", path)
print("caps_ok" if have == sorted(caps_wanted.split(";")) else "caps_missing", key["access_key"], key["secret_key"], d.get("max_buckets"))
' "$ADMIN_UID" "$ADMIN_CAPS" "$ADMIN_JSON" "http://127.0.0.1:$S3_PORT" "$REGION" "$DIR"); then
    die "could not read the keys of $ADMIN_UID from radosgw-admin"
  fi
  local caps_state max_buckets
  read -r caps_state ADMIN_AK ADMIN_SK max_buckets <<<"$parsed"
  # The service's admin owns every catalog's two buckets; RGW's default of
  # 1,000 buckets per user would stop creation at 500 catalogs. 0: no limit.
  if [[ "$max_buckets" != 0 ]]; then
    if ! out=$(timeout 60 radosgw-admin -c "$CONF" user modify --uid "$ADMIN_UID" --max-buckets 0 2>&1); then
      printf '%s\n' "$out" >&2; die "radosgw-admin user modify --max-buckets 0 failed"
    fi
  fi
  if [[ "$caps_state" != caps_ok ]]; then
    # caps add fails the whole command on one invalid cap (e.g. info=*)
    if ! out=$(timeout 60 radosgw-admin -c "$CONF" caps add --uid "$ADMIN_UID" --caps "$ADMIN_CAPS" 2>&1); then
      printf '%s\n' "$out" >&2; die "radosgw-admin caps add failed"
    fi
  fi
}

# A SigV4-signed ListBuckets as the admin user must succeed.
verify_s3() {
  local out code
  if curl --help all 2>/dev/null | grep -q -- '--aws-sigv4'; then
    out=$(curl -s -m 10 -w '\n%{http_code}' --aws-sigv4 "aws:amz:$REGION:s3" --user "$ADMIN_AK:$ADMIN_SK" \
      -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "http://127.0.0.1:$S3_PORT/" 2>&1) || true
    code="${out##*$'\n'}"
    if [[ "$code" == 200 && "$out" == *ListAllMyBucketsResult* ]]; then return 0; fi
    printf '%s\n' "$out" >&2
    die "signed ListBuckets as $ADMIN_UID failed (HTTP $code)"
  elif [[ -x /usr/bin/aws ]]; then
    AWS_ACCESS_KEY_ID="$ADMIN_AK" AWS_SECRET_ACCESS_KEY="$ADMIN_SK" AWS_DEFAULT_REGION="$REGION" AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null \
      /usr/bin/aws --endpoint-url "http://127.0.0.1:$S3_PORT" s3api list-buckets >/dev/null || die "signed ListBuckets as $ADMIN_UID failed (aws)"
  else
    if ! /usr/bin/python3 -c 'import boto3' 2>/dev/null; then
      say "installing python3-boto3 for the S3 check"
      apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends python3-boto3 >/dev/null
    fi
    /usr/bin/python3 - "http://127.0.0.1:$S3_PORT" "$REGION" "$ADMIN_AK" "$ADMIN_SK" <<'PY' || die "signed ListBuckets as $ADMIN_UID failed (boto3)"
import sys, boto3
ep, region, ak, sk = sys.argv[1:]
boto3.client("s3", endpoint_url=ep, region_name=region, aws_access_key_id=ak, aws_secret_access_key=sk).list_buckets()
PY
  fi
}

# ---------------------------------------------------------------- commands
lock() {
  mkdir -p "$DIR"
  exec 9>"$DIR/.lock"
  if ! flock -n 9; then
    say "another ceph.sh is working on $DIR; waiting"
    flock -w 300 9 || die "timed out waiting for the lock on $DIR"
  fi
}

# Brings an existing cluster's daemons back and waits for them; run in a
# subshell, so a failure (die) returns non-zero instead of ending the script.
restart_existing() {
  load_cluster_env
  write_conf
  local n
  for n in mon.a mgr.x osd.0; do
    if [[ -z "$(daemon_pid "$n")" ]]; then
      [[ "$n" == mon.a ]] && check_mon_ports_free
      start_daemon "$n"
      say "started $n"
    fi
  done
  wait_mon
  wait_osd
}

# A single-node development cluster that cannot come back (seen here: after a
# clean stop, Pacific's OSD may abort at start on a map epoch it never stored)
# is set aside, never deleted, and a fresh one is bootstrapped in its place.
set_aside_and_rebuild() {
  local aside n
  aside="${DIR}.broken-$(date -u +%Y%m%dT%H%M%SZ)"
  say "WARNING: the cluster in $DIR did not come back; moving it to $aside and bootstrapping a fresh one (objects of the old cluster stay in $aside)"
  for n in "${DAEMONS_STOP[@]}"; do stop_daemon "$n" 10; done
  mv "$DIR" "$aside"
  mkdir -p "$LOG" "$RUN" "$DIR/crash"
  check_mon_ports_free
  bootstrap
}

cmd_start() {
  cmd_install
  lock
  mkdir -p "$LOG" "$RUN" "$DIR/crash"
  resolve_mon_ports
  resolve_lc_interval
  local fresh=0 n
  if [[ ! -f "$CLUSTER_ENV" ]]; then
    # Never wipe a cluster that only lost its cluster.env; an interrupted
    # bootstrap (marker file) or an empty dir is fine to (re)do.
    if [[ -d "$DIR/mon/ceph-a/store.db" && ! -f "$DIR/.bootstrapping" ]]; then
      die "$DIR holds a mon store but no cluster.env: damaged? Move it aside or run '$0 destroy'"
    fi
    for n in "${DAEMONS_STOP[@]}"; do stop_daemon "$n" 10; done # leftovers of an interrupted bootstrap
    check_mon_ports_free
    bootstrap
    fresh=1
  elif ! ( restart_existing ); then
    [[ "${FLOE_CEPH_REBUILD_ON_FAILURE:-1}" == 1 ]] || die "the cluster in $DIR did not come back (FLOE_CEPH_REBUILD_ON_FAILURE=0 keeps it as it is)"
    set_aside_and_rebuild
    fresh=1
  fi
  load_cluster_env
  wait_mon
  wait_osd
  local rpid
  rpid=$(daemon_pid client.rgw.gw)
  if [[ -n "$rpid" ]] && rgw_settings_differ; then
    check_new_rgw_port_free
    say "radosgw runs with other settings than asked ($(tr '\n' ' ' <"$RGW_STATE" 2>/dev/null)); restarting it with $(rgw_state_line)"
    stop_daemon client.rgw.gw "$RGW_STOP_GRACE"
    rpid=""
  fi
  if [[ -z "$rpid" ]]; then
    start_rgw
    say "radosgw answers on http://127.0.0.1:$S3_PORT ($(rgw_state_line))"
  else
    wait_rgw
  fi
  ensure_usage_log
  ensure_admin_user
  verify_s3
  if ((fresh)); then
    say "ready: fresh cluster, S3 at http://127.0.0.1:$S3_PORT, admin credentials in $ADMIN_JSON (took $(elapsed "$T0") s)"
  else
    say "ready: S3 at http://127.0.0.1:$S3_PORT, admin credentials in $ADMIN_JSON (took $(elapsed "$T0") s)"
  fi
}

cmd_stop() {
  [[ -d "$DIR" ]] || { say "nothing to stop ($DIR does not exist)"; return 0; }
  lock
  local n any=0
  stop_all_shifted_rgw
  for n in "${DAEMONS_STOP[@]}"; do
    [[ -n "$(daemon_pid "$n")" ]] && any=1
    if [[ "$n" == client.rgw.gw ]]; then stop_daemon "$n" "$RGW_STOP_GRACE"; else stop_daemon "$n" 30; fi
  done
  if ((any)); then say "stopped (took $(elapsed "$T0") s)"; else say "nothing was running"; fi
}

cmd_restart_rgw() {
  [[ -f "$CLUSTER_ENV" ]] || die "no cluster in $DIR; run '$0 start' first"
  lock
  load_cluster_env
  if [[ -z "$(daemon_pid mon.a)" || -z "$(daemon_pid osd.0)" ]]; then
    die "the cluster in $DIR is not running (mon or osd down); use '$0 start'"
  fi
  resolve_lc_interval
  check_new_rgw_port_free
  write_conf
  stop_daemon client.rgw.gw "$RGW_STOP_GRACE"
  start_rgw
  say "radosgw restarted and answers on http://127.0.0.1:$S3_PORT (took $(elapsed "$T0") s)"
}

cmd_status() {
  if [[ ! -f "$CLUSTER_ENV" ]]; then say "no cluster in $DIR"; return 0; fi
  load_cluster_env
  local n pid rss up=0
  say "data dir $DIR (fsid $FSID, mon 127.0.0.1:$MON_PORT/$MON_V1_PORT)"
  for n in "${DAEMONS_START[@]}"; do
    pid=$(daemon_pid "$n")
    if [[ -n "$pid" ]]; then
      rss=$(awk '/^VmRSS/ {printf "%d MB", $2/1024}' "/proc/$pid/status" 2>/dev/null || true)
      say "$(printf '%-14s running  pid %-8s rss %s' "$n" "$pid" "$rss")"
      up=$((up + 1))
    else
      say "$(printf '%-14s stopped' "$n")"
    fi
  done
  if [[ -n "$(daemon_pid mon.a)" ]]; then
    local health
    health=$(cephc health 2>&1 | head -n 1 || true)
    say "health: ${health:-no answer}"
    say "osd: $(cephc osd stat 2>&1 | head -n 1 || true)"
  fi
  if [[ -f "$RGW_STATE" ]]; then
    S3_PORT=$(sed -n 's/^port=//p' "$RGW_STATE")
    say "radosgw settings: $(grep -v started_at "$RGW_STATE" | tr '\n' ' ')"
  fi
  if rgw_answers; then say "rgw: answers on http://127.0.0.1:$S3_PORT"; else say "rgw: no answer on http://127.0.0.1:$S3_PORT"; fi
  [[ -f "$ADMIN_JSON" ]] && say "admin credentials: $ADMIN_JSON"
  return 0
}

cmd_destroy() {
  if [[ ! -d "$DIR" ]]; then say "nothing to destroy ($DIR does not exist)"; return 0; fi
  cmd_stop
  # refuse to remove anything that does not look like our data dir
  if [[ -e "$DIR" && ! -f "$CONF" && ! -f "$CLUSTER_ENV" && -n "$(ls -A "$DIR" 2>/dev/null | grep -v -e '^\.lock$' -e '^log$' -e '^run$' -e '^crash$' || true)" ]]; then
    die "$DIR does not look like a Floe Ceph data dir; not removing it"
  fi
  rm -rf "$DIR"
  say "removed $DIR"
}

# ---------------------------------------------------------------- shifted rgw (tests only)
# A second radosgw on the same cluster whose clock runs OFFSET seconds ahead
# (Debian's libfaketime), so a test can see what a credential does once its
# expiry has passed without waiting for it: RGW never vends sessions shorter
# than 900 s. Clients must sign with the same clock offset. Lifecycle and
# garbage collection are off in it, so its future clock expires nothing.
FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
shifted_pid_file() { echo "$RUN/shifted-rgw-$1.pid"; }

cmd_start_shifted_rgw() {
  local port="${1:-}" offset="${2:-}" i
  is_port "$port" && [[ "$offset" =~ ^[0-9]+$ ]] || die "usage: $0 start-shifted-rgw PORT OFFSET_SECONDS"
  [[ -f "$CLUSTER_ENV" ]] || die "no cluster in $DIR; run '$0 start' first"
  [[ -f "$FAKETIME_LIB" ]] || die "libfaketime is missing (apt-get install faketime)"
  port_open "$port" && die "port $port is in use"
  FAKETIME="+${offset}s" LD_PRELOAD="$FAKETIME_LIB" timeout 120 radosgw -c "$CONF" -n client.rgw.gw \
    --rgw-frontends="beast endpoint=127.0.0.1:$port" --rgw-enable-lc-threads=false --rgw-enable-gc-threads=false \
    --pid-file="$(shifted_pid_file "$port")" --admin-socket="$RUN/shifted-rgw-$port.asok" \
    --log-file="$LOG/shifted-rgw-$port.log" </dev/null >>"$LOG/shifted-rgw-$port.stdout" 2>&1 9>&- \
    || die "the shifted radosgw failed to start (see $LOG/shifted-rgw-$port.log)"
  for ((i = 0; i < 240; i++)); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && { say "shifted radosgw (+${offset} s) answers on 127.0.0.1:$port"; return 0; }
    sleep 0.25
  done
  die "the shifted radosgw did not answer on 127.0.0.1:$port within 60 s"
}

cmd_stop_shifted_rgw() {
  local port="${1:-}" pf pid i
  is_port "$port" || die "usage: $0 stop-shifted-rgw PORT"
  pf=$(shifted_pid_file "$port")
  pid=$(tr -dc '0-9' <"$pf" 2>/dev/null || true)
  if [[ -n "$pid" && -d "/proc/$pid" ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 60; i++)); do [[ -d "/proc/$pid" ]] || break; sleep 0.1; done
    [[ -d "/proc/$pid" ]] && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pf"
}

stop_all_shifted_rgw() {
  local pf
  for pf in "$RUN"/shifted-rgw-*.pid; do
    [[ -e "$pf" ]] || continue
    pf=${pf##*/shifted-rgw-}
    cmd_stop_shifted_rgw "${pf%.pid}"
  done
}

case "${1:-}" in
  start-shifted-rgw) cmd_start_shifted_rgw "${2:-}" "${3:-}" ;;
  stop-shifted-rgw) cmd_stop_shifted_rgw "${2:-}" ;;
  install) cmd_install; say "packages present: ${PACKAGES[*]}" ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  restart-rgw) cmd_restart_rgw ;;
  destroy) cmd_destroy ;;
  *)
    echo "usage: $0 install|start|stop|status|restart-rgw|destroy|start-shifted-rgw PORT OFFSET|stop-shifted-rgw PORT" >&2
    echo "env: FLOE_CEPH_DIR FLOE_S3_PORT FLOE_CEPH_MON_PORT FLOE_CEPH_MON_V1_PORT FLOE_RGW_LC_DEBUG_INTERVAL FLOE_CEPH_REBUILD_ON_FAILURE" >&2
    exit 2
    ;;
esac
