/** The pure parts of the customer listing: store-time formatting, date filters, and the push → Customer mapping. */
import { stringify } from 'lossless-json';
import { sampleCustomer } from '../../../test/support/samples';
import type { ShopCustomer } from '../../../contracts/src/pushes';
import { ApiError } from '../app/errors';
import { isoInZone, parseTimeFilter, resolveTimeFilters, toCustomer } from './customers.service';

const at = (iso: string): number => Date.parse(iso);

describe('isoInZone', () => {
  it.each([
    ['2026-03-02T04:30:00Z', 'America/New_York', '2026-03-01T23:30:00-05:00'],
    ['2026-07-02T04:30:00Z', 'America/New_York', '2026-07-02T00:30:00-04:00'],
    ['2026-01-02T09:00:00Z', 'Europe/Paris', '2026-01-02T10:00:00+01:00'],
    ['2026-01-02T09:00:00Z', 'Asia/Kolkata', '2026-01-02T14:30:00+05:30'],
    ['2026-01-02T09:00:00Z', 'UTC', '2026-01-02T09:00:00+00:00'],
    ['2026-01-02T09:00:00.250Z', 'UTC', '2026-01-02T09:00:00.250+00:00'],
  ])('%s in %s is %s', (instant, zone, expected) => {
    expect(isoInZone(at(instant), zone)).toBe(expected);
    expect(Date.parse(expected)).toBe(at(instant));
  });
});

describe('parseTimeFilter', () => {
  it('reads YYYY-MM-DD HH:MM:SS and YYYY-MM-DD in the store time zone', () => {
    expect(parseTimeFilter('created_at_min', '2026-03-01 23:30:00', 'America/New_York')).toBe(
      at('2026-03-02T04:30:00Z'),
    );
    expect(parseTimeFilter('created_at_min', '2026-03-01', 'America/New_York')).toBe(at('2026-03-01T05:00:00Z'));
  });

  it('takes an ISO 8601 timestamp with an offset as that instant', () => {
    expect(parseTimeFilter('updated_at_max', '2026-03-01T23:30:00-05:00', 'Europe/Paris')).toBe(
      at('2026-03-02T04:30:00Z'),
    );
    expect(parseTimeFilter('updated_at_max', '2026-03-02T04:30:00Z', 'Europe/Paris')).toBe(at('2026-03-02T04:30:00Z'));
  });

  it('reads the T form without an offset as store time too', () => {
    expect(parseTimeFilter('created_at_max', '2026-03-01T10:00:00', 'Europe/Paris')).toBe(at('2026-03-01T09:00:00Z'));
  });

  it.each(['yesterday', '2026-02-30 10:00:00', '2026-03-01 24:00:00', '2026-03-01 10:00', ''])(
    'rejects %j naming the parameter',
    (value) => {
      let thrown: unknown;
      try {
        parseTimeFilter('created_at_max', value, 'UTC');
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).status).toBe(400);
      expect((thrown as ApiError).message).toMatch(/^created_at_max: must be a date-time YYYY-MM-DD HH:MM:SS/);
    },
  );
});

describe('resolveTimeFilters', () => {
  it('rejects a minimum after its maximum', () => {
    expect(() =>
      resolveTimeFilters({ updated_at_min: '2026-03-02 00:00:00', updated_at_max: '2026-03-01 00:00:00' }, 'UTC'),
    ).toThrow('updated_at_min: is after updated_at_max');
  });

  it('accepts equal bounds and lone bounds', () => {
    expect(
      resolveTimeFilters(
        { created_at_min: '2026-03-01 00:00:00', created_at_max: '2026-03-01 00:00:00', updated_at_max: '2026-03-05' },
        'UTC',
      ),
    ).toEqual({
      created_at_min: at('2026-03-01T00:00:00Z'),
      created_at_max: at('2026-03-01T00:00:00Z'),
      updated_at_max: at('2026-03-05T00:00:00Z'),
    });
  });
});

