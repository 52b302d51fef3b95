import { describe, expect, it } from 'vitest';
import { instantOfWallTime, isTimeZone, nextWeeklyFire } from '../../../src/workflows/weekly';

const WEEKDAYS = [1, 2, 3, 4, 5];
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

describe('nextWeeklyFire', () => {
  // 2026-03-06 is a Friday; US DST starts Sunday 2026-03-08 02:00 (EST → EDT), ends
  // Sunday 2026-11-01 02:00 (EDT → EST); EU summer time starts 2026-03-29 02:00 CET → 03:00 CEST.
  it.each([
    // weekdays at 9:00 in New York, asked on Friday 08:00 local (13:00Z): today 9:00 EST
    [
      'weekdays 9:00, Fri before',
      WEEKDAYS,
      '09:00',
      'America/New_York',
      '2026-03-06T13:00:00Z',
      '2026-03-06T14:00:00.000Z',
    ],
    // asked Friday after 9:00: the weekend is skipped, and Monday is already EDT (UTC-4)
    [
      'weekdays 9:00, Fri after, over the DST jump',
      WEEKDAYS,
      '09:00',
      'America/New_York',
      '2026-03-06T15:00:00Z',
      '2026-03-09T13:00:00.000Z',
    ],
    // exactly at the fire time: the next one, not the same instant again
    [
      'at the instant',
      WEEKDAYS,
      '09:00',
      'America/New_York',
      '2026-03-06T14:00:00Z',
      '2026-03-09T13:00:00.000Z',
    ],
    // a time that does not exist (02:30 on the spring-forward Sunday) fires at 03:30 EDT
    [
      'spring gap',
      [0],
      '02:30',
      'America/New_York',
      '2026-03-07T12:00:00Z',
      '2026-03-08T07:30:00.000Z',
    ],
    // a time that happens twice (01:30 on the fall-back Sunday) fires at its first occurrence (EDT)
    [
      'fall overlap',
      [0],
      '01:30',
      'America/New_York',
      '2026-10-31T12:00:00Z',
      '2026-11-01T05:30:00.000Z',
    ],
    // ... and not again an hour later (at 01:30 EST) but a week on
    [
      'fall overlap, second time',
      [0],
      '01:30',
      'America/New_York',
      '2026-11-01T05:30:00Z',
      '2026-11-08T06:30:00.000Z',
    ],
    // Berlin: weekend at 10:00 across the EU switch (CET +1 → CEST +2)
    [
      'Berlin over the switch',
      [0, 6],
      '10:00',
      'Europe/Berlin',
      '2026-03-28T10:00:00Z',
      '2026-03-29T08:00:00.000Z',
    ],
    // Shanghai has no DST; Monday 09:00 asked on a Monday at 09:01 local → next Monday
    [
      'Shanghai, a week on',
      [1],
      '09:00',
      'Asia/Shanghai',
      '2026-03-09T01:01:00Z',
      '2026-03-16T01:00:00.000Z',
    ],
    // the day boundary is the zone's, not UTC's: 23:30 Sunday in Tokyo is 14:30Z Sunday
    [
      'zone day, not UTC day',
      [0],
      '23:30',
      'Asia/Tokyo',
      '2026-03-08T00:00:00Z',
      '2026-03-08T14:30:00.000Z',
    ],
    ['no days', [], '09:00', 'UTC', '2026-03-08T00:00:00Z', null],
  ])('%s', (_name, days, at, timeZone, now, want) => {
    expect(iso(nextWeeklyFire({ days, at, timeZone }, Date.parse(now)))).toBe(want);
  });

  it('fires on each chosen day once per week, on the chosen wall time, all year (New York)', () => {
    let t = Date.parse('2026-01-01T00:00:00Z');
    const seen: string[] = [];
    const wall = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    for (let i = 0; i < 260; i++) {
      const next = nextWeeklyFire({ days: WEEKDAYS, at: '09:00', timeZone: 'America/New_York' }, t);
      expect(next).toBeGreaterThan(t);
      seen.push(wall.format(new Date(next!)));
      t = next!;
    }
    expect(new Set(seen.map((s) => s.split(' ')[1]))).toEqual(new Set(['09:00']));
    expect(seen.filter((s) => s.startsWith('Sat') || s.startsWith('Sun'))).toEqual([]);
    expect(seen.slice(0, 5).map((s) => s.split(' ')[0])).toEqual([
      'Thu',
      'Fri',
      'Mon',
      'Tue',
      'Wed',
    ]);
  });

  it('knows time zones', () => {
    expect(isTimeZone('Asia/Shanghai')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(instantOfWallTime('UTC', Date.UTC(2026, 0, 1, 9))).toBe(Date.UTC(2026, 0, 1, 9));
  });
});
