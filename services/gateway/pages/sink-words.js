// The sinks page's figures in words (state, last roll, freshness, roll
// policy), with the two small helpers both of its views use. Its own file
// because the list (sink-list.js) and one sink (sink-detail.js,
// sink-device.js) word the same figures, and one spelling keeps them alike.
import { ago, h, plural } from '/app/console.js';

export const enc = encodeURIComponent;

/** A section whose heading can take focus, to move the person to what just appeared. */
export function focusable(sectionEl) {
  sectionEl.querySelector('h2').tabIndex = -1;
  return sectionEl;
}


export const stateBadge = (s) => h('span', { class: 'badge' }, s.disabled_reason ? `${s.state}: ${s.disabled_reason}` : s.state);

export const lastRollWords = (r) => `${plural(r.rows, 'row')} appended, ${r.rejected_rows} rejected, from ${plural(r.batches, 'batch', 'batches')} in ${r.seconds} s`;

export function freshnessWords(s) {
  const rolled = s.freshness.last_roll_at ? `rolled ${ago(s.freshness.last_roll_at)}` : 'never rolled';
  const waiting = s.lag.batches_waiting
    ? `${plural(s.lag.batches_waiting, 'batch', 'batches')} waiting (${s.lag.seconds_behind} s behind)`
    : 'nothing waiting';
  return `${rolled}; ${waiting}`;
}

/** The roll size as the API bounds it (32 to 64 MiB). */
const mebibytes = (n) => `${Number((n / 1048576).toFixed(1))} MiB`;

export function rollPolicyWords(roll) {
  const quiet = roll.inactivity_seconds ? `, or after ${roll.inactivity_seconds} s without a new batch` : '';
  return `every ${roll.seconds} s, or once ${mebibytes(roll.bytes)} wait${quiet}`;
}
