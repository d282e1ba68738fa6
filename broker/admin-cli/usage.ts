/** `switchboard-admin --help`: every command with what it does (docs/management.md). */

/** Entries per `dlq list` page when `--limit` is not given. */
export const DEFAULT_DLQ_PAGE = 50;

export const USAGE = `Usage: switchboard-admin [--url <url>] [--env-file <file> | --console-data-dir <dir> | --console]
                         [--json] [--timeout <ms>] <command>

Manages a tyo-mq-protocol broker with signed management commands (docs/management.md).

Commands:
  request --realm <r> [--role <role>] [--client-id <id>] [--client-name <name>]
      Asks the broker for access as a new client (AUTHORIZATION_REQUEST; needs no credential)
      and prints the request id and a client token, shown once. A manager then approves or
      rejects the request (next, approve, reject); once approved, a client logs in to the realm
      with that token (AUTHENTICATION). Role: both (default), producer or consumer.
  next [--realm <r>]
      Shows the oldest pending authorization request (of one realm with --realm).
  approve <request-id> [--role both|producer|consumer|manager]
      Approves it: its client token becomes a token of the realm (default: the role requested).
  reject <request-id> [--reason <text>]
      Rejects it; the waiting client is told, with the reason.
  revoke --hash <token-hash> | --realm <r> --client-id <id>
      Revokes a client's token.
  realm list
      Lists the realms: auth, who may consume, keys, acceptance, lifetime.
  realm add <name> [--open] [--ephemeral] [--ttl <ttl>] [--allow-tokenless-consumers]
      Adds a realm (requiring auth unless --open; ephemeral with --ephemeral or --ttl).
  realm remove <name> --yes
      Removes a realm with its tokens, stored messages and dead letters.
  realm key <name> [--clear] [--require-key | --no-require-key]
      Generates (prints once) or clears the realm's pre-shared key.
  realm manager-key <name> [--clear]
      Generates (prints once) or clears the realm's manager key.
  realm acceptance <name> on|off
      Whether a new client of the realm needs an approved authorization request.
  realm tokenless <name> on|off
      on: consumers without a token or key are admitted (the reference's rule).
  realm lifetime <name> --ttl <ttl> | --permanent
      Sets how long an ephemeral realm lives from now, or makes it permanent.
  dlq list [--realm <r>] [--consumer <c>] [--event <e>] [--limit <n>] [--cursor <id>]
      Lists dead letters, ${DEFAULT_DLQ_PAGE} per page by default, with the total and the command
      for the next page (--cursor).
  dlq replay <id>... | --all [--realm <r>] [--consumer <c>] [--event <e>]
      Sends dead letters back to their consumers' queues.
  dlq discard <id>... | --all --yes [--realm <r>] [--consumer <c>] [--event <e>]
      Deletes dead letters.
  stats
      Per realm: producers, consumers, subscriptions, queued copies, dead letters.
  settings
      The broker's public settings (JSON, secrets left out).
  backup <dest_dir>
      Online backup of the broker's SQLite stores (messages, auth) into dest_dir, an existing
      directory ON THE BROKER'S HOST, given as an absolute path (global admin token only).

Credential, never from the command line:
  --console-data-dir <dir>  the admin token of the console's local broker, read from the secret
                            store in that console's data directory (npm run console --data-dir);
                            --console: its default, $SWITCHBOARD_DATA_DIR else ~/.switchboard/data
  otherwise                 TYO_MQ_REALM_MANAGER_KEY (realm-scoped), else TYO_MQ_ADMIN_TOKEN, from
                            the environment or the env file (--env-file, else $TYO_MQ_ENV_FILE,
                            else ./.env when present); <NAME>_FILE=<path> reads either from a
                            file, as the broker does (TYO_MQ_ADMIN_TOKEN_FILE=/run/secrets/...)
Broker: --url, else TYO_MQ_PROTOCOL://TYO_MQ_HOST:TYO_MQ_PORT (default http://127.0.0.1:17352).
A refusal names the credential's source and the broker URL used (never the secret).
--json: the broker's replies as JSON; every time is an ISO 8601 string (UTC).
Exit codes: 0 ok, 1 refused by the broker (or dlq replay/discard ids not found), 2 usage,
3 unreachable, 4 no credential.`;
