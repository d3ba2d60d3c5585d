/** A statement given a name is prepared once per connection: worth it on hot paths. */
export interface SqlStatement {
  name?: string;
  text: string;
  values?: unknown[];
}

/** The slice of a pg Pool (or client) that plain SQL helpers need. */
export interface SqlClient {
  query<R extends Record<string, any> = Record<string, any>>(text: string | SqlStatement, params?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}
