/**
 * What the planner of one stream knows: the window, the seed's keys and id space, the catalogue and campaigns,
 * and the counters of devices and sessions planned so far. Functions take the part they read (`Pick<...>`).
 */
import { buildCampaigns, isActive, type AdDef, type CampaignDef } from './campaigns';
import { buildCatalogue, type Catalogue } from './catalog';
import type { DemoOptions } from './options';
import { type Distribution, LOWER, Rng, SALT, seedKeys } from './random';
import { DAY, firstVisitDays, type Window } from './time';

export interface PlannerContext extends Window {
  /** The seed as two 32-bit keys (every PRNG stream starts from them). */
  keys: [number, number];
  cat: Catalogue;
  ads: AdDef[];
  campaignByKey: Map<string, CampaignDef>;
  /** Day of a person's first visit: weekends and the sale flight are busier, traffic grows a little. */
  dayDist: Distribution<number>;
  /** XOR mask of the seed's client and event ids, and the tag of its emails: seeds stay apart in one store. */
  idMask: [number, number];
  emailTag: string;
  /** Whether return visits may come from the SMS closer (`DemoOptions.smsCloser`). */
  smsCloser: boolean;
  /** Devices and sessions planned so far: the number of the next one. */
  deviceCount: number;
  sessionCount: number;
}

export function createPlannerContext(options: Readonly<Required<DemoOptions>>): PlannerContext {
  const keys = seedKeys(options.seed);
  const startMs = options.start.getTime();
  const window: Window = { startMs, endMs: startMs + options.days * DAY, days: options.days };
  const cat = buildCatalogue(options.storeHost, startMs);
  const campaigns = buildCampaigns(cat.storeName);
  const campaignByKey = new Map(campaigns.map((c) => [c.key, c]));
  const sale = campaignByKey.get('spring_sale')!;
  const maskRng = new Rng(keys[0], keys[1], SALT.mask);
  return {
    ...window,
    keys,
    cat,
    ads: campaigns.flatMap((c) => c.ads),
    campaignByKey,
    dayDist: firstVisitDays(window, (at) => isActive(sale, window, at)),
    idMask: [maskRng.u32(), maskRng.u32() & 0xffff],
    emailTag: maskRng.chars(3, LOWER),
    smsCloser: options.smsCloser,
    deviceCount: 0,
    sessionCount: 0,
  };
}
