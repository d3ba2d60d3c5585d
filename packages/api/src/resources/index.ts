import type { Operation } from '../operation';
import { access } from './access';
import { account } from './account';
import { apiKeys } from './api-keys';
import { catalogs } from './catalogs';
import { organisations } from './organisations';
import { passkeys } from './passkeys';
import { providerSignIn } from './provider-sign-in';
import { query } from './query';
import { secondFactor } from './second-factor';
import { sinksUsage } from './sinks-usage';
import { tablesFiles } from './tables-files';

// The resources of the API, in the order the reference lists them. Each file
// declares one resource's operations; add a new file here.

export interface Resource {
  tag: string;
  description: string;
  operations: Operation[];
}

export const RESOURCES: Resource[] = [
  account,
  secondFactor,
  passkeys,
  providerSignIn,
  access,
  apiKeys,
  organisations,
  catalogs,
  tablesFiles,
  query,
  sinksUsage,
];
