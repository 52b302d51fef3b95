/**
 * Weekly schedules ("weekdays at 9:00") in the user's time zone: the next fire after a moment.
 * Pure: the zone is an IANA name and every wall-clock reading goes through `Intl`, so a test can
 * pin any zone and any instant, whatever zone the machine runs in.
 *
 * Daylight-saving edges, by design:
 * - a time that does not exist that day (02:30 when clocks jump from 02:00 to 03:00) fires at the
 *   same distance after the jump (03:30), once;
 * - a time that happens twice (01:30 when clocks fall back) fires at its first occurrence only.
 */

/** 0 = Sunday … 6 = Saturday (as `Date#getDay`). */
export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;

export interface WeeklyTime {
  days: readonly number[];
  /** `HH:MM`, 24-hour wall-clock time in `timeZone`. */
  at: string;
  timeZone: string;
}

const DAY = 86_400_000;
const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** The wall clock in `timeZone` at instant `t`, as if it were UTC (ms). */
function wallAt(timeZone: string, t: number): number {
  const p: Record<string, number> = {};
  for (const part of format(timeZone).formatToParts(new Date(t)))
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** The zone's offset from UTC at instant `t` (ms; wall = t + offset). */
function offsetAt(timeZone: string, t: number): number {
  return wallAt(timeZone, Math.floor(t / 1000) * 1000) - Math.floor(t / 1000) * 1000;
}

/**
 * The instant the wall clock in `timeZone` shows `wall` (ms, as UTC): the first one when it shows
 * it twice, and the same distance past the jump when it never does.
 */
export function instantOfWallTime(timeZone: string, wall: number): number {
  // The offsets on either side of any transition near this time.
  const before = offsetAt(timeZone, wall - 2 * DAY);
  const after = offsetAt(timeZone, wall + 2 * DAY);
  const valid = [wall - before, wall - after].filter((t) => offsetAt(timeZone, t) === wall - t);
  if (valid.length) return Math.min(...valid);
  // In a gap: read the wall time with the offset before the jump, which lands after it.
  return wall - before;
}

/** `Europe/Berlin` is a zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    format(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The next instant after `now` at which the weekly time falls; null when no day is chosen. */
export function nextWeeklyFire(w: WeeklyTime, now: number): number | null {
  const days = new Set(w.days);
  if (!days.size) return null;
  const [h, m] = w.at.split(':').map(Number);
  const today = new Date(wallAt(w.timeZone, now));
  // Eight days: today's time may have passed, and the same weekday comes back a week later.
  for (let i = 0; i <= 7; i++) {
    const date = new Date(
      Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + i, h, m),
    );
    if (!days.has(date.getUTCDay())) continue;
    const t = instantOfWallTime(w.timeZone, date.getTime());
    if (t > now) return t;
  }
  return null;
}
