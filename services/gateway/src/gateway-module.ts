import { Router } from 'express';
import { ApiKeyService, Authenticator, BuiltInIssuer } from '@spoor/auth';
import type { Bus } from '@spoor/bus';
import type { ExportCaps } from '@spoor/config';
import type { FastStreamHandler } from '@spoor/http';
import { JobDispatcher } from '@spoor/jobs';
import type { Kv } from '@spoor/kv';
import { RateLimits } from '@spoor/limits';
import { buildVersion, type ServiceModule } from '@spoor/runtime';
import type { IpPolicy, JobKind } from '@spoor/schemas';
import { cachingStore, type Store } from '@spoor/store';
import type { Logger } from '@spoor/service-log';
import { buildApiDocument, createApiRegistry, registerIngestOperations } from './api-document.js';
import { authGuard } from './auth-guard.js';
import { dashboardRouter } from './dashboard-router.js';
import { loggerScriptRouter } from './logger-script-router.js';
import type { RouteContext } from './operation-route.js';
import { accountRoutes } from './routes/account-routes.js';
import { analyticsRoutes } from './routes/analytics-routes.js';
import { liveRoutes } from './routes/live-routes.js';
import { statsRoutes } from './routes/stats-routes.js';
import { shareRoutes } from './routes/share-routes.js';
import { LiveHub } from './live/live-hub.js';
import { liveAccessCheck } from './live/live-access.js';
import { LiveStreamCaps, type LiveStreamLimits } from './live/live-stream-caps.js';
import { dataRoutes } from './routes/data-routes.js';
import { eventRoutes } from './routes/event-routes.js';
import { jobRoutes } from './routes/job-routes.js';
import { memberRoutes } from './routes/member-routes.js';
import { auditRoutes } from './routes/audit-routes.js';
import { AuditTrail } from './audit/audit-trail.js';
import { outboundRoutes } from './routes/outbound-routes.js';
import { ChannelRecipients } from './routes/channel-recipients.js';
import { EmailSender } from '@spoor/notify';
import { statusRoutes } from './routes/status-routes.js';
import { ruleRoutes } from './routes/rule-routes.js';
import { projectRoutes } from './routes/project-routes.js';
import { sessionRoutes } from './routes/session-routes.js';
import { tagRoutes } from './routes/tag-routes.js';
import { wellKnownRoutes } from './routes/well-known-routes.js';
import { installOperator } from './install-operator.js';

export interface GatewayDeps {
  store: Store;
  kv: Kv;
  bus: Bus;
  /** The command topic of a job kind. */
  jobTopic: (kind: JobKind) => string;
  issuer: BuiltInIssuer;
  authenticator: Authenticator;
  apiKeys: ApiKeyService;
  dnsServer: string | null;
  /** SPOOR_IP_MODE: the IP policy of a project that has none of its own. */
  ipMode: IpPolicy;
  /** SPOOR_WEBHOOK_ALLOW_PRIVATE */
  webhookAllowPrivate: boolean;
  /** Caps and confirmation mails of email channels. */
  recipients: ChannelRecipients;
  /** Per-account caps on exports (SPOOR_EXPORT_MAX_ACTIVE, SPOOR_EXPORT_MAX_BYTES); none when only describing the API. */
  exportCaps?: ExportCaps;
  /** Caps on open live streams (SPOOR_LIVE_STREAMS_*); none opens when only describing the API. */
  liveStreams?: LiveStreamLimits;
  /** Invitation mails (issue 45): SPOOR_SMTP_URL's sender, and where their links point; none when only describing the API. */
  mailer?: EmailSender | null;
  publicUrl?: string;
  clock: () => number;
  logger?: Logger;
}

/** Declares every gateway operation: express handlers and OpenAPI paths in one go; answers what runs beside them. */
export function declareGateway(
  ctx: RouteContext,
  deps: GatewayDeps,
): { live: LiveHub; fastStreams: Array<{ path: string; handler: FastStreamHandler }> } {
  wellKnownRoutes(ctx, deps.issuer);
  accountRoutes(ctx, deps.store, deps.issuer, deps.apiKeys, deps.authenticator);
  projectRoutes(ctx, deps.store, { dnsServer: deps.dnsServer, ipMode: deps.ipMode, clock: deps.clock, kv: deps.kv });
  memberRoutes(ctx, deps.store, {
    clock: deps.clock,
    mailer: deps.mailer ?? null,
    publicUrl: deps.publicUrl ?? '',
    kv: deps.kv,
  });
  auditRoutes(ctx, deps.store);
  sessionRoutes(ctx, deps.store, deps.clock);
  eventRoutes(ctx, deps.store);
  tagRoutes(ctx, deps.store);
  ruleRoutes(ctx, deps.store, deps.kv, deps.clock);
  const dispatcher = new JobDispatcher({
    get jobs() {
      return deps.store.jobs;
    },
    bus: deps.bus,
    topic: deps.jobTopic,
    clock: deps.clock,
  });
  jobRoutes(ctx, deps.store, dispatcher);
  dataRoutes(ctx, {
    store: deps.store,
    dispatcher,
    clock: deps.clock,
    ...(deps.exportCaps && { exportCaps: deps.exportCaps }),
  });
  outboundRoutes(ctx, deps.store, {
    clock: deps.clock,
    allowPrivate: deps.webhookAllowPrivate,
    recipients: deps.recipients,
  });
  statusRoutes(ctx, deps.store, deps.bus, deps.clock);
  analyticsRoutes(ctx, deps.store, deps.clock);
  statsRoutes(ctx, deps.store, deps.clock);
  shareRoutes(ctx, deps.store, { clock: deps.clock, publicUrl: deps.publicUrl ?? '' });
  const live = new LiveHub({
    store: deps.store,
    clock: deps.clock,
    check: liveAccessCheck(deps.authenticator, deps.store),
    caps: new LiveStreamCaps(deps.liveStreams ?? { perAccount: 0, perProcess: 0 }),
    ...(deps.logger ? { logger: deps.logger } : {}),
  });
  const liveStream = liveRoutes(ctx, { store: deps.store, authenticator: deps.authenticator, hub: live });
  registerIngestOperations(ctx.registry);
  return { live, fastStreams: [liveStream] };
}

