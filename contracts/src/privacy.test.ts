import { privacySubjectOf } from './privacy';

describe('privacySubjectOf', () => {
  it('takes exactly one identifier, the email compared as identity compares it, ids as exact strings', () => {
    expect(privacySubjectOf({ email: '  Ann@Example.COM ' })).toEqual({
      ok: true,
      subject: { emails: ['ann@example.com'], customerIds: [], clientIds: [], orderIds: [] },
    });
    expect(privacySubjectOf({ customer_id: '9007199254740993' })).toMatchObject({
      subject: { customerIds: ['9007199254740993'] },
    });
    expect(privacySubjectOf({ client_id: ' c 1 ' })).toMatchObject({ subject: { clientIds: [' c 1 '] } });
  });

  it('names the field that is wrong', () => {
    expect(privacySubjectOf({})).toEqual({
      ok: false,
      field: 'email',
      message: 'exactly one of email, customer_id, client_id is required',
    });
    expect(privacySubjectOf({ email: 'a@b.c', client_id: 'x' })).toMatchObject({ field: 'email, client_id' });
    expect(privacySubjectOf({ customer_id: ' ' })).toMatchObject({
      field: 'customer_id',
      message: 'must be a non-empty string',
    });
    expect(privacySubjectOf({ client_id: 42 as unknown as string })).toMatchObject({ field: 'client_id' });
    expect(privacySubjectOf({ email: 'not-an-address' })).toMatchObject({
      field: 'email',
      message: 'is not an email address',
    });
    expect(privacySubjectOf({ client_id: 'x'.repeat(513) })).toMatchObject({ field: 'client_id' });
  });
});
