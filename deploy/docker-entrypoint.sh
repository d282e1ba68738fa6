#!/bin/sh
# Entrypoint of the broker image (deploy/Dockerfile; docs/deployment.md, "Container").
#
#   no arguments, or options only (docker run IMAGE --auth --log-format pretty):
#     1. `switchboard-broker --check-config <options>`: every configuration error and warning
#        (a misspelt TYO_MQ_* variable is only a warning at a normal start) goes to the
#        container's log; exit 2 without starting when the configuration is invalid;
#     2. `exec switchboard-broker <options>`: the broker replaces this shell as the container's
#        main process, so `docker stop`'s SIGTERM reaches it and drains it.
#     `--host 0.0.0.0` (the broker's own default is loopback, unreachable from outside a
#     container) and `--data-dir /data` (the volume) are added unless the options give them.
#     --help, --version, --print-config and --check-config run at once, without the check.
#   any other first argument (docker run IMAGE switchboard-admin stats, … sh): run as given.
#
# Checked by test/deploy/docker-entrypoint.test.ts against a fake switchboard-broker.
set -eu

case "${1:-}" in
  '' | -*) ;;
  *) exec "$@" ;;
esac

host_given=no
data_dir_given=no
one_shot=no
for arg in "$@"; do
  case "$arg" in
    --host | --host=*) host_given=yes ;;
    --data-dir | --data-dir=*) data_dir_given=yes ;;
    -h | --help | --version | --print-config | --check-config) one_shot=yes ;;
  esac
done
if [ "$data_dir_given" = no ]; then set -- --data-dir /data "$@"; fi
if [ "$host_given" = no ]; then set -- --host 0.0.0.0 "$@"; fi

if [ "$one_shot" = no ]; then
  # Its findings (and "configuration is valid") go to stderr; stdout stays the JSON log stream.
  status=0
  switchboard-broker --check-config "$@" >/dev/null || status=$?
  if [ "$status" -ne 0 ]; then exit "$status"; fi
fi
exec switchboard-broker "$@"
