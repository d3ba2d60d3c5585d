// Option values the command line reads the same way in every command.
import { InvalidArgumentError } from 'commander';

/** A commander option parser for a whole number from `min` to `max`; `unit` names what it counts. */
export const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER, unit?: string) => (text: string): number => {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) {
    const range = `from ${min.toLocaleString('en-US')}${max < Number.MAX_SAFE_INTEGER ? ` to ${max.toLocaleString('en-US')}` : ' up'}`;
    throw new InvalidArgumentError(`a whole number${unit ? ` of ${unit}` : ''} ${range}`);
  }
  return n;
};
