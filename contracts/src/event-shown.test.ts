import fs from 'node:fs';
import path from 'node:path';
import { sampleEvent } from '../../test/support/samples';
import { eventShownOf, kindObjectsOf, KINDS_WITH_DATA, type EventKindData } from './event-shown';
import { EVENT_NAMES, type StorefrontEvent } from './events';

describe('what the facts keep of an event', () => {
  it('keeps the page title, IP, user agent and _fbp, and the data of a kind that shows it', () => {
    const e = { ...sampleEvent('product_viewed'), fbp: 'fb.1.1700000000000.123' };
    const shown = eventShownOf(e);
    expect(shown).toEqual({
      pageTitle: e.context.document.title,
      clientIp: '203.0.113.7',
      userAgent: e.context.navigator!.userAgent,
      fbp: 'fb.1.1700000000000.123',
      dataJson: JSON.stringify(e.data),
    });
    // The journey's object from the kept data is the one from the event itself.
    const kept = { name: e.name, data: JSON.parse(shown.dataJson!) } as EventKindData;
    expect(kindObjectsOf(kept)).toEqual(kindObjectsOf(e));
    expect(kindObjectsOf(kept).products?.items).toHaveLength(1);
  });

  it('keeps no data of a page view, custom event, identify call or refund, and empty strings for what is missing', () => {
    for (const name of ['page_viewed', 'custom_event', 'user_identified', 'order_refunded'] as const)
      expect(eventShownOf(sampleEvent(name) as StorefrontEvent).dataJson).toBeNull();
    const bare = sampleEvent('page_viewed');
    const noBrowser = {
      ...bare,
      context: { ...bare.context, navigator: undefined, document: { ...bare.context.document, title: undefined } },
    };
    expect(eventShownOf(noBrowser as unknown as typeof bare)).toMatchObject({ pageTitle: '', userAgent: '', fbp: '' });
  });

  it('the migration that moved these into the facts copied the data of the same kinds', () => {
    const sql = fs.readFileSync(path.join(__dirname, '../../infra/migrations/0025_facts_shown.sql'), 'utf8');
    const list = /f\.name in \(([^)]*)\)/.exec(sql)![1]!;
    const names = [...list.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    expect(names.sort()).toEqual([...KINDS_WITH_DATA].sort());
    expect(names.every((n) => (EVENT_NAMES as readonly string[]).includes(n!))).toBe(true);
  });
});