describe('toCustomer', () => {
  const store = { timezone: 'America/New_York', currency: 'EUR' };

  it('maps a full push, timestamps in store time and ids as numbers', () => {
    const c = toCustomer(sampleCustomer(), store);
    expect(c).toMatchObject({
      id: 7001234567890,
      email: sampleCustomer().email,
      created_at: '2025-01-11T23:31:10-05:00',
      updated_at: '2025-01-11T23:31:12-05:00',
      first_name: 'Jane',
      last_name: 'Doe',
      orders_count: 1,
      state: 'enabled',
      total_spent: '68.18',
      last_order_id: Number(sampleCustomer().last_order_id),
      last_order_name: '#1001',
      verified_email: true,
      tags: '',
      currency: 'USD',
      phone: null,
      note: null,
      multipass_identifier: null,
      tax_exempt: false,
      tax_exemptions: [],
      email_marketing_consent: {
        state: 'subscribed',
        opt_in_level: 'single_opt_in',
        consent_updated_at: '2025-01-11T23:31:10-05:00',
      },
      sms_marketing_consent: null,
      admin_graphql_api_id: 'gid://shopify/Customer/7001234567890',
    });
    const address = {
      id: 9101234567890,
      customer_id: 7001234567890,
      first_name: 'Jane',
      last_name: 'Doe',
      company: null,
      address1: '1 Main Street',
      address2: null,
      city: 'Springfield',
      province: 'Oregon',
      country: 'United States',
      zip: '97477',
      phone: null,
      name: 'Jane Doe',
      province_code: 'OR',
      country_code: 'US',
      country_name: 'United States',
      default: true,
    };
    expect(c.addresses).toEqual([address]);
    expect(c.default_address).toEqual(address);
  });

  it("fills Shopify's defaults for a minimal push and a placeholder default_address", () => {
    const minimal: ShopCustomer = { id: '42', created_at: '2026-01-02T09:00:00Z', updated_at: '2026-01-02T09:00:00Z' };
    expect(toCustomer(minimal, store)).toEqual({
      id: 42,
      email: '',
      created_at: '2026-01-02T04:00:00-05:00',
      updated_at: '2026-01-02T04:00:00-05:00',
      first_name: '',
      last_name: '',
      orders_count: 0,
      state: 'disabled',
      total_spent: '0.00',
      last_order_id: null,
      last_order_name: null,
      note: null,
      verified_email: false,
      multipass_identifier: null,
      tax_exempt: false,
      tags: '',
      currency: 'EUR',
      phone: null,
      addresses: [],
      tax_exemptions: [],
      email_marketing_consent: { state: 'not_subscribed', opt_in_level: 'single_opt_in', consent_updated_at: null },
      sms_marketing_consent: null,
      admin_graphql_api_id: 'gid://shopify/Customer/42',
      default_address: {
        id: 0,
        customer_id: 42,
        first_name: '',
        last_name: '',
        company: null,
        address1: '',
        address2: null,
        city: '',
        province: '',
        country: '',
        zip: '',
        phone: null,
        name: '',
        province_code: '',
        country_code: '',
        country_name: '',
        default: false,
      },
    });
  });

  it('picks the flagged address as default_address when none was pushed, and fills sparse addresses', () => {
    const c = toCustomer(
      {
        id: '7',
        created_at: '2026-01-02T09:00:00Z',
        updated_at: '2026-01-02T09:00:00Z',
        addresses: [
          { id: '1', city: 'Lyon', country: 'France' },
          { id: '2', first_name: 'Ann', last_name: 'Lee', default: true },
        ],
        sms_marketing_consent: { state: 'subscribed', consent_updated_at: '2026-01-02T09:00:00Z' },
      },
      store,
    );
    expect(c.default_address).toMatchObject({ id: 2, customer_id: 7, name: 'Ann Lee', default: true, company: null });
    expect(c.addresses.map((a) => [a.id, a.default, a.country_name])).toEqual([
      [1, false, 'France'],
      [2, true, ''],
    ]);
    expect(c.sms_marketing_consent).toEqual({
      state: 'subscribed',
      opt_in_level: null,
      consent_updated_at: '2026-01-02T04:00:00-05:00',
      consent_collected_from: 'OTHER',
    });
  });

  it('keeps an id beyond 2^53 exact: in admin_graphql_api_id, and as a JSON number of every digit', () => {
    const c = toCustomer(
      { id: '9223372036854775807', created_at: '2026-01-02T09:00:00Z', updated_at: '2026-01-02T09:00:00Z' },
      store,
    );
    expect(c.admin_graphql_api_id).toBe('gid://shopify/Customer/9223372036854775807');
    expect(stringify({ id: c.id, placeholder: c.default_address.customer_id })).toBe(
      '{"id":9223372036854775807,"placeholder":9223372036854775807}',
    );
    // A safe id stays a plain number.
    expect(toCustomer({ ...sampleCustomer(), id: '1001' }, store).id).toBe(1001);
  });
});
