/**
 * The views, in menu order. A view is one module and one entry here; `requires` names the operation it is
 * built on, so that a view of an operation this server does not have yet stays out of the menu.
 */
import type { FunctionComponent } from 'preact';
import { Channels } from './channels';
import { Funnel } from './funnel';
import { Health } from './health';
import { Influencers } from './influencers';
import { Links } from './links';
import { Models } from './models';
import { Orders } from './orders';
import { Overview } from './overview';
import { Products } from './products';

export interface ViewDef {
  id: string;
  title: string;
  component: FunctionComponent;
  /** An operation the view needs beyond those every server has. */
  requires?: string;
}

export const VIEWS: ViewDef[] = [
  { id: 'overview', title: 'Overview', component: Overview },
  { id: 'channels', title: 'Channels', component: Channels },
  { id: 'models', title: 'Model comparison', component: Models },
  { id: 'orders', title: 'Orders and journeys', component: Orders },
  { id: 'funnel', title: 'Funnel and landing pages', component: Funnel, requires: 'get/web-analysis/list' },
  { id: 'products', title: 'Products', component: Products, requires: 'get/product-analysis/list' },
  { id: 'links', title: 'Links', component: Links },
  {
    id: 'influencers',
    title: 'Influencers',
    component: Influencers,
    requires: 'get/influencer-analysis/list',
  },
  { id: 'health', title: 'Data health', component: Health },
];
