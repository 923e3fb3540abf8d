#!/usr/bin/env bash
# Installs admit on a Debian machine (or into a container image): the app under a prefix, built,
# with production dependencies only; PostgreSQL and a database unless one is given; an
# environment file; a systemd unit, enabled where systemd runs.
#
#   sudo deploy/install.sh                          # /opt/admit, local PostgreSQL, systemd unit
#   sudo deploy/install.sh --database-url postgres://user:pass@db/admit --base-url https://tickets.example.org
#   deploy/install.sh --container --prefix /opt/admit   # what the Dockerfile runs: the app only
#   sudo deploy/install.sh --prefix /tmp/x --no-systemd --start --port 3210   # CI: run it in place
#
# Options:
#   --prefix DIR         where the app, its data and its environment file go (default /opt/admit)
#   --database-url URL   use this PostgreSQL database; without it PostgreSQL is installed from
#                        Debian's packages and a database "admit" is created with its own role
#   --base-url URL       the public origin (default http://localhost:PORT)
#   --port N             HTTP port (default 3000)
#   --host ADDR          bind address (default 127.0.0.1: put a reverse proxy in front)
#   --user NAME          the system user admit runs as (default admit; created if missing)
#   --no-systemd         write the unit file but do not enable it
#   --start              start admit now without systemd (in the background; pid in PREFIX/admit.pid)
#   --container          install the app only (no PostgreSQL, no user, no unit): the image's build
set -euo pipefail

PREFIX=/opt/admit
DATABASE_URL_ARG=""
BASE_URL_ARG=""
PORT=3000
HOST=127.0.0.1
RUN_USER=admit
SYSTEMD=1
START=0
CONTAINER=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX="$2"; shift 2 ;;
    --database-url) DATABASE_URL_ARG="$2"; shift 2 ;;
    --base-url) BASE_URL_ARG="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --host) HOST="$2"; shift 2 ;;
    --user) RUN_USER="$2"; shift 2 ;;
    --no-systemd) SYSTEMD=0; shift ;;
    --start) START=1; shift ;;
    --container) CONTAINER=1; SYSTEMD=0; shift ;;
    -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$PORT" in '' | *[!0-9]*) echo "install.sh: --port must be a number" >&2; exit 2 ;; esac

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
APP="$PREFIX/app"
say() { printf '== %s\n' "$*"; }

# ---- Node.js: admit needs 20.19 or newer (Debian 12's own package is 18: install Node from
# nodejs.org or NodeSource first; the container image starts from node:22)
if ! command -v node >/dev/null; then
  echo "install.sh: Node.js 20.19+ is needed and none is installed" >&2
  exit 1
fi
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "install.sh: Node.js $(node -v) is too old: admit needs 20.19 or newer" >&2
  exit 1
fi

# ---- the app: sources, production dependencies, the build
say "installing the app into $APP"
mkdir -p "$APP"
# everything the service reads, nothing of a working copy (data, dependencies, test output)
tar -C "$SRC" --exclude=./node_modules --exclude=./.git --exclude=./data --exclude=./dist \
  --exclude=./test-results --exclude='./.build-test-*' -cf - . | tar -C "$APP" -xf -
(cd "$APP" && npm ci --omit=dev --no-audit --no-fund --loglevel=error && node bin/build.mjs)
# the service's user reads what root installed: tar carries the source folder's own mode (a
# checkout made by mktemp is 700), so open it up explicitly; nothing under the app is writable to it
chmod -R u+rwX,go+rX,go-w "$APP"

if [ "$CONTAINER" = 1 ]; then
  id -u "$RUN_USER" >/dev/null 2>&1 || useradd --system --home-dir "$PREFIX" --shell /usr/sbin/nologin "$RUN_USER"
  mkdir -p "$PREFIX/data" && chown -R "$RUN_USER" "$PREFIX/data"
  say "done: the image runs $APP/bin/admit.mjs serve"
  exit 0
fi

# ---- the database
if [ -z "$DATABASE_URL_ARG" ]; then
  say "PostgreSQL from Debian's packages"
  if ! command -v psql >/dev/null || ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  if [ -d /run/systemd/system ]; then
    systemctl enable --now postgresql >/dev/null
  else
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start 2>/dev/null || true
  fi
  PW_FILE="$PREFIX/.db-password"
  [ -f "$PW_FILE" ] || (umask 077 && head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' >"$PW_FILE")
  PW="$(cat "$PW_FILE")"
  su postgres -c "psql -qtAc \"select 1 from pg_roles where rolname = 'admit'\"" | grep -q 1 ||
    su postgres -c "psql -qc \"create role admit login password '$PW'\""
  su postgres -c "psql -qtAc \"select 1 from pg_database where datname = 'admit'\"" | grep -q 1 ||
    su postgres -c "createdb -O admit admit"
  DATABASE_URL_ARG="postgres://admit:$PW@127.0.0.1:5432/admit"
fi

# ---- who runs it, and where it keeps its files
if ! id -u "$RUN_USER" >/dev/null 2>&1; then
  say "creating the system user $RUN_USER"
  useradd --system --home-dir "$PREFIX" --shell /usr/sbin/nologin "$RUN_USER"
fi
mkdir -p "$PREFIX/data"
chown -R "$RUN_USER" "$PREFIX/data"
chmod 755 "$PREFIX"

ENV_FILE="$PREFIX/admit.env"
say "writing $ENV_FILE"
(
  umask 077
  cat >"$ENV_FILE" <<EOF
NODE_ENV=production
DATABASE_URL=$DATABASE_URL_ARG
PORT=$PORT
HOST=$HOST
BASE_URL=${BASE_URL_ARG:-http://localhost:$PORT}
ADMIT_DATA_DIR=$PREFIX/data
EOF
)
chown "$RUN_USER" "$ENV_FILE"

# ---- the service
UNIT="$PREFIX/admit.service"
sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@USER@|$RUN_USER|g" -e "s|@NODE@|$(command -v node)|g" "$SRC/deploy/admit.service" >"$UNIT"
if [ "$SYSTEMD" = 1 ] && [ -d /run/systemd/system ]; then
  say "enabling the systemd unit admit.service"
  cp "$UNIT" /etc/systemd/system/admit.service
  systemctl daemon-reload
  systemctl enable --now admit.service
elif [ "$START" = 1 ]; then
  say "starting admit on port $PORT (no systemd)"
  # the unit's command, as its user, with its environment
  su -s /bin/sh "$RUN_USER" -c "set -a; . '$ENV_FILE'; set +a; cd '$APP'; exec '$(command -v node)' bin/admit.mjs serve" \
    >"$PREFIX/admit.log" 2>&1 &
  echo $! >"$PREFIX/admit.pid"
else
  say "the unit is in $UNIT (no systemd here): copy it to /etc/systemd/system to run admit as a service"
fi

if [ "$START" = 1 ] || { [ "$SYSTEMD" = 1 ] && [ -d /run/systemd/system ]; }; then
  for _ in $(seq 1 60); do
    if curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then
      say "admit answers on http://127.0.0.1:$PORT"
      exit 0
    fi
    sleep 1
  done
  echo "install.sh: admit did not answer on port $PORT within 60 s (see $PREFIX/admit.log or journalctl -u admit)" >&2
  exit 1
fi
