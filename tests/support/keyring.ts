import { parseDataKeys } from '@floe/config';
import { Keyring } from '@floe/db/sealed';
import type { StackState } from '../../scripts/lib/stack';

/** The data keys of a running stack: what a test needs to seal or open the secrets it stores, as its services do. */
export function stackKeyring(state: Pick<StackState, 'data_keys'>): Keyring {
  return new Keyring(parseDataKeys(state.data_keys));
}
