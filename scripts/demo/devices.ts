/**
 * Devices (one clientId each): the browser profiles visitors use, with their share, user agent and window sizes,
 * and the devices of one person. Add a browser as a row of `DEVICE_PROFILES`.
 */
import type { WebPixelsNavigator } from '../../contracts/src/events';
import { deepFreeze } from './format';
import { Distribution, type Rng, uniqueUuid } from './random';

export type DeviceKind = 'mobile' | 'desktop' | 'tablet';

export interface DeviceProfile {
  kind: DeviceKind;
  weight: number;
  userAgent: string;
  screen: [number, number];
  inner: [number, number];
  /** `screen` as the pixel reports it (shared, frozen). */
  screenSize: { width: number; height: number };
  navigators: Map<string, WebPixelsNavigator>;
}

const DEVICE_PROFILES: DeviceProfile[] = (
  [
    {
      kind: 'mobile',
      weight: 34,
      userAgent:
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      screen: [393, 852],
      inner: [393, 659],
    },
    {
      kind: 'mobile',
      weight: 22,
      userAgent:
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
      screen: [412, 915],
      inner: [412, 779],
    },
    {
      kind: 'mobile',
      weight: 8,
      userAgent:
        'Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36',
      screen: [360, 780],
      inner: [360, 658],
    },
    {
      kind: 'desktop',
      weight: 14,
      userAgent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      screen: [1728, 1117],
      inner: [1440, 900],
    },
    {
      kind: 'desktop',
      weight: 6,
      userAgent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      screen: [1512, 982],
      inner: [1512, 859],
    },
    {
      kind: 'desktop',
      weight: 11,
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      screen: [1920, 1080],
      inner: [1903, 969],
    },
    {
      kind: 'desktop',
      weight: 3,
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
      screen: [1536, 864],
      inner: [1519, 730],
    },
    {
      kind: 'tablet',
      weight: 2,
      userAgent:
        'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      screen: [820, 1180],
      inner: [820, 1106],
    },
  ] satisfies Omit<DeviceProfile, 'screenSize' | 'navigators'>[]
).map((p) => ({
  ...p,
  screenSize: deepFreeze({ width: p.screen[0], height: p.screen[1] }),
  navigators: new Map<string, WebPixelsNavigator>(),
}));

export interface Device {
  /** Global device number (unique within a seed). */
  n: number;
  clientId: string;
  ip: string;
  kind: DeviceKind;
  navigator: WebPixelsNavigator;
  inner: [number, number];
  screen: { width: number; height: number };
  /** An ad blocker stops the pixel: this device's sessions send no event (the store still pushes its orders). */
  blocked: boolean;
  /** Landing page path+query and referrer of the first session on this device (the order's landing_site). */
  firstLanding?: { site: string; referrer: string };
  /** Events so far (the `seq` of the next one is this + 1). */
  seq: number;
}

const LANGUAGES = new Distribution(['en-US', 'en-GB', 'es-US'], [90, 5, 5]);
/** Devices (clientIds) per person. */
const DEVICE_COUNTS = new Distribution([1, 2, 3], [58, 32, 10]);

/** Navigator snapshots are shared (and frozen) per device profile and language. */
function navigatorOf(profile: DeviceProfile, language: string): WebPixelsNavigator {
  let nav = profile.navigators.get(language);
  if (!nav) {
    nav = deepFreeze({
      cookieEnabled: true,
      language,
      languages: language === 'en-US' ? ['en-US', 'en'] : [language, 'en-US', 'en'],
      userAgent: profile.userAgent,
    });
    profile.navigators.set(language, nav);
  }
  return nav;
}

const PROFILE_POOLS = new Map<DeviceKind | null, { pool: DeviceProfile[]; weights: number[] }>(
  ([null, 'mobile', 'desktop', 'tablet'] as const).map((kind) => {
    const pool = DEVICE_PROFILES.filter((p) => kind === null || p.kind === kind);
    return [kind, { pool, weights: pool.map((p) => p.weight) }];
  }),
);

/** Device number `n` of the seed (its clientId is unique for `n`), of the given profile. */
export function makeDevice(rng: Rng, profile: DeviceProfile, n: number, idMask: readonly [number, number]): Device {
  const ip =
    profile.kind === 'mobile' && rng.chance(0.5)
      ? `2001:db8:${rng.hex(4)}:${rng.hex(4)}::${rng.hex(3)}`
      : `${rng.pick(['203.0.113', '198.51.100', '192.0.2'])}.${rng.between(1, 254)}`;
  const language = LANGUAGES.sample(rng);
  return {
    n,
    clientId: uniqueUuid(rng, idMask, n),
    ip,
    kind: profile.kind,
    navigator: navigatorOf(profile, language),
    inner: profile.inner,
    screen: profile.screenSize,
    blocked: rng.chance(0.03),
    seq: 0,
  };
}

function pickProfile(rng: Rng, kind: DeviceKind | null): DeviceProfile {
  const { pool, weights } = PROFILE_POOLS.get(kind)!;
  return rng.weighted(pool, weights);
}

/**
 * The 1 to 3 devices of a person: any first one, then devices of another kind (a phone and a laptop, say).
 * `newDevice` numbers and makes one.
 */
export function personDevices(rng: Rng, newDevice: (profile: DeviceProfile) => Device): Device[] {
  const nDevices = DEVICE_COUNTS.sample(rng);
  const devices: Device[] = [];
  const firstProfile = pickProfile(rng, null);
  devices.push(newDevice(firstProfile));
  for (let i = 1; i < nDevices; i++) {
    const kind: DeviceKind =
      firstProfile.kind === 'mobile'
        ? rng.chance(0.8)
          ? 'desktop'
          : 'tablet'
        : rng.chance(0.85)
          ? 'mobile'
          : 'tablet';
    devices.push(newDevice(pickProfile(rng, i === 2 && kind === 'desktop' ? 'tablet' : kind)));
  }
  return devices;
}
