import { z } from 'zod';
import { generateApiKey } from '@floe/auth';
import type { Db } from '@floe/db';
import { insertApiKey, type ApiKeyRecord } from '../store/api-keys';

// Spec: API keys. A key is shown once, when it is made; only its hash is kept.

/** A key's label, as every route that makes a key takes it. */
export const ApiKeyLabel = z.string().trim().min(1).max(200);

export interface IssuedApiKey extends ApiKeyRecord {
  /** The whole key; shown once, never stored. */
  apiKey: string;
}

export async function issueApiKey(db: Db, principalId: string, label: string): Promise<IssuedApiKey> {
  const k = generateApiKey();
  const row = await insertApiKey(db, { keyId: k.keyId, principalId, label, secretHash: k.secretHash });
  return { ...row, apiKey: k.token };
}