/** A dependency that must not be touched: declaring routes never calls a handler. */
const unused = <T extends object>(name: string): T =>
  new Proxy({} as T, {
    get: () => {
      throw new Error(`${name} is not available when only describing the API`);
    },
  });

/** The OpenAPI document without a running server (for the generated client and its drift test). */
export function describeApi(version: string) {
  const registry = createApiRegistry();
  const ctx: RouteContext = { router: Router(), registry, authenticate: (_req, _res, next) => next() };
  declareGateway(ctx, {
    store: unused('store'),
    kv: unused('kv'),
    bus: unused('bus'),
    jobTopic: (kind) => kind,
    issuer: unused('issuer'),
    authenticator: unused('authenticator'),
    apiKeys: unused('apiKeys'),
    dnsServer: null,
    ipMode: 'full',
    webhookAllowPrivate: false,
    recipients: unused('recipients'),
    clock: Date.now,
  });
  return buildApiDocument(registry, version, null);
}

/** Every read endpoint, accounts, projects, keys and the OpenAPI document (DESIGN.md, gateway). */
export const gatewayModule: ServiceModule = {
  name: 'gateway',
  serves: true,
  async start({ config, adapters, clock, publicUrl, logger }) {
    // Accounts and projects from memory for a moment: two of the four engine queries of every
    // authenticated read (issue 15; libs/store/src/record-cache.ts).
    // API keys and revocations too: where this process holds the store alone (an embedded DuckDB
    // file: one process opens it, so every revocation is this process' own write, heard at once),
    // or where every process' revocations move a mark in the shared KV (Redis), read before each.
    const store = cachingStore(adapters.store, adapters.changes, {
      ttlMs: config.gatewayCacheMs,
      credentials: adapters.store.kind === 'duckdb' || (adapters.credentialMark ?? false),
    });
    const issuerUrl = publicUrl ?? `http://${config.host}:${config.port}`;
    const issuer = new BuiltInIssuer({ accounts: store.accounts, signingKeys: store.signingKeys, issuerUrl, clock });
    const external = config.oidcIssuer ? { issuer: config.oidcIssuer, audience: config.oidcAudience ?? 'spoor' } : null;
    await issuer.init();
    const authenticator = new Authenticator({
      builtIn: issuer,
      external,
      accounts: store.accounts,
      apiKeys: store.apiKeys,
      revokedTokens: store.revokedTokens,
      adminEmails: config.adminEmails,
      firstAccount: installOperator(store),
      clock,
    });
    const router = Router();
    const registry = createApiRegistry();
    const mailer = config.smtpUrl ? new EmailSender({ smtpUrl: config.smtpUrl, from: config.smtpFrom }) : null;
    const recipients = new ChannelRecipients({
      store,
      mailer,
      publicUrl: issuerUrl,
      caps: config.channelCaps,
      clock,
      logger: logger.child('recipients'),
    });
    const limits = new RateLimits(adapters.kv, config.rateLimits, [
      'signup_ip',
      'login_account',
      'login_ip',
      'triggers_account',
      'rules_test_account',
      'shared_ip',
      'share_unlock_ip',
    ]);
    // The audit trail (issue 45, item 7): entries written after each change an operation notes.
    const audit = new AuditTrail({ store, clock, logger: logger.child('audit') });
    const { live, fastStreams } = declareGateway(
      { router, registry, authenticate: authGuard(authenticator), limits, audit },
      {
        store,
        kv: adapters.kv,
        bus: adapters.bus,
        jobTopic: adapters.topics.jobs,
        issuer,
        authenticator,
        apiKeys: new ApiKeyService(store.apiKeys, clock),
        dnsServer: config.dnsServer,
        ipMode: config.ipMode,
        webhookAllowPrivate: config.webhookAllowPrivate,
        recipients,
        exportCaps: config.exportCaps,
        liveStreams: config.liveStreams,
        mailer,
        publicUrl: issuerUrl,
        clock,
        logger: logger.child('live'),
      },
    );
    const document = buildApiDocument(registry, buildVersion(), config.publicUrl);
    router.get(['/openapi.json', '/v1/openapi.json'], (_req, res) => void res.json(document));
    router.use(loggerScriptRouter(logger));
    // Last: its history-API fallback answers browser navigations no route above took.
    router.use(dashboardRouter(logger));
    return {
      router,
      // GET /v1/live on the plain node:http path, before express (issue 42, target 4).
      fastStreams,
      stats: () => ({ ...limits.stats(), ...live.stats(), ...audit.stats() }),
      stop: async () => {
        live.stop();
        await mailer?.close();
      },
    };
  },
};
