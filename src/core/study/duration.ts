/**
 * A limit given in minutes (a study's `softMinutes: 0.2`) as a participant reads it: whole
 * minutes and seconds, never "0.2 minutes".
 * @example spokenMinutes(0.2) // "12 seconds"
 * @example spokenMinutes(2.5) // "2 minutes 30 seconds"
 */
export function spokenMinutes(minutes: number): string {
  const total = Math.max(0, Math.round(minutes * 60));
  const m = Math.floor(total / 60);
  const s = total % 60;
  const unit = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  if (m === 0) return unit(s, 'second');
  return s === 0 ? unit(m, 'minute') : `${unit(m, 'minute')} ${unit(s, 'second')}`;
}
