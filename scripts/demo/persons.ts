/**
 * The people who visit: name, email, phone, address and tax rate, their devices, and what they did before the
 * window (earlier orders, newsletter subscription). What they do in it is planned in `journeys.ts`.
 */
import type { MailAddress } from '../../contracts/src/events';
import type { PlannerContext } from './context';
import { type Device, makeDevice, personDevices } from './devices';
import { flat } from './format';
import { Distribution, fmix32, type Rng, SALT } from './random';
import { DAY } from './time';

const FIRST_NAMES = (
  'Emma Liam Olivia Noah Ava Elijah Sophia James Isabella Lucas Mia Mateo Amelia Ethan Harper Aiden ' +
  'Evelyn Jackson Abigail Sebastian Emily Henry Ella Owen Chloe Daniel Grace Samuel Zoe Wyatt Nora Leo ' +
  'Layla Julian Riley Maya Carter Aria Isaac Hannah Priya Wei Sofia Diego Fatima Kenji'
).split(' ');
const LAST_NAMES = (
  'Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez ' +
  'Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark ' +
  'Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Patel Chen Kim ' +
  'Okafor'
).split(' ');
const CITIES: { city: string; province: string; code: string; zip: string; area: string; tax: number }[] = [
  { city: 'Portland', province: 'Oregon', code: 'OR', zip: '97205', area: '503', tax: 0 },
  { city: 'Seattle', province: 'Washington', code: 'WA', zip: '98101', area: '206', tax: 0.1025 },
  { city: 'Austin', province: 'Texas', code: 'TX', zip: '78701', area: '512', tax: 0.0825 },
  { city: 'Denver', province: 'Colorado', code: 'CO', zip: '80202', area: '303', tax: 0.0881 },
  { city: 'Chicago', province: 'Illinois', code: 'IL', zip: '60601', area: '312', tax: 0.1025 },
  { city: 'Brooklyn', province: 'New York', code: 'NY', zip: '11201', area: '718', tax: 0.08875 },
  { city: 'San Diego', province: 'California', code: 'CA', zip: '92101', area: '619', tax: 0.0775 },
  { city: 'Atlanta', province: 'Georgia', code: 'GA', zip: '30303', area: '404', tax: 0.089 },
  { city: 'Boston', province: 'Massachusetts', code: 'MA', zip: '02108', area: '617', tax: 0.0625 },
  { city: 'Miami', province: 'Florida', code: 'FL', zip: '33130', area: '305', tax: 0.07 },
  { city: 'Minneapolis', province: 'Minnesota', code: 'MN', zip: '55401', area: '612', tax: 0.08025 },
  { city: 'Phoenix', province: 'Arizona', code: 'AZ', zip: '85004', area: '602', tax: 0.086 },
  { city: 'Nashville', province: 'Tennessee', code: 'TN', zip: '37203', area: '615', tax: 0.0925 },
  { city: 'Philadelphia', province: 'Pennsylvania', code: 'PA', zip: '19103', area: '215', tax: 0.06 },
];
const STREETS = ['Main Street', 'Oak Avenue', 'Maple Drive', 'Cedar Lane', 'Pine Street', 'Elm Street', 'Park Place'];
const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'];

/** first.last, firstl, flast, first_last. */
const EMAIL_FORMATS = new Distribution([0, 1, 2, 3], [50, 20, 20, 10]);

export interface Person {
  idx: number;
  first: string;
  last: string;
  email: string;
  phone: string;
  /** Gives the phone number at checkout. */
  sharesPhone: boolean;
  address: MailAddress;
  taxRate: number;
  devices: Device[];
  customerId: string | null;
  /** Orders so far, including the ones before the window (existing customers). */
  orders: number;
  subscribedAt: number | null;
  /** Last session abandoned at checkout with the email given, for the abandoned-checkout email. */
  abandonedAt: number | null;
  lastPurchaseAt: number | null;
}

/** What making a person needs of the planner: the seed's id space and the start of the window. */
export type PersonContext = Pick<PlannerContext, 'keys' | 'idMask' | 'emailTag' | 'startMs' | 'deviceCount'>;

/**
 * Person number `idx` of the seed: name, email, address and devices; about 8% are customers from before the window
 * and about 12% more subscribed to the newsletter before it.
 */
export function makePerson(ctx: PersonContext, rng: Rng, idx: number): Person {
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const f = first.toLowerCase();
  const l = last.toLowerCase();
  const format = EMAIL_FORMATS.sample(rng);
  const local =
    format === 0
      ? flat(f, '.', l)
      : format === 1
        ? flat(f, l.charAt(0))
        : format === 2
          ? flat(f.charAt(0), l)
          : flat(f, '_', l);
  const city = rng.pick(CITIES);
  const devices = personDevices(rng, (profile) => makeDevice(rng, profile, ctx.deviceCount++, ctx.idMask));
  // About 8% are customers from before the window: subscribed, with earlier orders.
  const existing = rng.chance(0.08);
  // And about 12% more joined the newsletter before the window without buying.
  const subscriber = existing ? rng.chance(0.7) : rng.chance(0.13);
  return {
    idx,
    first,
    last,
    email: flat(local, '.', ctx.emailTag, idx, '@', rng.pick(EMAIL_DOMAINS)),
    phone: flat('+1', city.area, '55501', String(rng.int(100)).padStart(2, '0')),
    sharesPhone: rng.chance(0.4),
    address: {
      address1: flat(rng.between(1, 2999), ' ', rng.pick(STREETS)),
      address2: rng.chance(0.2) ? `Apt ${rng.between(1, 40)}` : null,
      city: city.city,
      country: 'United States',
      countryCode: 'US',
      firstName: first,
      lastName: last,
      phone: null,
      province: city.province,
      provinceCode: city.code,
      zip: city.zip,
    },
    taxRate: city.tax,
    devices,
    customerId: existing ? customerIdOf(ctx.keys, rng) : null,
    orders: existing ? rng.between(1, 4) : 0,
    subscribedAt: subscriber ? ctx.startMs - rng.between(20, 400) * DAY : null,
    abandonedAt: null,
    lastPurchaseAt: null,
  };
}

/** A new customer id of the seed with keys `keys`. */
export function customerIdOf(keys: readonly [number, number], rng: Rng): string {
  // 13 digits; the per-seed block keeps different seeds apart in one store (collisions are unlikely, not impossible).
  return String(7_000_000_000_000 + (fmix32(keys[0] ^ SALT.order) % 2_000_000) * 1_000_000 + rng.int(1_000_000));
}

/** The email as typed at checkout. */
export function emailVariant(rng: Rng, email: string): string {
  // Some buyers type their address with capitals; identity must normalize it.
  if (!rng.chance(0.12)) return email;
  const [local = '', domain = ''] = email.split('@');
  return `${local.charAt(0).toUpperCase()}${local.slice(1)}@${rng.chance(0.5) ? domain.charAt(0).toUpperCase() + domain.slice(1) : domain}`;
}
