/** The slice of a pg Pool (or client) that plain SQL helpers need. */
export interface SqlClient {
  query<R extends Record<string, any> = Record<string, any>>(text: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}
