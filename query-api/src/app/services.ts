/**
 * The query API's services, built once by the composition root (api.ts) with their explicit dependencies,
 * and handed to the controllers by tsoa's IoC hook (ioc.ts). A service never sees the whole app context.
 */
import { AdAnalysisService } from '../services/ad-analysis.service';
import { CustomersService } from '../services/customers.service';
import { DashboardReadsService } from '../services/dashboard-reads.service';
import { createStoreLiveRate } from '../services/store-live-rate';
import { IngestService } from '../services/ingest.service';
import { LinkService } from '../services/link.service';
import { OrderService } from '../services/order.service';
import { ReportService } from '../services/report.service';
import { InfluencerService } from '../services/influencer.service';
import { LandingPageService } from '../services/landing-page.service';
import { ProductAnalysisService } from '../services/product-analysis.service';
import { WebAnalysisService } from '../services/web-analysis.service';
import { SettingsService } from '../services/settings.service';
import { StoreHookService } from '../services/store-hooks/store-hook.service';
import { PrivacyService } from '../services/privacy/privacy.service';
import { createSecretBox } from '../../../storage/secret-box';
import { authenticate } from './authentication';
import type { AppContext, Principal } from './context';

export interface ApiServices {
  reports: ReportService;
  adAnalysis: AdAnalysisService;
  orders: OrderService;
  links: LinkService;
  customers: CustomersService;
  settings: SettingsService;
  dashboardReads: DashboardReadsService;
  ingest: IngestService;
  webAnalysis: WebAnalysisService;
  landingPage: LandingPageService;
  productAnalysis: ProductAnalysisService;
  influencers: InfluencerService;
  /** Erasure and export of a person (docs/operations.md, Privacy). */
  privacy: PrivacyService;
  /** Store platform webhooks (/hooks/...), verified with the connections' sealed secrets. */
  storeHooks: StoreHookService;
  /** The store of an ingest key given in the path of /collect, with that route's own rate limit. */
  authenticateCollectKey: (key: string) => Promise<Principal>;
}

export function createServices(ctx: AppContext): ApiServices {
  const { db, config, logger, metrics, publisher, now } = ctx;
  const reports = new ReportService(db);
  const links = new LinkService({
    db,
    publisher,
    logger,
    metrics,
    now,
    shortLinkHost: config.shortLinkHost,
    eventPartitions: config.eventPartitions,
  });
  const liveRate = createStoreLiveRate({
    eventsPerSecond: config.liveEventsPerStore,
    burst: config.liveBurstPerStore,
    pacedEventsPerSecond: config.pacedEventsPerStore,
    now,
  });
  metrics.overflowing.count = () => liveRate.overflowing();
  const ingest = new IngestService({
    publisher,
    logger,
    metrics,
    now,
    maxBatch: config.maxBatch,
    eventPartitions: config.eventPartitions,
    liveRate,
  });
  const privacy = new PrivacyService({
    db,
    askPipeline: ctx.askPipeline,
    waitMs: config.privacyWaitMs,
    logger,
    now,
  });
  return {
    reports,
    privacy,
    adAnalysis: new AdAnalysisService(db),
    dashboardReads: new DashboardReadsService(db, reports, now),
    orders: new OrderService(db, config.shortLinkHost),
    links,
    customers: new CustomersService(db),
    settings: new SettingsService(db, now),
    ingest,
    storeHooks: new StoreHookService({
      db,
      box: config.secretsKey ? createSecretBox(config.secretsKey) : null,
      ingest,
      logger,
      now,
      connectionCacheMs: config.hookConnectionCacheMs,
      privacy,
    }),
    webAnalysis: new WebAnalysisService(db),
    landingPage: new LandingPageService(db),
    productAnalysis: new ProductAnalysisService(db),
    influencers: new InfluencerService(db, links),
    authenticateCollectKey: (key) =>
      authenticate(ctx, 'ingest_key', key, 'ingest_key', { name: 'collect', perSecond: config.collectKeyRate }),
  };
}
