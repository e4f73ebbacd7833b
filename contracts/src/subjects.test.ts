import { consumerName, eventSubject, fnv1a32, parseEventSubject, partitionOf, pipelineConsumers } from './subjects';

describe('subjects', () => {
  it('hashes with FNV-1a (known vectors)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('puts one client in one partition, spread over all partitions', () => {
    expect(partitionOf('st1', 'client-a', 16)).toBe(partitionOf('st1', 'client-a', 16));
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(partitionOf('st1', `c${i}`, 16));
    expect(seen.size).toBe(16);
  });

  it('round-trips subjects', () => {
    const subject = eventSubject(7, 'st_abc', 'page_viewed');
    expect(subject).toBe('ev.7.st_abc.page_viewed');
    expect(parseEventSubject(subject)).toEqual({
      partition: 7,
      overflow: false,
      storeId: 'st_abc',
      name: 'page_viewed',
    });
    expect(parseEventSubject('ev.x.st.page_viewed')).toBeNull();
    expect(parseEventSubject('ev.-1.st.page_viewed')).toBeNull();
    expect(parseEventSubject('ev.o.st.page_viewed')).toBeNull();
    expect(parseEventSubject('ev.1e2.st.page_viewed')).toBeNull();
    expect(parseEventSubject('other.1.st.page_viewed')).toBeNull();
    expect(consumerName(3)).toBe('pipeline-p03');
  });

  it('names the overflow twin of a partition apart from it, with the same partition number', () => {
    const subject = eventSubject(7, 'st_abc', 'page_viewed', true);
    expect(subject).toBe('ev.o7.st_abc.page_viewed');
    expect(parseEventSubject(subject)).toEqual({
      partition: 7,
      overflow: true,
      storeId: 'st_abc',
      name: 'page_viewed',
    });
    expect(consumerName(3, true)).toBe('pipeline-o03');
    expect(pipelineConsumers([2, 5])).toEqual([
      { partition: 2, overflow: false, name: 'pipeline-p02' },
      { partition: 2, overflow: true, name: 'pipeline-o02' },
      { partition: 5, overflow: false, name: 'pipeline-p05' },
      { partition: 5, overflow: true, name: 'pipeline-o05' },
    ]);
  });
});
