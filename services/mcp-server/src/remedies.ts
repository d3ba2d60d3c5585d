// What an assistant can do about a refusal, in words, for the codes the tools
// meet where the refusing service named no `remedy` of its own. The code and
// message stay the service's; this only adds the next step. A tool may carry
// its own words for a code whose general word here would mislead (query's
// not_found names a table or a snapshot, not any resource).

const REMEDIES: Record<string, string> = {
  quota_exceeded: 'the organisation\'s stored data is over its storage limit, so nothing new is written (reading still works): ask the person to delete data they no longer need, or an admin to have the limit raised, then retry',
  limit_exceeded: 'a count limit is reached (limit_value, current): remove something of that kind first, or ask an admin to have the limit raised',
  forbidden: 'this connection holds too low a level for that on this catalog: ask the person to authorize the assistant again with write on it',
  insufficient_scope: 'this connection was authorized for reading only: ask the person to connect the assistant again with the catalogs:write scope',
  warehouse_not_found: 'call list_catalogs for the catalogs this connection may use, and pass one of their names or warehouse_ids',
  table_not_found: 'call list_tables for the catalog\'s tables (namespace.table), then pass that namespace and table',
  namespace_not_found: 'call list_tables for the catalog\'s namespaces',
  sink_not_found: 'the sink does not exist or was deleted; the person can list sinks in Floe (GET /v1/sinks) and give you its name or sink_id',
  sink_disabled: 'the sink is disabled and takes no rows until the person enables it again',
  already_exists: 'that name is taken: describe the existing one, or choose another name',
  invalid_value: 'a value was refused (see field and message): correct it and call again',
  missing_field: 'a required value is missing (see field): add it and call again',
  not_an_array: 'send rows as a list of JSON objects',
  empty_batch: 'send at least one row',
  batch_too_large: 'send the rows in several smaller batches (each at most 16 MiB of JSON)',
  rate_limited: 'wait the number of seconds in retry_after_seconds, then retry',
  unauthorized: 'this connection is no longer authorized: the assistant\'s host must authorize again (the person signs in and allows it)',
  catalog_error: 'the catalog refused the change (see message); correct the request, or retry if it says the catalog was busy',
  catalog_unavailable: 'the catalog or its store did not answer for this call: retry in a few seconds; if it persists, report it with the request id',
  provisioning: 'the catalog is still being set up: wait a few seconds, then retry',
  busy: 'the shared query queue is full (see scope: the deployment\'s or the organisation\'s statements at once): wait retry_after_seconds, then call again; do not send several statements at once',
  query_timeout: 'the statement ran past 20 seconds and was stopped: narrow it (filter on columns, fewer columns or tables, aggregate instead of listing rows, a LIMIT) and call again',
};

/** The service's own remedy, or the tool's words for the code, or this server's; undefined for a code none has words for. */
export const remedyFor = (code: string, own: string | undefined, toolWords?: Record<string, string>): string | undefined =>
  own ?? toolWords?.[code] ?? REMEDIES[code];
