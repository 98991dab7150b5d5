import { h, replace } from '../dom-builder.js';
import type { Page } from '../page-context.js';
import { alertsSection } from '../settings/alerts-section.js';
import { apiKeysSection } from '../settings/api-keys-section.js';
import { channelsSection } from '../settings/channels-section.js';
import { dangerZoneSection } from '../settings/danger-zone-section.js';
import { dataRetentionSection } from '../settings/data-retention-section.js';
import { membersSection } from '../settings/members-section.js';
import { schedulesSection } from '../settings/schedules-section.js';
import { shareLinksSection } from '../settings/share-links-section.js';
import { webhooksSection } from '../settings/webhooks-section.js';

/** API keys (the account's), then the project's members, webhooks, channels, schedules, alerts and data retention; last the danger zone. */
export const settingsPage: Page = async (ctx) => {
  const sections = [
    apiKeysSection(),
    membersSection(ctx),
    webhooksSection(ctx.scope),
    channelsSection(ctx.scope),
    schedulesSection(ctx.scope),
    alertsSection(ctx.scope),
    shareLinksSection(ctx.scope),
    dataRetentionSection(ctx.scope),
    dangerZoneSection(ctx),
  ];
  await Promise.all(sections.map((s) => s.reload()));
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Settings'),
    h(
      'p',
      { class: 'muted' },
      `Members, webhooks, channels, schedules, alerts and data retention of ${ctx.scope.project}.`,
    ),
    sections.map((s) => s.element),
  );
};
