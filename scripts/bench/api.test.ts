import { serverSide, slowestSplit, type TimedRequest } from './api';

const scrape = (
  requests: Array<[string, string, number, number]>,
  statements: Array<[string, string, number, number]>,
) =>
  [
    '# TYPE http_request_duration_seconds histogram',
    ...requests.flatMap(([route, status, sum, count]) => [
      `http_request_duration_seconds_bucket{le="0.01",method="POST",route="${route}",status="${status}"} ${count}`,
      `http_request_duration_seconds_sum{method="POST",route="${route}",status="${status}"} ${sum}`,
      `http_request_duration_seconds_count{method="POST",route="${route}",status="${status}"} ${count}`,
    ]),
    '# TYPE api_db_query_duration_seconds histogram',
    ...statements.flatMap(([tag, ok, sum, count]) => [
      `api_db_query_duration_seconds_sum{tag="${tag}",ok="${ok}"} ${sum}`,
      `api_db_query_duration_seconds_count{tag="${tag}",ok="${ok}"} ${count}`,
    ]),
  ].join('\n');

describe('the api bench reading the API’s metrics', () => {
  const list = '/:version/api/all-attribution/get-list';
  const events = '/:version/api/events';

  it('gives the mean time of the phase’s answered requests and of each statement tag, since the first scrape', () => {
    const before = scrape(
      [
        [list, '200', 2, 100],
        [events, '200', 1, 10],
      ],
      [
        ['report.groups', 'true', 1, 100],
        ['credential.lookup', 'true', 0.5, 50],
      ],
    );
    const after = scrape(
      [
        [list, '200', 3.5, 200],
        [list, '429', 9, 10],
        [events, '200', 3, 20],
      ],
      [
        ['report.groups', 'true', 1.8, 200],
        ['report.groups', 'false', 5, 3],
        ['credential.lookup', 'true', 0.5, 50],
        ['credential.cache', 'true', 0.3, 100],
      ],
    );
    expect(serverSide(before, after, 'all-attribution/get-list')).toEqual({
      request_ms_mean: 15,
      statement_ms_mean: { 'report.groups': 8, 'credential.cache': 3 },
    });
  });

  it('has no request mean for an operation the API did not answer in the phase', () => {
    const same = scrape([[list, '200', 2, 100]], []);
    expect(serverSide(same, same, 'all-attribution/get-list')).toEqual({
      request_ms_mean: null,
      statement_ms_mean: {},
    });
    expect(serverSide(same, same, 'get/web-analysis/list').request_ms_mean).toBeNull();
  });
});

describe('slowestSplit', () => {
  const req = (clientMs: number, appMs: number, dbMs: number): TimedRequest => ({ clientMs, appMs, dbMs });

  it('splits the slowest 1 % by client latency, beside the means of every request', () => {
    const timed = [
      ...Array.from({ length: 198 }, () => req(10, 8, 5)),
      req(100, 20, 15), // waited outside the API
      req(60, 55, 50), // waited in the database
    ];
    expect(slowestSplit(timed)).toEqual({
      requests: 2,
      slowest: { client_ms: 80, app_ms: 37.5, db_ms: 32.5 },
      all: { client_ms: 10.7, app_ms: 8.3, db_ms: 5.3 },
    });
  });

  it('takes at least one request, and none of an empty phase', () => {
    expect(slowestSplit([req(5, 4, 3), req(7, 6, 1)])?.slowest).toEqual({ client_ms: 7, app_ms: 6, db_ms: 1 });
    expect(slowestSplit([])).toBeNull();
  });
});
