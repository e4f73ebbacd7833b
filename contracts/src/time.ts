/** Calendar helpers in a store's IANA time zone (pure: Intl only, no clock). */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function parts(epochMs: number, timeZone: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(epochMs))) out[p.type] = p.value;
  return out;
}

/**
 * Days already computed, per zone and quarter hour. Since 1980 every zone's offset has been a whole number
 * of quarter hours, so a quarter hour never straddles a local midnight; before that (local mean times) the
 * day is computed every time. Formatting is slow and the pipeline asks for the days of every event.
 */
const DAY_MEMO_FROM = Date.UTC(1980, 0, 1);
const QUARTER_HOUR_MS = 900_000;
const DAY_MEMO_LIMIT = 100_000;
const dayMemos = new Map<string, Map<number, string>>();

function formatDay(epochMs: number, timeZone: string): string {
  const p = parts(epochMs, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** The calendar day `YYYY-MM-DD` of an instant in the time zone. */
export function dayInZone(epochMs: number, timeZone: string): string {
  if (!(epochMs >= DAY_MEMO_FROM)) return formatDay(epochMs, timeZone);
  let memo = dayMemos.get(timeZone);
  if (!memo) {
    memo = new Map();
    dayMemos.set(timeZone, memo);
  }
  const quarter = Math.floor(epochMs / QUARTER_HOUR_MS);
  let day = memo.get(quarter);
  if (day === undefined) {
    day = formatDay(epochMs, timeZone);
    if (memo.size >= DAY_MEMO_LIMIT) memo.clear();
    memo.set(quarter, day);
  }
  return day;
}

/** `YYYY-MM-DD HH:MM:SS` of an instant in the time zone (the API's time format). */
export function localDateTime(epochMs: number, timeZone: string): string {
  const p = parts(epochMs, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** Offset (ms) of the time zone from UTC at an instant: local wall-clock time minus UTC. */
function offsetAt(epochMs: number, timeZone: string): number {
  const p = parts(epochMs, timeZone);
  const asUtc = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The instant of a local wall-clock time (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`) in the time zone; null
 * when the text is not of that form. In a DST gap or overlap the earlier offset is used.
 */
export function zonedToEpoch(local: string, timeZone: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2}))?$/.exec(local);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(wall);
  if (
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    s > 59
  )
    return null;
  // Two passes converge for every real zone (the offset at the guess, then at the corrected instant).
  let guess = wall - offsetAt(wall, timeZone);
  guess = wall - offsetAt(guess, timeZone);
  return guess;
}
