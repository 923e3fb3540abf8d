#!/usr/bin/env bash
# CI's check of deploy/install.sh on this machine: installs admit into a temporary prefix against
# a new database on the local PostgreSQL, starts it without systemd (these machines run none),
# checks the unit file with systemd-analyze where it exists, fetches pages, and cleans up.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PGHOST="${PGHOST:-127.0.0.1}"
PREFIX="$(mktemp -d /tmp/admit-install-XXXXXX)"
DB="admit_install_$$"
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
cleanup() {
  [ -f "$PREFIX/admit.pid" ] && kill "$(cat "$PREFIX/admit.pid")" 2>/dev/null || true
  sleep 1
  psql -h "$PGHOST" -U postgres -qc "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
  rm -rf "$PREFIX"
}
trap cleanup EXIT
psql -h "$PGHOST" -U postgres -qc "create database $DB"
chmod 755 "$PREFIX"
"$ROOT/deploy/install.sh" --prefix "$PREFIX" --database-url "postgres://postgres@$PGHOST:5432/$DB" \
  --port "$PORT" --no-systemd --start
if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify "$PREFIX/admit.service"
else
  echo "systemd-analyze is not installed here: the unit file is not verified"
fi
grep -q "^ExecStart=$(command -v node) $PREFIX/app/bin/admit.mjs serve$" "$PREFIX/admit.service"
status() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$1"; }
for path in /healthz /readyz /console /api/v1/openapi.json; do
  code="$(status "$path")"
  echo "GET $path -> $code"
  case "$path:$code" in /console:200 | /console:303 | /healthz:200 | /readyz:200 | /api/v1/openapi.json:200) ;; *) exit 1 ;; esac
done
# production: no demo account, no mail viewer
[ "$(status /e/demo/harbour-lights-2027)" = 404 ]
[ "$(status /_mail)" = 404 ]
echo "install: ok"
