import { z } from 'zod';
import { TableMetadataSchema, type TableMetadata } from '@floe/iceberg';

// What the catalog answers for a table (load, create, commit), typed with
// @floe/iceberg's model, and the storage session it vends with a load.

const StringMap = z.record(z.string(), z.string());

const LoadTableResultSchema = z.looseObject({
  'metadata-location': z.string().nullish(),
  metadata: TableMetadataSchema,
  config: StringMap.optional(),
  'storage-credentials': z.array(z.looseObject({ prefix: z.string(), config: StringMap })).optional(),
});

/** A LoadTableResult (also what create and commit answer, without config and credentials). */
export interface LoadTableResult {
  'metadata-location'?: string | null;
  metadata: TableMetadata;
  config?: Record<string, string>;
  'storage-credentials'?: Array<{ prefix: string; config: Record<string, string> }>;
}

/** Validates the catalog's answer against the table model. */
export function toLoadTableResult(value: unknown): LoadTableResult {
  return LoadTableResultSchema.parse(value);
}

/** A storage session the catalog vended for a table's location. */
export interface VendedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When the session runs out (epoch ms), if the catalog said. */
  expiresAtMs?: number;
}

/**
 * The session a load with `X-Iceberg-Access-Delegation: vended-credentials`
 * answered: the first storage credential, or the table config's `s3.*` keys
 * (older clients read those).
 */
export function vendedCredentials(loaded: LoadTableResult): VendedCredentials {
  const c = loaded['storage-credentials']?.[0]?.config ?? loaded.config ?? {};
  const expires = c['s3.session-token-expires-at-ms'];
  return {
    accessKeyId: c['s3.access-key-id'], secretAccessKey: c['s3.secret-access-key'], sessionToken: c['s3.session-token'],
    ...(expires ? { expiresAtMs: Number(expires) } : {}),
  };
}
