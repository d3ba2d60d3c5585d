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

/** Whether the database answers: the liveness probe of every service's health route. */
export function databaseAnswers(db: { query(text: string): Promise<unknown> }): Promise<boolean> {
  return db.query('SELECT 1').then(() => true, () => false);
}
