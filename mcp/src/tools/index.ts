/**
 * The tool set, in the order clients list it. Adding a tool over a new operation: a file in this folder
 * exporting `defineTool({...})`, a method on the report client, and one line here. The tools planned over
 * operations the API does not have yet are listed in docs/decisions.md (MCP server).
 */
import { adCustomers } from './ad-customers';
import { adsReport } from './ads-report';
import { attributionReport } from './attribution-report';
import { attributionSummary } from './attribution-summary';
import { compareModels } from './compare-models';
import { campaignOrders } from './campaign-orders';
import { comparePeriods } from './compare-periods';
import { modelsAndGoals } from './models-and-goals';
import { orderJourney } from './order-journey';
import { orderTouchpoints } from './order-touchpoints';
import type { ReportTool } from './tool';
import { trackingLinksReport } from './tracking-links';
import { webFunnel } from './web-funnel';
import { landingPageSummary } from './landing-page-summary';
import { productReport } from './product-report';
import { influencerReport } from './influencer-report';
import { dataHealth } from './data-health';

export const REPORT_TOOLS: readonly ReportTool[] = [
  attributionReport,
  attributionSummary,
  compareModels,
  comparePeriods,
  orderJourney,
  orderTouchpoints,
  trackingLinksReport,
  webFunnel,
  landingPageSummary,
  productReport,
  influencerReport,
  adsReport,
  adCustomers,
  campaignOrders,
  modelsAndGoals,
  dataHealth,
];
